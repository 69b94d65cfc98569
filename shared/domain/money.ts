/**
 * Money inside the domain is integer cents; responses carry 2-decimal numbers rounded half away
 * from zero (decision 4).
 */

/** Amount → cents, half away from zero, robust to float noise (1.005 → 101). */
export function toCents(x: number): number {
  const scaled = Math.abs(x) * 100;
  // Snap values within float noise of a half-cent boundary (1.005*100 = 100.49999…).
  const snapped = Math.round(scaled * 1e6) / 1e6;
  return Math.sign(x) * Math.floor(snapped + 0.5);
}

/** Cents → a 2-decimal number. */
export const fromCents = (cents: number): number => cents / 100;

/** Rounds an amount to 2 decimals, half away from zero. */
export const roundMoney = (x: number): number => fromCents(toCents(x));

/** `percent`% of `cents`, half away from zero. */
export function percentOf(cents: number, percent: number): number {
  return toCents((cents * percent) / 10000);
}

/**
 * Spreads `totalCents` over items in proportion to `weights` so that the parts sum exactly to
 * the total (largest remainder; ties go to the lower index). All-zero weights: nothing to weigh
 * by, so the total is spread evenly the same way.
 */
export function spreadLargestRemainder(totalCents: number, weights: number[]): number[] {
  if (weights.length === 0) return [];
  const w = weights.some((x) => x > 0) ? weights.map((x) => Math.max(0, x)) : weights.map(() => 1);
  const sum = w.reduce((a, b) => a + b, 0);
  const exact = w.map((x) => (totalCents * x) / sum);
  const parts = exact.map((x) => Math.floor(x));
  let left = totalCents - parts.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; left > 0 && k < order.length; k++, left--) parts[order[k]!.i]! += 1;
  return parts;
}
