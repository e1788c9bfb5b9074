import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { type ChartChoice, type ColumnKind, chartNumber, chooseChart, inferKinds } from './column-kinds.js';
import { h } from './dom.js';
import { cellText } from './export.js';

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];
/** uPlot draws every point; past this many rows a chart says it shows the first ones. */
const MAX_POINTS = 5000;

/** A chart of the result (uPlot, bundled): the type follows the column kinds (column-kinds.ts). */
export function renderChart(
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  types?: string[],
): HTMLElement {
  const kinds = inferKinds(columns, rows, types);
  const choice = chooseChart(kinds);
  if ('reason' in choice) return h('p', { class: 'muted' }, `No chart for this result. ${choice.reason}`);
  const shown = rows.slice(0, MAX_POINTS);
  const box = h('div', { class: 'chart', role: 'img', 'aria-label': describe(choice, columns) });
  const caption = h(
    'p',
    { class: 'muted' },
    describe(choice, columns),
    rows.length > MAX_POINTS ? ` (first ${MAX_POINTS} of ${rows.length} rows)` : '',
  );
  const wrap = h('div', { class: 'chart-wrap' }, caption, box);
  // Drawn once the box is in the page, at the width it gets there.
  requestAnimationFrame(() => draw(box, choice, columns, shown, kinds));
  return wrap;
}

function describe(c: ChartChoice, columns: readonly string[]): string {
  const ys = c.ys.map((i) => columns[i]).join(', ');
  const x = c.x >= 0 ? columns[c.x] : 'row';
  return `${c.type === 'line' ? 'Line' : c.type === 'bar' ? 'Bar' : 'Scatter'} chart of ${ys} by ${x}`;
}

function draw(
  box: HTMLElement,
  c: ChartChoice,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  kinds: readonly ColumnKind[],
) {
  const width = Math.max(320, box.clientWidth || 800);
  const height = 320;
  let ordered = [...rows];
  if (c.type !== 'bar') {
    ordered = ordered.filter((r) => chartNumber(r[c.x], kinds[c.x]) !== null);
    ordered.sort((a, b) => (chartNumber(a[c.x], kinds[c.x]) ?? 0) - (chartNumber(b[c.x], kinds[c.x]) ?? 0));
  }
  const xs =
    c.type === 'bar' ? ordered.map((_, i) => i) : ordered.map((r) => chartNumber(r[c.x], kinds[c.x]) ?? 0);
  const labels = c.type === 'bar' ? ordered.map((r) => (c.x >= 0 ? cellText(r[c.x]) : '')) : [];
  const data: uPlot.AlignedData = [xs, ...c.ys.map((i) => ordered.map((r) => chartNumber(r[i], kinds[i])))];
  const bars = uPlot.paths.bars?.({ size: [0.6, 64] });
  const series: uPlot.Series[] = [
    { label: c.x >= 0 ? columns[c.x] : 'row' },
    ...c.ys.map((i, n) => ({
      label: columns[i],
      stroke: COLORS[n % COLORS.length],
      fill: c.type === 'bar' ? `${COLORS[n % COLORS.length]}99` : undefined,
      width: c.type === 'scatter' ? 0 : 2,
      paths: c.type === 'bar' ? bars : c.type === 'scatter' ? () => null : undefined,
      points: { show: c.type === 'scatter' || ordered.length < 60, size: 6 },
    })),
  ];
  const opts: uPlot.Options = {
    width,
    height,
    series,
    scales: {
      x:
        c.type === 'bar'
          ? { time: false, range: () => [-0.5, Math.max(0.5, xs.length - 0.5)] }
          : { time: c.type === 'line' && kinds[c.x] === 'temporal' },
    },
    axes: [
      c.type === 'bar'
        ? {
            // One tick per bar (every k-th when there are many), labelled with its row's text.
            splits: () => xs.filter((i) => i % Math.max(1, Math.ceil(xs.length / 30)) === 0),
            values: (_u, splits) => splits.map((s) => labels[s]?.slice(0, 16) ?? ''),
          }
        : {},
      {},
    ],
    legend: { show: true },
  };
  box.replaceChildren();
  new uPlot(opts, data, box);
}
