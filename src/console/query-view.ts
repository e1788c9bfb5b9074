import { ApiError, sql } from './api.js';
import type { SchemaTree } from './completion.js';
import { clear, describeError, h } from './dom.js';
import { createEditor, type Editor } from './editor.js';
import { type Outcome, ResultsView } from './results-view.js';
import { loadSchema } from './schema.js';
import { quoteIdent } from './sql-text.js';
import { isExplain, splitStatements } from './statements.js';

const HISTORY_KEY = 'tributary.history';
const HISTORY_MAX = 50;

/** SQL text only (never a token) in sessionStorage: it survives a reload, not the tab. */
function readHistory(): string[] {
  try {
    const v = JSON.parse(sessionStorage.getItem(HISTORY_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** The query tab: schema list, editor, run/cancel, history, results. */
export class QueryView {
  readonly el: HTMLElement;
  private editor: Editor;
  private results = new ResultsView();
  private abort: AbortController | null = null;
  private runButton: HTMLButtonElement;
  private cancelButton: HTMLButtonElement;
  private dbSelect: HTMLSelectElement;
  private historySelect: HTMLSelectElement;
  private schemaList = h('nav', { class: 'schema', 'aria-label': 'Sources and tables' });
  private history = readHistory();
  private tree: SchemaTree = {};

  constructor() {
    this.runButton = h(
      'button',
      { type: 'button', class: 'primary', onclick: () => this.run(), title: 'Ctrl+Enter' },
      'Run ▶',
    );
    this.cancelButton = h(
      'button',
      { type: 'button', disabled: true, onclick: () => this.cancel() },
      'Cancel',
    );
    this.dbSelect = h('select', {
      'aria-label': 'Default source',
      title: 'Default source for unqualified tables',
    });
    this.historySelect = h('select', {
      'aria-label': 'History',
      onchange: () => {
        const i = Number(this.historySelect.value);
        if (Number.isInteger(i) && this.history[i] !== undefined) this.editor.setText(this.history[i]);
        this.historySelect.value = '';
      },
    });
    const editorBox = h('div', { class: 'editor' });
    this.el = h(
      'section',
      { class: 'query-view' },
      h(
        'aside',
        { class: 'side' },
        h(
          'div',
          { class: 'side-head' },
          h('h3', {}, 'Schema'),
          h('button', { type: 'button', class: 'link', onclick: () => this.refreshSchema() }, 'Refresh'),
        ),
        this.schemaList,
      ),
      h(
        'div',
        { class: 'work' },
        h(
          'div',
          { class: 'toolbar' },
          this.runButton,
          this.cancelButton,
          h('label', {}, 'Source ', this.dbSelect),
          this.historySelect,
          h('span', { class: 'muted hint' }, 'Ctrl/⌘+Enter runs the selection or every statement'),
        ),
        editorBox,
        this.results.el,
      ),
    );
    this.editor = createEditor(editorBox, this.history[0] ?? 'SHOW DATABASES;', () => this.run());
    this.renderHistory();
    this.results.show([]);
  }

  focus(): void {
    this.editor.view.focus();
  }

  /** Puts a statement in the editor (from another tab) and runs it. */
  runText(text: string): void {
    this.editor.setText(text);
    void this.run();
  }

  async refreshSchema(): Promise<void> {
    clear(this.schemaList, h('p', { class: 'muted' }, 'Loading…'));
    try {
      this.tree = await loadSchema();
    } catch (e) {
      clear(this.schemaList, describeError(e));
      return;
    }
    const current = this.dbSelect.value;
    clear(
      this.dbSelect,
      h('option', { value: '' }, '(none)'),
      Object.keys(this.tree).map((n) => h('option', { value: n }, n)),
    );
    if (current && this.tree[current]) this.dbSelect.value = current;
    this.editor.setSchema(this.tree, this.dbSelect.value || undefined);
    clear(
      this.schemaList,
      Object.entries(this.tree).map(([db, tables]) =>
        h(
          'details',
          { open: Object.keys(tables).length < 12 },
          h('summary', {}, db, h('span', { class: 'muted' }, ` ${Object.keys(tables).length}`)),
          h(
            'ul',
            {},
            Object.entries(tables).map(([t, cols]) =>
              h(
                'li',
                {},
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'link',
                    title: cols.join(', '),
                    onclick: () =>
                      this.runText(`SELECT * FROM ${quoteIdent(db)}.${quoteIdent(t)} LIMIT 100;`),
                  },
                  t,
                ),
              ),
            ),
          ),
        ),
      ),
    );
  }

  private renderHistory(): void {
    clear(
      this.historySelect,
      h('option', { value: '' }, `History (${this.history.length})`),
      this.history.map((q, i) => h('option', { value: i }, q.replace(/\s+/g, ' ').slice(0, 80))),
    );
  }

  private remember(text: string): void {
    this.history = [text, ...this.history.filter((q) => q !== text)].slice(0, HISTORY_MAX);
    try {
      sessionStorage.setItem(HISTORY_KEY, JSON.stringify(this.history));
    } catch {
      // storage full or off: history stays in memory
    }
    this.renderHistory();
  }

  cancel(): void {
    this.abort?.abort();
  }

  /** Runs each statement in turn; stops at the first error, cancel or failure. */
  async run(): Promise<void> {
    if (this.abort) return;
    const text = this.editor.runnableText();
    const statements = splitStatements(text);
    if (statements.length === 0) return;
    this.remember(text.trim());
    const abort = new AbortController();
    this.abort = abort;
    this.runButton.disabled = true;
    this.cancelButton.disabled = false;
    const outcomes: Outcome[] = statements.map((s) => ({
      sql: s.text,
      result: null,
      status: 'skipped',
      explain: isExplain(s.text),
    }));
    let changedSchema = false;
    try {
      for (const o of outcomes) {
        o.status = 'running';
        this.results.show(outcomes);
        const t0 = performance.now();
        try {
          const use = /^\s*use\s+`?([^`;\s]+)`?\s*$/i.exec(o.sql);
          o.result = await sql(o.sql, abort.signal, this.dbSelect.value || undefined);
          o.ms = performance.now() - t0;
          o.status = 'done';
          if (use && o.result.type === 'ok' && this.tree[use[1]] !== undefined) {
            this.dbSelect.value = use[1];
            this.editor.setSchema(this.tree, use[1]);
          }
          if (/^\s*(create|drop|alter|insert|delete)\b/i.test(o.sql)) changedSchema = true;
        } catch (e) {
          o.ms = performance.now() - t0;
          const err = e instanceof ApiError ? e : new ApiError(0, 'error', String(e));
          o.status = err.code === 'cancelled' ? 'cancelled' : 'failed';
          if (o.status === 'failed') o.error = { code: err.code, message: err.message };
          break;
        }
        if (o.result.type === 'error' || (o.result.type === 'table' && o.result.error)) break;
      }
    } finally {
      this.abort = null;
      this.runButton.disabled = false;
      this.cancelButton.disabled = true;
      this.results.show(outcomes);
    }
    if (changedSchema) void this.refreshSchema();
  }
}
