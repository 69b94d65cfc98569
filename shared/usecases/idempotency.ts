/**
 * Operation keys and `Idempotency-Key` (docs/decisions.md#24) on apply and wallet updates.
 *
 * Every queued operation has an operation key: the client's `Idempotency-Key`, or one generated
 * for the request (`auto-…`). The job id and the wallet transaction id derive from it, so one key
 * always names one operation, applied at most once whatever the retries (docs/reliability.md).
 * A 503 names the key; a retry with it joins the operation (waits for its job, or returns its
 * result) or, if the job never reached the queue, queues it.
 *
 * With a client key, the first request's final response (success or a domain refusal) is stored
 * and replayed; the same key with another request is 409. A request that finds its key in
 * progress — a concurrent duplicate, or a retry after the first request's API died — does not
 * wait for that request: it joins the same job.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '../errors.js';
import { newOperationKey } from '../queue/gateway.js';
import { toOutcome, unwrapOutcome, type Outcome } from '../queue/outcome.js';
import type { Services } from '../services.js';
import { invalidField } from './wallet-errors.js';
import { retryTransient } from '../data/transient.js';

export const MAX_KEY_LENGTH = 255;

/** The operation of one request: its key, and whether the key was just generated (never queued before). */
export interface Operation {
  operationKey: string;
  fresh: boolean;
  /**
   * No job of this operation can exist yet: its key was generated, or this request has just
   * claimed the key's idempotency record (a job is queued only after the claim). An answer that
   * skips the queue (a sold-out refusal) is given only then: otherwise a job queued by an earlier
   * request with this key may still apply, and the answer must be its outcome.
   */
  unqueued: boolean;
}

export const fingerprintOf = (route: string, body: unknown): string =>
  createHash('sha256')
    .update(route)
    .update('\n')
    .update(JSON.stringify(body ?? null))
    .digest('hex');

/** A stable operation id derived from the key (wallet txn ids): retries collide in the ledger. */
export const operationIdOf = (applicationId: string, key: string): string =>
  `idem:${createHash('sha256').update(`${applicationId}\n${key}`).digest('hex').slice(0, 32)}`;

const keyReused = () =>
  new DomainError('conflict', 'Idempotency-Key reused', 'this Idempotency-Key was used with a different request', {
    code: 409,
    key: 'Idempotency-Key',
  });

export function checkIdempotencyKey(key: unknown): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw invalidField('Idempotency-Key', `Idempotency-Key should be 1 to ${MAX_KEY_LENGTH} characters`);
  }
  return key;
}

/** The operation a request runs: its client key, or a fresh generated one. */
export const operationOf = (key: string | undefined): Operation =>
  key ? { operationKey: key, fresh: false, unqueued: false } : { operationKey: newOperationKey(), fresh: true, unqueued: true };

/** What a request with a client key is answered: the first request's final response, and whether it is a replay. */
export interface IdempotentRequest {
  applicationId: string;
  key: string | undefined;
  route: string;
  body: unknown;
  op: Operation;
  /** This request's id: a refusal it stores is replayed with it (the first answer, byte for byte). */
  requestId: string;
  /** Called before the answer when it is another request's stored response (`Idempotent-Replayed`). */
  onReplay?: () => void;
}

/** A key's request in flight in this process: its fingerprint, and the answer it will give. */
interface Flight {
  fingerprint: string;
  answer: Promise<Outcome<unknown>>;
}
/** Per repository (one per process and database): the keys with a request in flight here. */
const flightsByRepo = new WeakMap<object, Map<string, Flight>>();

/**
 * Runs `run` for operation `op`. Without a client key it just runs. With one: replays a stored
 * final response, refuses another request under the same key (409), and stores this run's final
 * response — unless a concurrent duplicate stored one first, which is then this request's answer
 * too: every request with a key is answered the same. A 503 is not final: the key stays in
 * progress and a retry joins the operation. The record's reads and writes retry through the
 * database's transient refusals (a deadlock, a write conflict) within the job wait.
 *
 * Duplicates that reach this process while the first is in flight wait for its answer instead of
 * claiming the record themselves: a storefront retrying at once costs no database round trip, and
 * the database sees one claim per key and replica (a dozen concurrent claims of one key kept
 * deadlocking each other on the test database).
 */
export async function withIdempotency<T>(
  deps: Pick<Services, 'repos' | 'config' | 'now'>,
  req: IdempotentRequest,
  run: (op: Operation) => Promise<T>,
): Promise<T> {
  const { key, applicationId } = req;
  if (!key) return run(req.op);
  const fingerprint = fingerprintOf(req.route, req.body);
  let flights = flightsByRepo.get(deps.repos.idempotency);
  if (!flights) flightsByRepo.set(deps.repos.idempotency, (flights = new Map()));
  const flightKey = `${applicationId}\n${key}`;
  const joined = flights.get(flightKey);
  if (joined) {
    if (joined.fingerprint !== fingerprint) throw keyReused();
    const outcome = (await joined.answer) as Outcome<T>;
    // Its 503 is not an answer to replay (the key stays in progress): the same 503, unmarked.
    return outcome.ok || outcome.error.kind !== 'unavailable' ? replay(req, outcome) : unwrapOutcome(outcome);
  }
  let replayed = false;
  const answer = answerOnce(deps, { ...req, key, fingerprint, onReplay: () => (replayed = true) }, run);
  flights.set(flightKey, { fingerprint, answer });
  try {
    const outcome = await answer;
    if (replayed) req.onReplay?.();
    return unwrapOutcome(outcome);
  } finally {
    flights.delete(flightKey);
  }
}

/** The first request of a key in this process: its answer as an outcome (a 503 too), stored when final. */
async function answerOnce<T>(
  deps: Pick<Services, 'repos' | 'config' | 'now'>,
  req: IdempotentRequest & { key: string; fingerprint: string },
  run: (op: Operation) => Promise<T>,
): Promise<Outcome<T>> {
  const { key, applicationId, fingerprint } = req;
  const repo = deps.repos.idempotency;
  const retry = <R>(call: () => Promise<R>) => retryTransient(call, deps.config.jobWaitTimeoutMs, 20);
  const expiresAt = new Date(deps.now().getTime() + deps.config.idempotencyTtlSeconds * 1000);
  const existing = await retry(() => repo.claimOrFind(applicationId, key, fingerprint, expiresAt));
  if (existing) {
    if (existing.fingerprint !== fingerprint) throw keyReused();
    if (existing.state === 'done' && existing.response) {
      req.onReplay?.();
      return existing.response as Outcome<T>;
    }
  }
  // Claimed just now: no request before this one queued a job under the key.
  const outcome = await toOutcome(() => run(existing ? req.op : { ...req.op, unqueued: true }));
  if (!outcome.ok && outcome.error.kind === 'unavailable') return outcome;
  // As the database will hold it (no undefined fields), so that the first answer and its replays are one text.
  const mine = JSON.parse(
    JSON.stringify(
      outcome.ok ? outcome : { ok: false, error: { ...outcome.error, extra: { ...outcome.error.extra, requestId: req.requestId } } },
    ),
  ) as Outcome<T>;
  const stored = await retry(() => repo.complete(applicationId, key, mine));
  if (stored.mine) return mine;
  req.onReplay?.();
  return stored.response as Outcome<T>;
}

function replay<T>(req: IdempotentRequest, response: Outcome<T>): T {
  req.onReplay?.();
  return unwrapOutcome(response);
}
