import { ApiError, sqlWindow } from './api.js';
import type { SchemaTree } from './completion.js';
import { clear, describeError, h, tabIndexFor, tabKeys } from './dom.js';
import { createEditor, type Editor } from './editor.js';
import { type EditorTab, loadTabs, newTabId, saveTabs, type TabsState, tabTitle } from './editor-tabs.js';
import { errorSpan } from './error-position.js';
import { csvLines, toDelimited } from './export.js';
import { type Outcome, ResultsView } from './results-view.js';
import { loadSchema } from './schema.js';
import { maskSecrets } from './secrets.js';
import { quoteIdent } from './sql-text.js';
import { isExplain, type Statement } from './statements.js';

const HISTORY_KEY = 'tributary.history';
const HISTORY_MAX = 50;
/**
 * Rows a result page keeps in the browser. The rest of a larger result is counted as it
 * streams past (row-stream.ts), not kept: pages and a CSV of every row run it again.
 */
export const PAGE_ROWS = 100_000;

/**
 * SQL text only (never a token), with secret values masked (secrets.ts), in sessionStorage:
 * it survives a reload, not the tab, and Log out clears it.
 */
function readHistory(): string[] {
  try {
    const v = JSON.parse(sessionStorage.getItem(HISTORY_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function clearHistory(): void {
  try {
    sessionStorage.removeItem(HISTORY_KEY);
  } catch {
    // storage off
  }
}

function local(): Storage | null {
  try {
    return localStorage;
  } catch {
    return null;
  }
}

/** The query tab: schema list, editor tabs, run/cancel, history, results. */
export class QueryView {
  readonly el: HTMLElement;
  private editor: Editor;
  private results = new ResultsView({
    pageRows: PAGE_ROWS,
    page: (o, from) => void this.page(o, from),
    downloadAll: (o) => void this.downloadAll(o),
  });
  private abort: AbortController | null = null;
  private runButton: HTMLButtonElement;
  private cancelButton: HTMLButtonElement;
  private elapsed = h('span', { class: 'muted elapsed', role: 'status' });
  private dbSelect: HTMLSelectElement;
  private historySelect: HTMLSelectElement;
  private tabList = tabKeys(
    h('div', { class: 'tabs small editor-tabs', role: 'tablist', 'aria-label': 'Editor tabs' }),
  );
  private schemaList = h('nav', { class: 'schema', 'aria-label': 'Sources and tables' });
  private history = readHistory();
  private tree: SchemaTree = {};
  private tabs: TabsState;
  private saveTimer: ReturnType<typeof setTimeout> | null = null;

  constructor() {
    this.runButton = h(
      'button',
      {
        type: 'button',
        class: 'primary',
        onclick: () => this.run(true),
        title: 'Runs the selection, or every statement (Ctrl+Shift+Enter)',
      },
      'Run ▶',
    );
    this.cancelButton = h(
      'button',
      { type: 'button', disabled: true, onclick: () => this.cancel(), title: 'Esc' },
      'Cancel',
    );
    this.dbSelect = h('select', {
      'aria-label': 'Default source',
      title: 'Default source for unqualified tables',
      onchange: () => this.editor.setSchema(this.tree, this.dbSelect.value || undefined),
    });
    this.historySelect = h('select', {
      'aria-label': 'History',
      onchange: () => {
        const i = Number(this.historySelect.value);
        if (Number.isInteger(i) && this.history[i] !== undefined) this.openTab(this.history[i]);
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
          this.elapsed,
          h(
            'span',
            { class: 'muted hint' },
            'Ctrl/⌘+Enter runs the statement at the cursor (or the selection); Esc cancels',
          ),
        ),
        this.tabList,
        editorBox,
        this.results.el,
      ),
    );
    this.tabs = loadTabs(local(), this.history[0] ?? 'SHOW DATABASES;');
    const first = this.activeTab();
    this.editor = createEditor(editorBox, first.text, {
      runCurrent: () => void this.run(false),
      runAll: () => void this.run(true),
      cancel: () => {
        if (!this.abort) return false;
        this.cancel();
        return true;
      },
      changed: () => this.scheduleSave(),
    });
    this.editor.load(first.text, first.cursor);
    // Esc cancels a running statement wherever the focus is.
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.abort && this.el.isConnected) this.cancel();
    });
    this.renderTabs();
    this.renderHistory();
    this.results.show([]);
  }

  focus(): void {
    this.editor.view.focus();
  }

  private activeTab(): EditorTab {
    return this.tabs.tabs.find((t) => t.id === this.tabs.active) ?? this.tabs.tabs[0]!;
  }

  /** Keeps the editor's text in its tab and the tabs in localStorage (soon after typing stops). */
  private scheduleSave(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => this.saveNow(), 250);
  }

  private saveNow(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    const tab = this.activeTab();
    const before = tab.text;
    tab.text = this.editor.text();
    tab.cursor = this.editor.cursor();
    saveTabs(local(), this.tabs);
    if (tabTitle(before, 0) !== tabTitle(tab.text, 0)) this.renderTabs();
  }

  private switchTo(id: string): void {
    if (id === this.tabs.active) return;
    this.saveNow();
    this.tabs.active = id;
    const tab = this.activeTab();
    this.editor.load(tab.text, tab.cursor);
    saveTabs(local(), this.tabs);
    this.renderTabs();
  }

  /** A new editor tab holding `text` (work in the other tabs stays as it is). */
  openTab(text: string): void {
    this.saveNow();
    const tab = { id: newTabId(), text, cursor: text.length };
    this.tabs.tabs.push(tab);
    this.tabs.active = tab.id;
    this.editor.load(text, text.length);
    saveTabs(local(), this.tabs);
    this.renderTabs();
    this.focus();
  }

  private closeTab(id: string): void {
    this.saveNow();
    const i = this.tabs.tabs.findIndex((t) => t.id === id);
    if (i < 0) return;
    this.tabs.tabs.splice(i, 1);
    if (this.tabs.tabs.length === 0) this.tabs.tabs.push({ id: newTabId(), text: '', cursor: 0 });
    if (this.tabs.active === id) {
      const next = this.tabs.tabs[Math.max(0, i - 1)]!;
      this.tabs.active = next.id;
      this.editor.load(next.text, next.cursor);
    }
    saveTabs(local(), this.tabs);
    this.renderTabs();
  }

  private renderTabs(): void {
    clear(
      this.tabList,
      this.tabs.tabs.map((t, n) => {
        const selected = t.id === this.tabs.active;
        return h(
          'span',
          { class: 'editor-tab' },
          h(
            'button',
            {
              type: 'button',
              role: 'tab',
              class: 'tab',
              'aria-selected': String(selected),
              tabindex: tabIndexFor(selected),
              title: t.text.slice(0, 200),
              onclick: () => this.switchTo(t.id),
            },
            tabTitle(t.text, n + 1),
          ),
          this.tabs.tabs.length > 1
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'link close',
                  'aria-label': `Close tab ${n + 1}`,
                  onclick: () => this.closeTab(t.id),
                },
                '×',
              )
            : null,
        );
      }),
      h(
        'button',
        { type: 'button', class: 'link', 'aria-label': 'New editor tab', onclick: () => this.openTab('') },
        '+',
      ),
    );
  }

  /** Puts a statement in a new editor tab (from another view) and runs it. */
  runText(text: string): void {
    this.openTab(text);
    void this.run(true);
  }

  /** Inserts text at the editor's cursor, without running it. */
  insertText(text: string): void {
    this.editor.insert(text);
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
                    title: `${cols.join(', ')} — opens SELECT * in a new tab`,
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
    const kept = maskSecrets(text);
    this.history = [kept, ...this.history.filter((q) => q !== kept)].slice(0, HISTORY_MAX);
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

  /** Marks the page busy (Run off, Cancel on, elapsed time) while `work` runs. */
  private async busy(work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    if (this.abort) return;
    const abort = new AbortController();
    this.abort = abort;
    this.runButton.disabled = true;
    this.cancelButton.disabled = false;
    const started = performance.now();
    const tick = setInterval(() => {
      this.elapsed.textContent = `Running ${((performance.now() - started) / 1000).toFixed(1)} s — Esc cancels`;
    }, 100);
    try {
      await work(abort.signal);
    } finally {
      clearInterval(tick);
      this.elapsed.textContent = '';
      this.abort = null;
      this.runButton.disabled = false;
      this.cancelButton.disabled = true;
    }
  }

  /** Another page of a result: the statement runs again and the rows from `from` are kept. */
  private async page(o: Outcome, from: number): Promise<void> {
    const before = o.result;
    await this.busy(async (signal) => {
      o.status = 'running';
      this.results.update();
      const t0 = performance.now();
      try {
        o.result = await sqlWindow(
          o.sql,
          { from, count: PAGE_ROWS },
          signal,
          this.dbSelect.value || undefined,
        );
        o.status = 'done';
      } catch (e) {
        const err = e instanceof ApiError ? e : new ApiError(0, 'error', String(e));
        o.result = before;
        o.status = err.code === 'cancelled' ? 'done' : 'failed';
        if (o.status === 'failed') o.error = { code: err.code, message: err.message };
      }
      o.ms = performance.now() - t0;
      this.results.update();
    });
  }

  /** Every row as CSV, written as the answer streams (the page never holds them all). */
  private async downloadAll(o: Outcome): Promise<void> {
    await this.busy(async (signal) => {
      const parts: BlobPart[] = [];
      let pending: string[] = [];
      let pendingLength = 0;
      const settle = () => {
        // Whole megabytes go into Blobs, which the browser may keep outside the page's heap.
        if (pending.length) parts.push(new Blob(pending));
        pending = [];
        pendingLength = 0;
      };
      try {
        const r = await sqlWindow(
          o.sql,
          {
            from: 0,
            count: 0,
            keep: false,
            onRows: (rows) => {
              const text = csvLines(rows);
              pending.push(text);
              pendingLength += text.length;
              if (pendingLength > 4_000_000) settle();
            },
          },
          signal,
          this.dbSelect.value || undefined,
        );
        if (r.type !== 'table') return;
        settle();
        const blob = new Blob([toDelimited(r.column_names, [], 'csv'), ...parts], { type: 'text/csv' });
        const url = URL.createObjectURL(blob);
        const a = h('a', { href: url, download: 'result.csv' });
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60_000);
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 'cancelled')) {
          o.error = { code: (e as ApiError).code ?? 'error', message: (e as Error).message };
          this.results.update();
        }
      }
    });
  }

  /**
   * Runs the selection, or the statement at the cursor (`all` false) or every statement, in
   * turn; stops at the first error, cancel or failure, and marks an error's place in the text.
   */
  async run(all: boolean): Promise<void> {
    if (this.abort) return;
    this.saveNow();
    const statements: Statement[] = this.editor.runnable(all);
    if (statements.length === 0) return;
    this.editor.markError(null);
    this.remember(statements.map((s) => s.text).join(';\n'));
    const outcomes: Outcome[] = statements.map((s) => ({
      sql: s.text,
      result: null,
      status: 'skipped',
      explain: isExplain(s.text),
    }));
    let changedSchema = false;
    await this.busy(async (signal) => {
      for (const [n, o] of outcomes.entries()) {
        o.status = 'running';
        this.results.show(outcomes);
        const t0 = performance.now();
        try {
          const use = /^\s*use\s+`?([^`;\s]+)`?\s*$/i.exec(o.sql);
          o.result = await sqlWindow(
            o.sql,
            { from: 0, count: PAGE_ROWS },
            signal,
            this.dbSelect.value || undefined,
          );
          o.ms = performance.now() - t0;
          o.status = 'done';
          if (use && o.result.type === 'ok' && this.tree[use[1]!] !== undefined) {
            this.dbSelect.value = use[1]!;
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
        const failed =
          o.result.type === 'error' ? o.result : o.result.type === 'table' ? o.result.error : undefined;
        if (failed) {
          const span = errorSpan(o.sql, failed.error_message);
          const at = statements[n]!;
          if (span)
            this.editor.markError({
              from: at.from + span.from,
              to: at.from + span.to,
              message: failed.error_message,
            });
          break;
        }
      }
    });
    this.results.show(outcomes);
    // The keyboard stays where the user types.
    this.focus();
    if (changedSchema) void this.refreshSchema();
  }
}
