import { ErrorCode, SqlError } from '../../core/errors.js';
import { isKeyword, isName, type Token } from './lexer.js';
import type { Statement } from './statement.js';

/**
 * Knowledge-base statements (docs/reference/sql.md, "Knowledge bases"), MindsDB's syntax:
 * CREATE / DROP / ALTER / DESCRIBE / EVALUATE KNOWLEDGE_BASE and SHOW KNOWLEDGE_BASES.
 * `USING` takes `name = value` pairs in any order; a value is a JSON object, a list
 * `['a', 'b']`, a string, a number, true/false, or a dotted name (`pg.kb_docs`). Which
 * names are allowed is the knowledge-base service's business, so it can name the unknown one.
 * Null when the statement is not one of these.
 */
export function parseKbStatement(tokens: Token[], sql: string): Statement | null {
  const [a, b] = tokens;
  const kbWord = (t: Token | undefined) => isKeyword(t, 'KNOWLEDGE_BASE');
  if (isKeyword(a, 'SHOW') && isKeyword(b, 'KNOWLEDGE_BASES')) {
    const p = new KbCursor(tokens, sql, 2);
    const like = p.like();
    p.end();
    return { kind: 'show_kbs', like };
  }
  if (!kbWord(b)) return null;
  const p = new KbCursor(tokens, sql, 2);
  if (isKeyword(a, 'CREATE')) {
    const ifNotExists = p.ifWords('NOT', 'EXISTS');
    const name = p.name();
    const params = p.using(true);
    return { kind: 'create_kb', name, ifNotExists, params };
  }
  if (isKeyword(a, 'DROP')) {
    const ifExists = p.ifWords('EXISTS');
    const name = p.name();
    p.end();
    return { kind: 'drop_kb', name, ifExists };
  }
  if (isKeyword(a, 'ALTER')) {
    const name = p.name();
    return { kind: 'alter_kb', name, params: p.using(false) };
  }
  if (isKeyword(a, 'DESCRIBE', 'DESC')) {
    const name = p.name();
    p.end();
    return { kind: 'describe_kb', name };
  }
  if (isKeyword(a, 'EVALUATE')) {
    const name = p.name();
    return { kind: 'evaluate_kb', name, params: p.using(false) };
  }
  return null;
}

class KbCursor {
  constructor(
    private readonly t: Token[],
    private readonly sql: string,
    private i: number,
  ) {}

  private peek(): Token | undefined {
    return this.t[this.i];
  }

  fail(what: string): never {
    const tok = this.peek();
    const near = tok ? `near '${this.sql.slice(tok.start, tok.start + 40)}'` : 'at end of statement';
    throw new SqlError(ErrorCode.SYNTAX, `Syntax error: expected ${what} ${near}`);
  }

  private punct(p: string): boolean {
    const tok = this.peek();
    if (tok?.kind === 'punct' && tok.value === p) {
      this.i++;
      return true;
    }
    return false;
  }

  end(): void {
    if (this.i < this.t.length) this.fail('end of statement');
  }

  ifWords(...rest: string[]): boolean {
    if (!isKeyword(this.peek(), 'IF')) return false;
    this.i++;
    for (const w of rest) {
      if (!isKeyword(this.peek(), w)) this.fail(w);
      this.i++;
    }
    return true;
  }

  /** A KB name; `project.kb` (MindsDB's `mindsdb.kb`) keeps the last part. */
  name(): string {
    const tok = this.peek();
    if (!isName(tok)) this.fail('a knowledge base name');
    this.i++;
    let name = tok.value;
    while (this.punct('.')) {
      const next = this.peek();
      if (!isName(next)) this.fail('a name after "."');
      this.i++;
      name = next.value;
    }
    return name;
  }

  like(): string | null {
    if (!isKeyword(this.peek(), 'LIKE')) return null;
    this.i++;
    const tok = this.peek();
    if (tok?.kind !== 'string') this.fail('a quoted pattern after LIKE');
    this.i++;
    return tok.value;
  }

  /** `USING a = v, b = v ...` to the end of the statement; a name given twice is an error. */
  using(optional: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (!isKeyword(this.peek(), 'USING')) {
      if (optional) {
        this.end();
        return out;
      }
      this.fail('USING');
    }
    this.i++;
    do {
      const key = this.peek();
      if (!isName(key)) this.fail('a parameter name');
      this.i++;
      if (!this.punct('=')) this.fail(`'=' after ${key.value}`);
      const name = key.value.toLowerCase();
      if (name in out)
        throw new SqlError(ErrorCode.SYNTAX, `Syntax error: parameter '${key.value}' is given twice`);
      out[name] = this.value(key.value);
    } while (this.punct(','));
    this.end();
    return out;
  }

  private value(param: string): unknown {
    const tok = this.peek();
    if (!tok) this.fail(`a value for ${param}`);
    if (tok.kind === 'json') {
      this.i++;
      try {
        return JSON.parse(tok.value);
      } catch (e) {
        throw new SqlError(
          ErrorCode.SYNTAX,
          `Syntax error: ${param} is not a valid JSON object: ${(e as Error).message}`,
        );
      }
    }
    if (tok.kind === 'punct' && (tok.value === '[' || tok.value === '(')) {
      const close = tok.value === '[' ? ']' : ')';
      this.i++;
      const items: unknown[] = [];
      if (this.punct(close)) return items;
      do items.push(this.value(param));
      while (this.punct(','));
      if (!this.punct(close)) this.fail(`'${close}' closing the list of ${param}`);
      return items;
    }
    if (tok.kind === 'string') {
      this.i++;
      return tok.value;
    }
    if (tok.kind === 'number' || (tok.kind === 'punct' && tok.value === '-')) {
      let text = '';
      if (tok.kind === 'punct') {
        this.i++;
        text = '-';
      }
      const num = this.peek();
      if (num?.kind !== 'number') this.fail(`a number for ${param}`);
      this.i++;
      return Number(text + num.value);
    }
    if (isKeyword(tok, 'TRUE', 'FALSE')) {
      this.i++;
      return tok.value.toUpperCase() === 'TRUE';
    }
    if (isKeyword(tok, 'NULL')) {
      this.i++;
      return null;
    }
    if (isName(tok)) {
      // A dotted name (`pg.kb_docs`, `files.questions`) stays text: the service reads it.
      this.i++;
      const parts = [tok.value];
      while (this.punct('.')) {
        const next = this.peek();
        if (!isName(next)) this.fail('a name after "."');
        this.i++;
        parts.push(next.value);
      }
      return parts.join('.');
    }
    this.fail(`a value for ${param}`);
  }
}
