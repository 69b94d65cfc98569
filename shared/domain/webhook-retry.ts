/**
 * The retry schedule of a webhook delivery: exponential backoff with jitter, capped. After the
 * n-th failed attempt (n ≥ 1) the next one is due after
 * `min(baseMs · 2^(n−1), maxMs) · j`, j uniform in [0.9, 1.1): jitter spreads the retries of a
 * burst that failed together. After `maxAttempts` attempts the delivery is dead-lettered.
 */
export interface RetryPolicy {
  /** First delay. Production default 60 s. */
  baseMs: number;
  /** Longest delay. Production default 6 h. */
  maxMs: number;
  /** Attempts in all, the first included. Production default 14. */
  maxAttempts: number;
}

export const JITTER = 0.1;

const nominalDelayMs = (failedAttempts: number, p: RetryPolicy) => Math.min(p.baseMs * 2 ** Math.min(failedAttempts - 1, 40), p.maxMs);

/** Delay before the next attempt after `failedAttempts` failures; `random` in [0, 1). */
export function retryDelayMs(failedAttempts: number, policy: RetryPolicy, random: () => number = Math.random): number {
  return Math.round(nominalDelayMs(failedAttempts, policy) * (1 - JITTER + 2 * JITTER * random()));
}

/** The nominal delays between attempts (no jitter): the table of docs/events.md. */
export function retrySchedule(policy: RetryPolicy): number[] {
  return Array.from({ length: Math.max(policy.maxAttempts - 1, 0) }, (_, i) => nominalDelayMs(i + 1, policy));
}

/** The shortest time from the first to the last attempt, whatever the jitter. */
export function shortestRetryWindowMs(policy: RetryPolicy): number {
  return retrySchedule(policy).reduce((s, d) => s + d * (1 - JITTER), 0);
}

/** What a delivery does after one attempt: the decision, which the delivery use case carries out. */
export type AttemptAction =
  | { action: 'succeeded' }
  /** 410 Gone: this delivery is dead, the endpoint disabled, its pending deliveries cancelled. */
  | { action: 'gone'; reason: string }
  /** The last attempt failed: dead-lettered; the rest of its stream goes on. */
  | { action: 'give-up'; reason: string }
  | { action: 'retry'; delayMs: number; error: string };

/**
 * Decides what follows attempt number `attempt` (1 for the first) given what the receiver did:
 * a 2xx succeeds; a 410 means the receiver is gone for good; otherwise retry after the schedule's
 * delay, until `maxAttempts` — then give up. Pure: the caller persists and notifies.
 */
export function decideAfterAttempt(
  result: { status: number | null; error: string | null },
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): AttemptAction {
  if (result.error === null) return { action: 'succeeded' };
  if (result.status === 410) return { action: 'gone', reason: 'receiver answered 410 Gone: endpoint disabled' };
  if (attempt >= policy.maxAttempts) return { action: 'give-up', reason: `gave up after ${attempt} attempts: ${result.error}` };
  return { action: 'retry', delayMs: retryDelayMs(attempt, policy, random), error: result.error };
}
