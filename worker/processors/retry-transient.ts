/**
 * Retries a processor body on transient database errors, inside the job: BullMQ's own retry
 * would move the job behind the customer's later operations. Safe because every processor is
 * idempotent (a re-run finds its journal and continues).
 */
const TRANSIENT_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
]);

export function isTransient(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { name?: string; hasErrorLabel?: (l: string) => boolean };
  return (
    TRANSIENT_NAMES.has(e.name ?? '') ||
    (typeof e.hasErrorLabel === 'function' && (e.hasErrorLabel('RetryableWriteError') || e.hasErrorLabel('TransientTransactionError')))
  );
}

export async function retryTransient<T>(run: () => Promise<T>, attempts = 8, baseDelayMs = 100): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await run();
    } catch (err) {
      if (i >= attempts || !isTransient(err)) throw err;
      await new Promise((r) => setTimeout(r, Math.min(baseDelayMs * 2 ** (i - 1), 3000)));
    }
  }
}
