import { type ColumnKind, chartNumber, inferKinds } from './column-kinds.js';
import { h } from './dom.js';
import { cellText } from './export.js';
import { firstRowAt, isScaled, scrollHeightFor } from './grid-scroll.js';

const ROW = 26;
const OVERSCAN = 8;
/** A cell longer than this (or holding JSON) gets a button that shows its whole value. */
const LONG = 60;

export interface GridOptions {
  /** Number of the first row (1-based numbering starts after it): for a page of a larger result. */
  offset?: number;
  /** Header clicks sort the rows (of this page only, which the header says). */
  sortable?: boolean;
}

/**
 * A virtualised result grid: only the rows in view (plus a few either side) are in the DOM.
 * The scroll height is every row's, up to a height every browser can draw; past that the
 * scroll position maps to a row proportionally (grid-scroll.ts), so the last row of any
 * number of rows can be reached. Cells are text nodes; NULL is drawn as a marked NULL, the
 * empty string as an empty cell; a long or JSON cell has a button that shows all of it.
 */
export function renderGrid(
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  types?: string[],
  opts: GridOptions = {},
) {
  const offset = opts.offset ?? 0;
  const kinds = inferKinds(columns, rows, types);
  const widths = columns.map((c, i) => columnWidth(c, kinds[i]!, rows, i));
  const numWidth = Math.max(40, String(offset + rows.length).length * 8 + 16);
  const template = [`${numWidth}px`, ...widths.map((w) => `${w}px`)].join(' ');
  const total = numWidth + widths.reduce((a, b) => a + b, 0);
  // Row order: the result's, or sorted by a header click (indexes into rows).
  let order: number[] | null = null;
  let sort: { col: number; dir: 1 | -1 } | null = null;
  const sortNote = h('span', { class: 'muted sort-note', role: 'status' });

  const headCell = (c: string, i: number) => {
    const label = [
      h('span', { class: 'col-name' }, c),
      h('span', { class: 'col-type' }, types?.[i] ?? kinds[i]),
    ];
    if (!opts.sortable) {
      return h(
        'span',
        { class: 'cell', role: 'columnheader', title: `${c} (${types?.[i] ?? kinds[i]})` },
        label,
      );
    }
    const dir = sort?.col === i ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none';
    return h(
      'span',
      { class: 'cell', role: 'columnheader', 'aria-sort': dir },
      h(
        'button',
        {
          type: 'button',
          class: 'sort',
          title: `Sort the rows on this page by ${c}`,
          onclick: () => sortBy(i),
        },
        label,
        dir === 'none' ? '' : dir === 'ascending' ? ' ▲' : ' ▼',
      ),
    );
  };
  const head = h('div', { class: 'grid-row grid-head', role: 'row' });
  const drawHead = () =>
    head.replaceChildren(
      h('span', { class: 'cell num', role: 'columnheader' }, '#'),
      ...columns.map((c, i) => headCell(c, i)),
    );
  drawHead();
  const body = h('div', { class: 'grid-rows', role: 'rowgroup' });
  const spacer = h('div', { class: 'grid-spacer' }, body);
  const root = h(
    'div',
    {
      class: 'grid',
      role: 'grid',
      tabindex: 0,
      'aria-rowcount': offset + rows.length + 1,
      'aria-label': 'Result rows',
    },
    head,
    spacer,
  );
  root.style.setProperty('--cols', template);
  root.style.setProperty('--grid-width', `${total}px`);
  spacer.style.height = `${scrollHeightFor(rows.length, ROW)}px`;
  const scaled = isScaled(rows.length, ROW);

  let shown = '';
  const draw = () => {
    const height = root.clientHeight || 600;
    // Rows wholly in view below the header: the last rows must fit when scrolled to the end.
    const fit = Math.max(1, Math.floor((height - head.offsetHeight) / ROW));
    const top = firstRowAt(root.scrollTop, root.scrollHeight - height, rows.length, fit, ROW);
    const first = Math.max(0, top - OVERSCAN);
    const last = Math.min(rows.length, top + Math.ceil(height / ROW) + OVERSCAN);
    const key = `${first}:${last}:${sort?.col}:${sort?.dir}`;
    if (key === shown) return;
    shown = key;
    // Scaled: the drawn rows sit where the view is, row `top` at its top edge.
    body.style.transform = `translateY(${scaled ? root.scrollTop - (top - first) * ROW : first * ROW}px)`;
    const out: HTMLElement[] = [];
    for (let r = first; r < last; r++) {
      const at = order ? order[r]! : r;
      out.push(rowElement(rows[at]!, offset + at, kinds));
    }
    body.replaceChildren(...out);
  };
  const sortBy = (col: number) => {
    const dir: 1 | -1 = sort?.col === col && sort.dir === 1 ? -1 : 1;
    sort = { col, dir };
    const kind = kinds[col]!;
    const keyed = rows.map((row, i) => ({ i, v: row[col] }));
    const numeric = kind === 'number' || kind === 'temporal';
    keyed.sort((a, b) => dir * compare(a.v, b.v, numeric ? kind : null));
    order = keyed.map((k) => k.i);
    sortNote.textContent = `Sorted by ${columns[col]} (${dir === 1 ? 'ascending' : 'descending'}), on the ${rows.length.toLocaleString()} rows loaded here only; row numbers are the result's.`;
    drawHead();
    shown = '';
    draw();
  };
  let pending = false;
  root.addEventListener('scroll', () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      draw();
    });
  });
  new ResizeObserver(() => {
    shown = '';
    draw();
  }).observe(root);
  draw();
  return opts.sortable ? h('div', { class: 'grid-box' }, sortNote, root) : root;
}

/** NULLs last either way; numbers and times by value, the rest as text (locale order). */
function compare(a: unknown, b: unknown, kind: ColumnKind | null): number {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : 1;
  if (b === null || b === undefined) return -1;
  if (kind) {
    const x = chartNumber(a, kind);
    const y = chartNumber(b, kind);
    if (x !== null && y !== null) return x - y;
  }
  return cellText(a).localeCompare(cellText(b), undefined, { numeric: true });
}

function rowElement(row: readonly unknown[], index: number, kinds: readonly ColumnKind[]): HTMLElement {
  const el = h(
    'div',
    { class: 'grid-row', role: 'row', 'aria-rowindex': index + 2 },
    h('span', { class: 'cell num' }, index + 1),
  );
  row.forEach((v, i) => {
    if (v === null || v === undefined) {
      el.appendChild(h('span', { class: 'cell null', role: 'gridcell' }, 'NULL'));
      return;
    }
    const text = cellText(v);
    const cls = text === '' ? 'cell empty' : kinds[i] === 'number' ? 'cell right' : 'cell';
    const long = text.length > LONG || typeof v === 'object' || kinds[i] === 'json';
    el.appendChild(
      h(
        'span',
        { class: long ? `${cls} long` : cls, role: 'gridcell' },
        long
          ? h(
              'button',
              {
                type: 'button',
                class: 'cell-open',
                'aria-label': `Show the whole value (${text.length} characters)`,
                title: 'Show the whole value',
                onclick: () => showValue(v),
              },
              '⤢',
            )
          : null,
        text.length > 2000 ? `${text.slice(0, 2000)}…` : text,
      ),
    );
  });
  return el;
}

/** The whole value of a cell in a dialog: JSON (also JSON held as text) indented. */
function showValue(v: unknown): void {
  let text = cellText(v);
  let json = typeof v === 'object';
  if (!json && /^\s*[[{]/.test(text)) {
    try {
      v = JSON.parse(text);
      json = true;
    } catch {
      // plain text
    }
  }
  if (json) text = JSON.stringify(v, null, 2);
  const close = h('button', { type: 'button', onclick: () => dialog.close() }, 'Close');
  const copy = h(
    'button',
    {
      type: 'button',
      onclick: () =>
        void navigator.clipboard?.writeText(text).then(
          () => {
            copy.textContent = 'Copied';
          },
          () => {
            copy.textContent = 'Copy failed';
          },
        ),
    },
    'Copy',
  );
  const dialog = h(
    'dialog',
    { class: 'cell-viewer', 'aria-label': 'Cell value' },
    h(
      'div',
      { class: 'cell-viewer-bar' },
      h('strong', {}, json ? 'JSON value' : `Text (${text.length} characters)`),
      copy,
      close,
    ),
    h('pre', { class: 'cell-viewer-text', tabindex: 0 }, text),
  );
  dialog.addEventListener('close', () => dialog.remove());
  document.body.appendChild(dialog);
  dialog.showModal();
  close.focus();
}

function columnWidth(
  name: string,
  kind: ColumnKind,
  rows: readonly (readonly unknown[])[],
  i: number,
): number {
  let chars = Math.max(name.length + 2, kind.length + 2);
  const n = Math.min(rows.length, 200);
  for (let r = 0; r < n; r++) chars = Math.max(chars, Math.min(48, cellText(rows[r]![i]).length));
  return Math.min(420, Math.max(64, chars * 8 + 20));
}
