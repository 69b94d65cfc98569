/**
 * Money inside the domain is integer cents; responses carry 2-decimal numbers rounded half away
 * from zero (docs/decisions.md#4). Every function here is total: it never throws, whatever number it gets.
 */

/**
 * Removes binary floating-point noise before rounding: `1.005 * 100` is `100.49999999999999`
 * in IEEE 754, but the client meant 100.5. Fifteen significant digits are what a double holds
 * faithfully, so snapping to them keeps every intended value and drops only the noise.
 */
function snap(x: number): number {
  return Number.isFinite(x) ? Number(x.toPrecision(15)) : x;
}

/**
 * Rounds a number to an integer, half away from zero (2.5 → 3, -2.5 → -3), after removing float
 * noise. Never returns `-0`, so a JSON echo never shows a surprising sign.
 *
 * @param x - any number; NaN and ±Infinity are returned unchanged
 */
export function roundHalfAway(x: number): number {
  // Hot path (every amount of every echoed item): integers need no snapping.
  if (Number.isInteger(x)) return x || 0;
  if (!Number.isFinite(x)) return x;
  const magnitude = Math.floor(snap(Math.abs(x)) + 0.5);
  return x < 0 ? -magnitude || 0 : magnitude;
}

/**
 * Amount in currency units → integer cents, half away from zero, robust to float noise
 * (`toCents(1.005)` is 101, `toCents(-0.005)` is -1).
 *
 * @param x - an amount; a non-finite input (or one too large for cents) gives a non-finite or
 *   unsafe result, so callers that accept client data check `Number.isSafeInteger` on the result
 */
export function toCents(x: number): number {
  return roundHalfAway(x * 100);
}

/**
 * Cents → a number with at most 2 decimals (`12345` → `123.45`). Non-integer cents are rounded
 * half away from zero first, so the result is always the double nearest a 2-decimal value.
 */
export function fromCents(cents: number): number {
  return roundHalfAway(cents) / 100;
}

/** Rounds an amount to 2 decimals, half away from zero (`roundMoney(2.675)` is 2.68). */
export function roundMoney(x: number): number {
  return fromCents(toCents(x));
}

/**
 * `percent`% of `cents`, rounded to whole cents half away from zero (10% of 5 cents is 1 cent).
 *
 * @param cents - the base, in cents
 * @param percent - a percentage such as 10 for 10%
 */
export function percentOf(cents: number, percent: number): number {
  return roundHalfAway((cents * percent) / 100);
}

/**
 * Spreads `totalCents` over parts in proportion to `weights` so that the parts sum exactly to
 * the total (largest remainder method): each part gets the floor of its exact share, then the
 * cents left over go one each to the parts with the largest fractional remainders, ties to the
 * lower index. Example: 100 over three equal weights → `[34, 33, 33]`.
 *
 * - `totalCents` is rounded to whole cents first; a negative total is spread as its magnitude
 *   and negated, so the parts still sum to it.
 * - Negative or non-finite weights count as 0.
 * - All weights zero (or no positive weight): there is nothing to weigh by, so the total is
 *   spread **evenly** by the same rule (decided so that the parts still sum to the total —
 *   a total is never silently lost).
 * - No weights: `[]` (there is nowhere to put the total).
 *
 * Integer weights are divided exactly (BigInt), so equal shares tie exactly and the
 * lower index wins, however large the amounts; other weights fall back to floating point.
 */
export function spreadLargestRemainder(totalCents: number, weights: number[]): number[] {
  if (weights.length === 0) return [];
  const total = roundHalfAway(totalCents);
  if (!Number.isFinite(total)) return weights.map(() => 0);
  if (total < 0) return spreadLargestRemainder(-total, weights).map((p) => -p || 0);
  const clean = weights.map((w) => (Number.isFinite(w) && w > 0 ? w : 0));
  const w = clean.some((x) => x > 0) ? clean : clean.map(() => 1);
  const exact = w.every(Number.isSafeInteger) && Number.isSafeInteger(total) ? exactShares(total, w) : floatShares(total, w);
  return distributeLeftover(total, exact);
}

/** A part's floor share and a comparable remainder (numerator over a common denominator). */
interface Share {
  floor: number;
  remainder: number | bigint;
}

function exactShares(total: number, weights: number[]): Share[] {
  const sum = weights.reduce((a, b) => a + BigInt(b), 0n);
  return weights.map((x) => {
    const numerator = BigInt(total) * BigInt(x);
    return { floor: Number(numerator / sum), remainder: numerator % sum };
  });
}

function floatShares(total: number, weights: number[]): Share[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  return weights.map((x) => {
    const share = (total * x) / sum;
    return { floor: Math.floor(share), remainder: share - Math.floor(share) };
  });
}

function distributeLeftover(total: number, shares: Share[]): number[] {
  const parts = shares.map((s) => s.floor);
  let left = total - parts.reduce((a, b) => a + b, 0);
  const byRemainder = shares.map((s, i) => ({ i, r: s.remainder })).sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  // `left` is below parts.length by construction; the bound also guards float fallback drift.
  for (let k = 0; left > 0 && k < byRemainder.length; k++, left--) parts[byRemainder[k]!.i]! += 1;
  return parts;
}
