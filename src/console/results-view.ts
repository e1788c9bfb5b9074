import type { Result } from './api.js';
import { renderChart } from './chart.js';
import { clear, download, errorBox, h, tabIndexFor, tabKeys } from './dom.js';
import { type Delimited, toDelimited } from './export.js';
import { renderGrid } from './grid.js';
import { renderPlan } from './plan-view.js';

/** One statement's outcome, as the results pane shows it. */
export interface Outcome {
  sql: string;
  result: Result | null;
  /** Set while it runs, or when it was cancelled / failed to reach the server. */
  status: 'running' | 'done' | 'cancelled' | 'failed' | 'skipped';
  error?: { code: string; message: string };
  ms?: number;
  explain: boolean;
}

type View = 'grid' | 'chart' | 'plan';

/** Paging of a result larger than a page: each re-runs the statement (POST /api/sql/query has no handles). */
export interface Pager {
  pageRows: number;
  page(o: Outcome, from: number): void;
  downloadAll(o: Outcome): void;
}

/** The results pane: one tab per statement run, each with a grid, chart or plan view. */
export class ResultsView {
  readonly el = h('div', { class: 'results', 'aria-live': 'polite' });
  private outcomes: Outcome[] = [];
  private current = 0;
  private view: View = 'grid';

  constructor(private pager?: Pager) {}

  show(outcomes: Outcome[]): void {
    this.outcomes = outcomes;
    const bad = outcomes.findIndex((o) => o.status === 'failed' || o.result?.type === 'error');
    this.current = bad >= 0 ? bad : outcomes.length - 1;
    this.view = outcomes[this.current]?.explain ? 'plan' : 'grid';
    this.render();
  }

  update(): void {
    this.render();
  }

  private select(i: number): void {
    this.current = i;
    this.view = this.outcomes[i]?.explain ? 'plan' : 'grid';
    this.render();
  }

  private render(): void {
    if (this.outcomes.length === 0) {
      clear(this.el, h('p', { class: 'muted' }, 'Run a statement with Ctrl+Enter (⌘+Enter on a Mac).'));
      return;
    }
    const tabs =
      this.outcomes.length > 1
        ? tabKeys(
            h(
              'div',
              { class: 'tabs small', role: 'tablist', 'aria-label': 'Statements' },
              this.outcomes.map((o, i) =>
                h(
                  'button',
                  {
                    type: 'button',
                    role: 'tab',
                    'aria-selected': i === this.current ? 'true' : 'false',
                    tabindex: tabIndexFor(i === this.current),
                    class: `tab ${o.status === 'failed' || o.result?.type === 'error' ? 'bad' : ''}`,
                    title: o.sql,
                    onclick: () => this.select(i),
                  },
                  `${i + 1}. ${o.sql.slice(0, 24)}`,
                ),
              ),
            ),
          )
        : null;
    clear(this.el, tabs, this.body(this.outcomes[this.current]));
  }

  private body(o: Outcome): HTMLElement {
    const took =
      o.ms === undefined
        ? ''
        : ` in ${o.ms < 1000 ? `${Math.round(o.ms)} ms` : `${(o.ms / 1000).toFixed(2)} s`}`;
    if (o.status === 'running') return h('p', { class: 'muted running' }, 'Running…');
    if (o.status === 'skipped') return h('p', { class: 'muted' }, 'Not run: an earlier statement failed.');
    if (o.status === 'cancelled') return h('p', { class: 'muted' }, `Cancelled${took}.`);
    if (o.error) return errorBox(o.error.code, o.error.message);
    const r = o.result;
    if (!r) return h('p', { class: 'muted' }, 'No result.');
    if (r.type === 'error') return errorBox(r.error_code, r.error_message);
    if (r.type === 'ok') {
      const n = typeof r.affected_rows === 'number' ? `${r.affected_rows} row(s) affected` : 'OK';
      return h('p', { class: 'ok-result' }, `${n}${took}.`);
    }
    const cols = r.column_names;
    const data = r.data;
    const copy = (kind: Delimited) => async () => {
      const text = toDelimited(cols, data, kind);
      try {
        await navigator.clipboard.writeText(text);
        status.textContent = `Copied ${data.length} rows as ${kind.toUpperCase()}.`;
      } catch {
        download(`result.${kind}`, text, kind === 'csv' ? 'text/csv' : 'text/tab-separated-values');
        status.textContent = 'The clipboard is not available here: downloaded instead.';
      }
    };
    const status = h('span', { class: 'muted', role: 'status' });
    const viewButton = (v: View, label: string) =>
      h(
        'button',
        {
          type: 'button',
          class: `tab ${this.view === v ? 'active' : ''}`,
          'aria-pressed': this.view === v ? 'true' : 'false',
          onclick: () => {
            this.view = v;
            this.render();
          },
        },
        label,
      );
    const total = r.total ?? data.length;
    const offset = r.offset ?? 0;
    const paged = total > data.length;
    const pager = this.pager;
    const pageButton = (label: string, from: number, disabled: boolean) =>
      h(
        'button',
        {
          type: 'button',
          disabled,
          title: 'Runs the statement again and keeps these rows',
          onclick: () => pager?.page(o, from),
        },
        label,
      );
    const size = pager?.pageRows ?? data.length;
    const lastFrom = Math.max(0, Math.floor((total - 1) / size) * size);
    const paging =
      paged && pager
        ? h(
            'div',
            { class: 'result-bar paging' },
            h(
              'span',
              { class: 'count' },
              `Rows ${(offset + 1).toLocaleString()}–${(offset + data.length).toLocaleString()} of ${total.toLocaleString()}: `,
              h('strong', {}, `${(total - data.length).toLocaleString()} more rows`),
              ` not on this page (a page holds ${size.toLocaleString()}).`,
            ),
            pageButton('« First', 0, offset === 0),
            pageButton('◀ Previous', Math.max(0, offset - size), offset === 0),
            pageButton('Next ▶', offset + size, offset + data.length >= total),
            pageButton('Last »', lastFrom, offset >= lastFrom),
            h(
              'button',
              {
                type: 'button',
                title: 'Runs the statement again and saves every row as CSV',
                onclick: () => pager.downloadAll(o),
              },
              'Download all rows (CSV)',
            ),
          )
        : null;
    const bar = h(
      'div',
      { class: 'result-bar' },
      h('span', { class: 'count' }, `${total.toLocaleString()} row${total === 1 ? '' : 's'}${took}`),
      viewButton('grid', 'Grid'),
      viewButton('chart', 'Chart'),
      o.explain ? viewButton('plan', 'Plan') : null,
      h('span', { class: 'spacer' }),
      h('button', { type: 'button', onclick: copy('csv') }, paged ? 'Copy page CSV' : 'Copy CSV'),
      h('button', { type: 'button', onclick: copy('tsv') }, paged ? 'Copy page TSV' : 'Copy TSV'),
      h(
        'button',
        { type: 'button', onclick: () => download('result.csv', toDelimited(cols, data, 'csv'), 'text/csv') },
        paged ? 'Download page CSV' : 'Download CSV',
      ),
      status,
    );
    const content =
      this.view === 'chart'
        ? renderChart(cols, data, r.column_types)
        : this.view === 'plan'
          ? renderPlan(cols, data)
          : renderGrid(cols, data, r.column_types, { offset, sortable: true });
    return h(
      'div',
      { class: 'result' },
      bar,
      paging,
      r.error
        ? errorBox(r.error.error_code, `${r.error.error_message} (the rows above arrived before it)`)
        : null,
      content,
    );
  }
}
