/**
 * The pause the client takes before a retry (its own module, without the generated types: the
 * service's chaos tests pace their clients with it too, so they retry as a storefront does).
 */

/** The pause before the first retry, in ms, when the caller sets none. */
export const DEFAULT_BASE_DELAY_MS = 200;
/** The longest pause, in ms, when the caller sets none (a `Retry-After` may ask for more). */
export const DEFAULT_MAX_DELAY_MS = 5000;

export interface RetryPause {
  /** The attempt that has just been answered with a retried status (1 for the first). */
  attempt: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** What the answer's `Retry-After` asked for, in ms. */
  retryAfterMs?: number;
  /** A number in [0, 1): `Math.random` unless the caller needs a seeded sequence. */
  random?: () => number;
}

/**
 * A pause that doubles with each attempt from `baseDelayMs`, capped at `maxDelayMs`, with full
 * jitter (any length from 0 to that, so clients answered together do not come back together), and
 * never shorter than the service's `Retry-After`.
 */
export function retryPauseMs(p: RetryPause): number {
  const random = p.random ?? Math.random;
  const ceiling = Math.min(p.maxDelayMs ?? DEFAULT_MAX_DELAY_MS, (p.baseDelayMs ?? DEFAULT_BASE_DELAY_MS) * 2 ** (p.attempt - 1));
  return Math.max(random() * ceiling, p.retryAfterMs ?? 0);
}
