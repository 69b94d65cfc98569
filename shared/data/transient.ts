/**
 * Database errors that say "try again", not "the request was wrong": the server could not be
 * reached, or it refused this attempt for a reason of its own (a write conflict, a deadlock, a
 * lock or time limit, a step-down). The API answers them 503 (never 500) after the retries its
 * path allows; workers retry the job in place through them. Every path that writes is idempotent
 * (a re-run finds what the first attempt wrote), so a retry never applies anything twice.
 */
const TRANSIENT_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError', // in-use connections interrupted when the server monitor's check timed out
  'MongoTopologyClosedError',
]);

/**
 * Server error codes that refuse one attempt, not the request (MongoDB's error_codes.yml).
 * `1` InternalError is here because FerretDB reports what PostgreSQL refuses for concurrency —
 * a deadlock, a serialization failure, a lock timeout, the loser of a unique-index race — as
 * InternalError with PostgreSQL's text (its `mongoerrors.Make` maps unknown SQL states to it);
 * on MongoDB it is an unexpected server-side failure, for which a bounded retry and then a 503 is
 * the right answer too.
 */
const TRANSIENT_CODES = new Set([
  1, // InternalError (FerretDB: deadlock detected, could not serialize access, ...)
  6, // HostUnreachable
  7, // HostNotFound
  24, // LockTimeout
  46, // LockBusy
  50, // MaxTimeMSExpired
  89, // NetworkTimeout
  91, // ShutdownInProgress
  112, // WriteConflict
  117, // ConflictingOperationInProgress
  133, // FailedToSatisfyReadPreference
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11601, // Interrupted
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * PostgreSQL's refusals of one attempt, as the offline test database (DocumentDB behind FerretDB)
 * reports a failed insert or update: the SQLSTATE in PostgreSQL's internal encoding as the code
 * (`40P01` deadlock_detected is 16908292). Its findAndModify reports the same as InternalError (1).
 */
const SQLSTATES = ['40000', '40001', '40P01', '55P03', '57014', '57P01', '57P02', '57P03', '53300', '08000', '08003', '08006'];
/** PostgreSQL's MAKE_SQLSTATE: six bits per character, first character lowest. */
export const encodeSqlState = (state: string): number =>
  [...state].reduce((code, ch, i) => code + ((ch.charCodeAt(0) - 48) & 0x3f) * 2 ** (6 * i), 0);
for (const state of SQLSTATES) TRANSIENT_CODES.add(encodeSqlState(state));

const LABELS = ['RetryableWriteError', 'TransientTransactionError'];

/**
 * A socket's own failures, which the driver sometimes passes on unwrapped (a write to a connection
 * the database had closed: Node's `EPIPE` "This socket has been ended by the other party", when
 * the database is killed mid-burst — unclassified, it would be answered 500).
 */
const NETWORK_CODES = new Set([
  'EPIPE',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ENOTCONN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

interface DriverError {
  name?: string;
  /** A bulk write's failure of the whole command (a network error), wrapped by the driver. */
  errorResponse?: unknown;
  code?: unknown;
  hasErrorLabel?: (l: string) => boolean;
  errorLabels?: unknown;
  writeConcernError?: { code?: unknown };
}

/** Classified by the driver's error class, the server's code and labels, never by message text. */
export function isTransient(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as DriverError;
  if (TRANSIENT_NAMES.has(e.name ?? '')) return true;
  if (e.name === 'MongoBulkWriteError' && e.errorResponse instanceof Error && isTransient(e.errorResponse)) return true;
  if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
  if (typeof e.hasErrorLabel === 'function' && LABELS.some((l) => e.hasErrorLabel!(l))) return true;
  if (Array.isArray(e.errorLabels) && LABELS.some((l) => (e.errorLabels as unknown[]).includes(l))) return true;
  // Only server errors carry a numeric code worth reading (a Node system error's is a string).
  const isServerError = e.name === 'MongoServerError' || e.name === 'MongoBulkWriteError' || e.name === 'MongoWriteConcernError';
  if (isServerError && typeof e.code === 'number' && TRANSIENT_CODES.has(e.code)) return true;
  return typeof e.writeConcernError?.code === 'number' && TRANSIENT_CODES.has(e.writeConcernError.code);
}

/**
 * Runs `run`, retrying it through transient errors for up to `budgetMs` (capped exponential
 * backoff with jitter, so that the two sides of a deadlock do not meet again), inside the job:
 * BullMQ's own retry would move the job behind the customer's later operations. Safe because
 * every caller is idempotent (a re-run finds its journal and continues). After the budget the
 * last error is thrown.
 */
export async function retryTransient<T>(run: () => Promise<T>, budgetMs: number, baseDelayMs = 100): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let i = 0; ; i++) {
    try {
      return await run();
    } catch (err) {
      if (!isTransient(err) || Date.now() >= deadline) throw err;
      const delay = Math.min(baseDelayMs * 2 ** i, 2000) * (0.5 + Math.random() / 2);
      await new Promise((r) => setTimeout(r, Math.min(delay, Math.max(0, deadline - Date.now()))));
    }
  }
}
