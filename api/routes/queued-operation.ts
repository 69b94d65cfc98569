/**
 * The path every queued operation takes, client routes and the admin adjustment alike:
 *
 *   operation key → idempotency (replay, or claim) → the route's preparation (its checks, the job)
 *   → the gateway (queue and wait, or an answer the API could prove) → idempotency stores the
 *   outcome → the HTTP answer (api/answers.ts).
 *
 * A refusal is an outcome from the moment it is made (in the preparation here, or in the worker)
 * until the answer turns it into HTTP; an operation not answered in time is a 503 naming its key.
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import type { JobAnswer, JobGateway, PreparedOperation } from '../../shared/queue/gateway.js';
import { toOutcome } from '../../shared/queue/outcome.js';
import type { Services } from '../../shared/services.js';
import { checkIdempotencyKey, claimOperation, operationOf, type Operation } from '../../shared/usecases/idempotency.js';
import { sendJobAnswer } from '../answers.js';
import { dependencyUnavailable, operationUnavailable } from '../../shared/client-errors.js';

export interface QueuedRequest {
  applicationId: string;
  /** The idempotency fingerprint's route part: one key, one route and body. */
  route: string;
  /** The route's checks and its job; a DomainError it throws is the operation's refusal. */
  prepare: (op: Operation) => Promise<PreparedOperation>;
  /** Runs around the operation once its key is known (the admin adjustment's audit entry). */
  around?: (op: Operation, perform: () => Promise<JobAnswer>) => Promise<JobAnswer>;
  /** The status of a successful answer (200). */
  status?: number;
}

/**
 * Answers a queued operation: the operation key (the client's `Idempotency-Key` or a generated one,
 * echoed in the header), its answer (replayed ones with `Idempotent-Replayed: true`).
 */
export async function answerQueuedOperation(services: Services, jobs: JobGateway, req: Request, res: Response, q: QueuedRequest) {
  const key = checkIdempotencyKey(req.get('idempotency-key'));
  const op = operationOf(key);
  const { operationKey } = op;
  res.setHeader('Idempotency-Key', operationKey);
  // Nobody waits for this request's answer any more (its deadline gave it, or its client left):
  // what it has not begun is dropped — nothing applied, and its time goes to the requests waiting.
  const dropIfAbandoned = () => {
    if (res.locals.abandoned?.aborted) throw dependencyUnavailable(randomUUID());
  };
  dropIfAbandoned();
  // This process is too late to take it on (middleware/limits.ts shedWhenLate): nothing was done.
  // Only a key generated here is certainly not queued; a client's key may name an earlier request's job.
  if (res.locals.shed) throw operationUnavailable(op.fresh ? 'not_applied' : 'pending', operationKey, res.locals.shed);
  const claim = await claimOperation(services, {
    applicationId: q.applicationId,
    key,
    route: q.route,
    body: req.body,
    op,
    requestId: String(req.id),
  });
  // The route's checks, then the gateway: the job queued and waited for, or the answer the API proved.
  const perform = async (op: Operation): Promise<JobAnswer> => {
    dropIfAbandoned();
    const prepared = await toOutcome(() => q.prepare(op));
    if (!prepared.ok) return { answered: true, outcome: prepared };
    const { job, answered } = prepared.value;
    if (answered) return jobs.answerWithoutQueue(job, q.applicationId, answered);
    // Once the deadline has answered (nothing applied), nothing may be queued any more; from now on
    // a deadline answer names the operation's key (middleware/limits.ts answerWithin).
    if (res.headersSent) throw dependencyUnavailable(randomUUID());
    dropIfAbandoned();
    res.locals.queuedOperation = operationKey;
    return jobs.queueAndWait(job, { applicationId: q.applicationId, ...op });
  };
  const { answer, replayed } =
    claim.answered ?? (await claim.settle(q.around ? q.around(claim.op, () => perform(claim.op)) : perform(claim.op)));
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  sendJobAnswer(req, res, answer, operationKey, q.status);
}
