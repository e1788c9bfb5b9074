import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { axisSize, groupSlot, rightAxisSeries, tickLabels, zeroBasedRange } from './chart-axes.js';
import {
  CHART_TYPES,
  type ChartChoice,
  type ChartType,
  type ColumnKind,
  chartNumber,
  chooseChart,
  inferKinds,
} from './column-kinds.js';
import { clear, h } from './dom.js';
import { cellText } from './export.js';

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];
/** uPlot draws every point; past this many rows a chart says it shows the first ones. */
const MAX_POINTS = 5000;
const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif';
const TICK = 6;
const GAP = 5;
const TYPE_NAMES: Record<ChartType, string> = { bar: 'Bar', line: 'Line', area: 'Area', scatter: 'Scatter' };

type Rows = readonly (readonly unknown[])[];

/**
 * A chart of the result (uPlot, bundled). The type and the x and y columns start from the
 * column kinds (column-kinds.ts) and the user can change them; bars and areas start at zero,
 * several series sit side by side, the y axis is as wide as its widest label, and the chart
 * can be saved as PNG. The tick labels are also written out as text (for screen readers).
 */
export function renderChart(columns: readonly string[], rows: Rows, types?: string[]): HTMLElement {
  const kinds = inferKinds(columns, rows, types);
  const first = chooseChart(kinds);
  if ('reason' in first) return h('p', { class: 'muted' }, `No chart for this result. ${first.reason}`);
  const choice: ChartChoice = { ...first, ys: [...first.ys] };
  const numeric = kinds.flatMap((k, i) => (k === 'number' ? [i] : []));
  const shown = rows.slice(0, MAX_POINTS);

  const box = h('div', { class: 'chart', role: 'img' });
  const caption = h('p', { class: 'muted chart-caption' });
  const axesText = h('div', { class: 'visually-hidden chart-axes' });
  const typeSelect = h(
    'select',
    { id: 'chart-type', onchange: () => update({ type: typeSelect.value as ChartType }) },
    CHART_TYPES.map((t) => h('option', { value: t, selected: t === choice.type }, TYPE_NAMES[t])),
  );
  const xSelect = h(
    'select',
    { id: 'chart-x', onchange: () => update({ x: Number(xSelect.value) }) },
    h('option', { value: -1, selected: choice.x === -1 }, '(row number)'),
    columns.map((c, i) => h('option', { value: i, selected: i === choice.x }, `${c} (${kinds[i]})`)),
  );
  const yBoxes = numeric.map((i) =>
    h('input', {
      type: 'checkbox',
      id: `chart-y-${i}`,
      value: i,
      checked: choice.ys.includes(i),
      onchange: () => update({ ys: yBoxes.filter((b) => b.checked).map((b) => Number(b.value)) }),
    }),
  );
  const png = h('button', { type: 'button', onclick: () => savePng() }, 'Save PNG');
  const controls = h(
    'div',
    { class: 'chart-controls' },
    h('label', { for: 'chart-type' }, 'Type '),
    typeSelect,
    h('label', { for: 'chart-x' }, 'X '),
    xSelect,
    h(
      'fieldset',
      { class: 'chart-ys' },
      h('legend', {}, 'Y'),
      yBoxes.map((b, n) => h('label', {}, b, ` ${columns[numeric[n]!]}`)),
    ),
    png,
  );
  const wrap = h('div', { class: 'chart-wrap' }, controls, caption, box, axesText);

  let plot: uPlot | null = null;
  const redraw = () => {
    const text = describe(choice, columns);
    caption.textContent =
      choice.ys.length === 0
        ? 'Pick at least one Y column.'
        : `${text}${rows.length > MAX_POINTS ? ` (first ${MAX_POINTS} of ${rows.length} rows)` : ''}`;
    box.setAttribute('aria-label', text);
    plot?.destroy();
    plot = null;
    box.replaceChildren();
    axesText.replaceChildren();
    if (choice.ys.length === 0) return;
    plot = draw(box, axesText, choice, columns, shown, kinds);
  };
  const update = (change: Partial<ChartChoice>) => {
    Object.assign(choice, change);
    redraw();
  };
  const savePng = () => {
    if (!plot) return;
    chartPng(plot, caption.textContent ?? '').toBlob((blob) => {
      if (!blob) return;
      const url = URL.createObjectURL(blob);
      const a = h('a', { href: url, download: 'chart.png' });
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    }, 'image/png');
  };
  // Drawn once the box is in the page, at the width it gets there.
  requestAnimationFrame(redraw);
  return wrap;
}

function describe(c: ChartChoice, columns: readonly string[]): string {
  const ys = c.ys.map((i) => columns[i]).join(', ');
  const x = c.x >= 0 ? columns[c.x] : 'row';
  return `${TYPE_NAMES[c.type]} chart of ${ys} by ${x}`;
}

/** Bars, and an x column that is neither a number nor a time, are drawn one slot per row. */
function categorical(c: ChartChoice, kinds: readonly ColumnKind[]): boolean {
  return c.type === 'bar' || c.x < 0 || (kinds[c.x] !== 'number' && kinds[c.x] !== 'temporal');
}

let measurer: CanvasRenderingContext2D | null = null;
function measure(text: string): number {
  measurer ??= document.createElement('canvas').getContext('2d');
  if (!measurer) return text.length * 8;
  measurer.font = FONT;
  return measurer.measureText(text).width;
}

function draw(
  box: HTMLElement,
  axesText: HTMLElement,
  c: ChartChoice,
  columns: readonly string[],
  rows: Rows,
  kinds: readonly ColumnKind[],
): uPlot {
  const width = Math.max(300, box.clientWidth || 800);
  const height = 320;
  const byRow = categorical(c, kinds);
  let ordered = [...rows];
  if (!byRow) {
    ordered = ordered.filter((r) => chartNumber(r[c.x], kinds[c.x]!) !== null);
    ordered.sort((a, b) => (chartNumber(a[c.x], kinds[c.x]!) ?? 0) - (chartNumber(b[c.x], kinds[c.x]!) ?? 0));
  }
  const xs = byRow ? ordered.map((_, i) => i) : ordered.map((r) => chartNumber(r[c.x], kinds[c.x]!) ?? 0);
  const labels = byRow ? ordered.map((r, i) => (c.x >= 0 ? cellText(r[c.x]) : String(i + 1))) : [];
  const data: uPlot.AlignedData = [xs, ...c.ys.map((i) => ordered.map((r) => chartNumber(r[i], kinds[i]!)))];
  const zeroBased = c.type === 'bar' || c.type === 'area';
  const right = rightAxisSeries(data.slice(1) as (number | null)[][]);
  const series: uPlot.Series[] = [
    { label: c.x >= 0 ? columns[c.x] : 'row' },
    ...c.ys.map((i, n) => {
      const color = COLORS[n % COLORS.length]!;
      const slot = groupSlot(n, c.ys.length);
      return {
        label: right.has(n) ? `${columns[i]} (right axis)` : columns[i],
        scale: right.has(n) ? 'y2' : 'y',
        stroke: color,
        fill: c.type === 'bar' ? `${color}cc` : c.type === 'area' ? `${color}33` : undefined,
        width: c.type === 'scatter' ? 0 : c.type === 'bar' ? 1 : 2,
        paths:
          c.type === 'bar'
            ? uPlot.paths.bars?.({
                disp: {
                  x0: { unit: 1, values: () => xs.map((x) => x + slot.offset) },
                  size: { unit: 1, values: () => [slot.width] },
                },
              })
            : c.type === 'scatter'
              ? () => null
              : undefined,
        points: { show: c.type === 'scatter' || (c.type !== 'bar' && ordered.length < 60), size: 6 },
      } satisfies uPlot.Series;
    }),
  ];
  const tickRecord: Record<'y' | 'y2', string[]> = { y: [], y2: [] };
  let yAxisPx = 0;
  const valueAxis = (scale: 'y' | 'y2'): uPlot.Axis => ({
    scale,
    side: scale === 'y' ? 3 : 1,
    font: FONT,
    gap: GAP,
    ticks: { size: TICK },
    grid: { show: scale === 'y' },
    values: (_u, splits) => {
      const out = tickLabels(splits);
      tickRecord[scale] = out;
      return out;
    },
    size: (_u, values) => {
      const px = axisSize(values ?? [], measure, TICK, GAP);
      if (scale === 'y') yAxisPx = px;
      return px;
    },
  });
  const valueScale = zeroBased
    ? { range: (_u: uPlot, min: number, max: number) => zeroBasedRange(min, max) }
    : {};
  const temporalX = !byRow && kinds[c.x] === 'temporal';
  const dateOnly =
    temporalX && ordered.every((r) => /^\d{4}-\d{2}-\d{2}(T00:00:00(\.0+)?Z?)?$/.test(String(r[c.x])));
  const opts: uPlot.Options = {
    width,
    height,
    series,
    // Room right of the plot for the last x label, which is centred on its tick.
    padding: [12, byRow || right.size ? 8 : 40, 0, 0],
    // Dates are read as UTC midnights (column-kinds.ts); show them so, in any time zone.
    ...(dateOnly ? { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') } : {}),
    scales: {
      x: byRow ? { time: false, range: () => [-0.5, Math.max(0.5, xs.length - 0.5)] } : { time: temporalX },
      y: valueScale,
      ...(right.size ? { y2: valueScale } : {}),
    },
    axes: [
      byRow
        ? {
            font: FONT,
            // One tick per slot (every k-th when there are many), labelled with its row's text.
            splits: () => xs.filter((i) => i % Math.max(1, Math.ceil(xs.length / 24)) === 0),
            values: (_u, splits) => splits.map((s) => labels[s]?.slice(0, 16) ?? ''),
          }
        : dateOnly
          ? {
              font: FONT,
              space: 70,
              // Whole days only: a date column has no hours to mark.
              incrs: [1, 2, 7, 14, 30, 91, 182, 365].map((d) => d * 86_400),
              values: (_u, splits) => splits.map((s) => new Date(s * 1000).toISOString().slice(0, 10)),
            }
          : { font: FONT },
      valueAxis('y'),
      ...(right.size ? [valueAxis('y2')] : []),
    ],
    legend: { show: true },
    hooks: {
      draw: [
        (u) => {
          box.dataset.plotLeft = String(Math.round(u.bbox.left / devicePixelRatio));
          box.dataset.yAxisPx = String(yAxisPx);
          clear(
            axesText,
            h('p', {}, 'Y axis: '),
            h(
              'ul',
              { 'data-axis': 'y' },
              tickRecord.y.map((l) => h('li', {}, l)),
            ),
            right.size ? h('p', {}, 'Right Y axis: ') : null,
            right.size
              ? h(
                  'ul',
                  { 'data-axis': 'y2' },
                  tickRecord.y2.map((l) => h('li', {}, l)),
                )
              : null,
          );
        },
      ],
    },
  };
  return new uPlot(opts, data, box);
}

/** The chart's canvas with a white background, its caption and a legend, ready to save as PNG. */
function chartPng(u: uPlot, title: string): HTMLCanvasElement {
  const src = u.ctx.canvas;
  const ratio = devicePixelRatio || 1;
  const head = Math.round(28 * ratio);
  const foot = Math.round(24 * ratio);
  const out = document.createElement('canvas');
  out.width = src.width;
  out.height = src.height + head + foot;
  const ctx = out.getContext('2d');
  if (!ctx) return src;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.fillStyle = '#0f172a';
  ctx.font = `${Math.round(14 * ratio)}px system-ui, sans-serif`;
  ctx.fillText(title, 8 * ratio, 19 * ratio);
  ctx.drawImage(src, 0, head);
  let x = 8 * ratio;
  ctx.font = `${Math.round(12 * ratio)}px system-ui, sans-serif`;
  u.series.slice(1).forEach((s, n) => {
    ctx.fillStyle = COLORS[n % COLORS.length]!;
    ctx.fillRect(x, out.height - foot + 6 * ratio, 12 * ratio, 12 * ratio);
    x += 16 * ratio;
    ctx.fillStyle = '#0f172a';
    const label = String(s.label ?? '');
    ctx.fillText(label, x, out.height - foot + 16 * ratio);
    x += ctx.measureText(label).width + 16 * ratio;
  });
  return out;
}
