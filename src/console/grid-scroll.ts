/**
 * Scrolling a grid of any number of rows. A browser draws an element at most some millions
 * of pixels tall (Chromium about 33.5 million, Firefox about 17.9 million: 1,290,563 rows of
 * 26 px), so a spacer as tall as every row stops short of the last ones. Up to MAX_SCROLL_PX
 * the scroll position is the row's; past it the scroll range is fixed and a position maps
 * to a row proportionally, the bottom to the last rows.
 */
export const MAX_SCROLL_PX = 8_000_000;

export function isScaled(rows: number, rowPx: number): boolean {
  return rows * rowPx > MAX_SCROLL_PX;
}

export function scrollHeightFor(rows: number, rowPx: number): number {
  return Math.min(rows * rowPx, MAX_SCROLL_PX);
}

/** The row at the top of the view, for a scroll position; `viewRows` rows fit in the view. */
export function firstRowAt(
  scrollTop: number,
  scrollMax: number,
  rows: number,
  viewRows: number,
  rowPx: number,
): number {
  const last = Math.max(0, rows - viewRows);
  if (!isScaled(rows, rowPx)) return Math.min(last, Math.max(0, Math.floor(scrollTop / rowPx)));
  if (scrollMax <= 0) return 0;
  const ratio = Math.min(1, Math.max(0, scrollTop / scrollMax));
  return Math.round(ratio * last);
}
