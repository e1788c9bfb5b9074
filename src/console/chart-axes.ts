/**
 * The arithmetic behind a chart's axes, apart from the canvas so it can be tested on real
 * data ranges: tick labels, the room an axis needs for its widest label, zero-based bar
 * ranges and where each series' bar sits in a group.
 */

/** Decimals a tick label needs so that neighbouring ticks `step` apart read differently. */
export function decimalsFor(step: number): number {
  if (!Number.isFinite(step) || step <= 0) return 0;
  for (let d = 0; d < 10; d++) {
    const scaled = step * 10 ** d;
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d;
  }
  return 10;
}

/** Tick labels with digit grouping: 38000 → "38,000", 0.25 → "0.25". */
export function tickLabels(splits: readonly number[], locale?: string): string[] {
  const step = splits.length > 1 ? Math.abs(splits[1]! - splits[0]!) : Math.abs(splits[0] ?? 1);
  const d = decimalsFor(step);
  const fmt = new Intl.NumberFormat(locale, { minimumFractionDigits: d, maximumFractionDigits: d });
  return splits.map((v) => (v == null ? '' : fmt.format(Math.abs(v) < 1e-12 ? 0 : v)));
}

/**
 * Pixels an axis needs: its widest label plus tick and gap. uPlot's default is a fixed 50 px;
 * its labels are drawn right-aligned against the plot, so a wider label ("38,000" at 12 px is
 * about 44 px, "1,250,000" about 62 px) runs off the canvas edge and loses its leading digits.
 */
export function axisSize(
  labels: readonly string[],
  measure: (text: string) => number,
  tick: number,
  gap: number,
): number {
  let widest = 0;
  for (const l of labels) if (l) widest = Math.max(widest, measure(l));
  return Math.ceil(widest + tick + gap + 4);
}

/** A bar chart's value range: always includes zero, so bar heights compare truthfully. */
export function zeroBasedRange(min: number | null, max: number | null): [number, number] {
  const lo = Math.min(0, min ?? 0);
  const hi = Math.max(0, max ?? 0);
  if (lo === hi) return [0, 1];
  const pad = (hi - lo) * 0.05;
  return [lo < 0 ? lo - pad : 0, hi > 0 ? hi + pad : 0];
}

/** Left edge and width (in category units, a category spanning 1) of series k's bar in a group of n. */
export function groupSlot(k: number, n: number, groupWidth = 0.8): { offset: number; width: number } {
  const width = groupWidth / Math.max(1, n);
  return { offset: -groupWidth / 2 + k * width, width };
}

/**
 * Series drawn against a second (right) axis: those whose largest magnitude is under a
 * twentieth of the largest series', which on a shared axis would be a flat line at zero
 * (orders in tens next to revenue in tens of thousands). Indexes into `series`.
 */
export function rightAxisSeries(series: readonly (readonly (number | null)[])[]): Set<number> {
  const peaks = series.map((values) =>
    values.reduce<number>((m, v) => (v === null ? m : Math.max(m, Math.abs(v))), 0),
  );
  const top = Math.max(0, ...peaks);
  const out = new Set<number>();
  if (top === 0) return out;
  peaks.forEach((p, i) => {
    if (p > 0 && p * 20 < top) out.add(i);
  });
  return out;
}
