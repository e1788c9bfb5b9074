import { type ColumnKind, inferKinds } from './column-kinds.js';
import { h } from './dom.js';
import { cellText } from './export.js';

const ROW = 26;
const OVERSCAN = 8;

/**
 * A virtualised result grid: the scroll height is that of every row, but only the rows in
 * view (plus a few either side) are in the DOM, so 100,000 rows scroll as smoothly as 100.
 * Cells are text nodes; NULL is drawn as a marked NULL, the empty string as an empty cell.
 */
export function renderGrid(
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  types?: string[],
) {
  const kinds = inferKinds(columns, rows, types);
  const widths = columns.map((c, i) => columnWidth(c, kinds[i], rows, i));
  const numWidth = Math.max(40, String(rows.length).length * 8 + 16);
  const template = [`${numWidth}px`, ...widths.map((w) => `${w}px`)].join(' ');
  const total = numWidth + widths.reduce((a, b) => a + b, 0);

  const head = h(
    'div',
    { class: 'grid-row grid-head', role: 'row' },
    h('span', { class: 'cell num', role: 'columnheader' }, '#'),
    columns.map((c, i) =>
      h(
        'span',
        { class: 'cell', role: 'columnheader', title: `${c} (${types?.[i] ?? kinds[i]})` },
        h('span', { class: 'col-name' }, c),
        h('span', { class: 'col-type' }, types?.[i] ?? kinds[i]),
      ),
    ),
  );
  const body = h('div', { class: 'grid-rows', role: 'rowgroup' });
  const spacer = h('div', { class: 'grid-spacer' }, body);
  const root = h(
    'div',
    {
      class: 'grid',
      role: 'grid',
      tabindex: 0,
      'aria-rowcount': rows.length + 1,
      'aria-label': 'Result rows',
    },
    head,
    spacer,
  );
  root.style.setProperty('--cols', template);
  root.style.setProperty('--grid-width', `${total}px`);
  spacer.style.height = `${rows.length * ROW}px`;

  let shown = '';
  const draw = () => {
    const first = Math.max(0, Math.floor(root.scrollTop / ROW) - OVERSCAN);
    const count = Math.ceil((root.clientHeight || 600) / ROW) + OVERSCAN * 2;
    const last = Math.min(rows.length, first + count);
    const key = `${first}:${last}`;
    if (key === shown) return;
    shown = key;
    body.style.transform = `translateY(${first * ROW}px)`;
    const out: HTMLElement[] = [];
    for (let r = first; r < last; r++) out.push(rowElement(rows[r], r, kinds));
    body.replaceChildren(...out);
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
  return root;
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
    el.appendChild(
      h('span', { class: cls, role: 'gridcell', title: text.length > 40 ? text.slice(0, 2000) : null }, text),
    );
  });
  return el;
}

function columnWidth(
  name: string,
  kind: ColumnKind,
  rows: readonly (readonly unknown[])[],
  i: number,
): number {
  let chars = Math.max(name.length, kind.length + 2);
  const n = Math.min(rows.length, 200);
  for (let r = 0; r < n; r++) chars = Math.max(chars, Math.min(48, cellText(rows[r][i]).length));
  return Math.min(420, Math.max(64, chars * 8 + 20));
}
