/**
 * Database errors that say "could not reach the server", not "the request was wrong": the API
 * answers them 503 (never 500), and workers retry the job in place through them.
 */
const TRANSIENT_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'MongoTopologyClosedError',
]);

/** Classified by the driver's error class and labels, never by message text. */
export function isTransient(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { name?: string; hasErrorLabel?: (l: string) => boolean };
  return (
    TRANSIENT_NAMES.has(e.name ?? '') ||
    (typeof e.hasErrorLabel === 'function' && (e.hasErrorLabel('RetryableWriteError') || e.hasErrorLabel('TransientTransactionError')))
  );
}

/**
 * Runs `run`, retrying it through transient errors for up to `budgetMs` (capped exponential
 * backoff), inside the job: BullMQ's own retry would move the job behind the customer's later
 * operations. Safe because every processor is idempotent (a re-run finds its journal and
 * continues). After the budget the last error is thrown and the job fails.
 */
export async function retryTransient<T>(run: () => Promise<T>, budgetMs: number, baseDelayMs = 100): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let i = 0; ; i++) {
    try {
      return await run();
    } catch (err) {
      if (!isTransient(err) || Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, Math.min(baseDelayMs * 2 ** i, 2000, Math.max(0, deadline - Date.now()))));
    }
  }
}
