/** Wallet points are stored as integer hundredths (docs/decisions.md#21: at most 2 decimals). */
export const toHundredths = (points: number): number => Math.round(points * 100);
export const fromHundredths = (h: number): number => h / 100;

/**
 * True when `x` is exactly a number of at most 2 decimals: the double that a 2-decimal text parses
 * to (`0.29`, `1.5`), not one within a tolerance of it (`1.000000001`, `1e-9`, `5e-324` are not).
 * `toFixed(2)` rounds the exact binary value to 2 decimals; parsing that back gives `x` itself
 * only when `x` was such a number. Finite `x` below 1e21 (toFixed's range).
 */
export const hasAtMostTwoDecimals = (x: number): boolean => Number.isFinite(x) && Math.abs(x) < 1e21 && Number(x.toFixed(2)) === x;
