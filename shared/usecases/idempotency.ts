/**
 * `Idempotency-Key` (decision 24) on apply and wallet updates: the same key with the same request
 * replays the first response without applying anything again; the same key with another request
 * is 409. A response is stored only when it is final (success or a domain refusal); when the
 * wait for the job timed out the claim is released, and the retry runs the operation again,
 * which the processors make a no-op if it was already applied.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '../errors.js';
import { toOutcome, unwrapOutcome, type Outcome } from '../queue/outcome.js';
import type { Services } from '../services.js';
import { invalidField } from './wallet-errors.js';

export const MAX_KEY_LENGTH = 255;

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

export async function withIdempotency<T>(
  deps: Pick<Services, 'repos' | 'config' | 'now'>,
  req: { applicationId: string; key: string | undefined; fingerprint: string },
  run: () => Promise<T>,
): Promise<T> {
  const { key, applicationId } = req;
  if (!key) return run();
  const repo = deps.repos.idempotency;
  const expiresAt = new Date(deps.now().getTime() + deps.config.idempotencyTtlSeconds * 1000);
  const deadline = Date.now() + deps.config.jobWaitTimeoutMs;
  while (!(await repo.claim(applicationId, key, req.fingerprint, expiresAt))) {
    const existing = await repo.find(applicationId, key);
    if (!existing) continue; // released meanwhile: claim again
    if (existing.fingerprint !== req.fingerprint) throw keyReused();
    if (existing.state === 'done' && existing.response) return unwrapOutcome(existing.response as Outcome<T>);
    // The first request is still running: wait for its response rather than run twice.
    if (Date.now() > deadline) {
      throw new DomainError('unavailable', 'Service Unavailable', 'a request with this Idempotency-Key is still in progress; retry later', {
        code: 503,
      });
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  let outcome: Outcome<T>;
  try {
    outcome = await toOutcome(run);
  } catch (err) {
    await repo.release(applicationId, key);
    throw err;
  }
  if (!outcome.ok && outcome.error.kind === 'unavailable') await repo.release(applicationId, key);
  else await repo.complete(applicationId, key, outcome);
  return unwrapOutcome(outcome);
}
