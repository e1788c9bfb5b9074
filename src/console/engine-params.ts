import { quoteIdent, quoteString } from './sql-text.js';

/** One parameter of an engine, read from SHOW ENGINES' Parameters text. */
export interface EngineParam {
  name: string;
  doc: string;
  required: boolean;
  secret: boolean;
  /** The default as written in the doc ('5432', 'false', 'public'), or null. */
  defaultText: string | null;
}

/**
 * Parses `name: doc; name2: doc (default x) (secret)`. A `;` inside a doc does not start a
 * new parameter unless the next words look like `identifier:` (docs hold `; the default schema`).
 */
export function parseEngineParams(text: string): EngineParam[] {
  if (!text.trim()) return [];
  return text
    .split(/;\s+(?=[a-z_][a-z0-9_]*:\s)/i)
    .map((part) => {
      const colon = part.indexOf(':');
      const name = part.slice(0, colon).trim();
      const doc = part.slice(colon + 1).trim();
      const def = /\(default:? ([^)]*)\)/i.exec(doc);
      return {
        name,
        doc,
        required: /\brequired\b/i.test(doc),
        secret: /\(secret\b|\bsecret\)/i.test(doc),
        defaultText: def ? def[1].replace(/;.*$/, '').trim() : null,
      };
    })
    .filter((p) => p.name);
}

/**
 * A form value as the JSON the engine expects: JSON text for objects and arrays, a number or
 * boolean where the default is one, a string otherwise. Empty values are left out (defaults apply).
 */
export function paramValue(p: EngineParam, raw: string): unknown {
  const v = p.secret ? raw : raw.trim();
  if (v === '') return undefined;
  const d = p.defaultText ?? '';
  if (/^[[{]/.test(v) && (!p.secret || /^[[{]/.test(d))) {
    try {
      return JSON.parse(v);
    } catch {
      throw new Error(`Parameter '${p.name}': not valid JSON`);
    }
  }
  if (/^-?\d+$/.test(d) && /^-?\d+$/.test(v)) return Number(v);
  if (/^(true|false)\b/.test(d) && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  return v;
}

/** CREATE DATABASE for the form's values; throws naming the parameter when one is missing or malformed. */
export function createSourceSql(
  name: string,
  engine: string,
  params: readonly EngineParam[],
  values: Readonly<Record<string, string>>,
): string {
  if (!name.trim()) throw new Error('The source needs a name');
  const out: Record<string, unknown> = {};
  for (const p of params) {
    const v = paramValue(p, values[p.name] ?? '');
    if (v === undefined) {
      if (p.required) throw new Error(`Parameter '${p.name}' is required`);
      continue;
    }
    out[p.name] = v;
  }
  return `CREATE DATABASE ${quoteIdent(name.trim())} WITH ENGINE = ${quoteString(engine)}, PARAMETERS = ${JSON.stringify(out)}`;
}
