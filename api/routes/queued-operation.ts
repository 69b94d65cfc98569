import type { Request, Response } from 'express';
import type { JobGateway } from '../../shared/queue/gateway.js';
import { customerKeyOf, type JobName, type JobPayloads } from '../../shared/queue/names.js';
import { unwrapOutcome } from '../../shared/queue/outcome.js';
import type { Services } from '../../shared/services.js';
import { checkIdempotencyKey, operationOf, withIdempotency, type Operation } from '../../shared/usecases/idempotency.js';
import { beginQueueing } from '../middleware/limits.js';

/** What a route queues: the job, the customer whose partition runs it, and its payload. */
export interface QueuedJob<N extends JobName> {
  name: N;
  customerId: string;
  payload: JobPayloads[N];
}

/**
 * The sequence every queued client route runs (redeem, revert, wallet update): the operation key
 * (the client's `Idempotency-Key` or a generated one, echoed in the header), the idempotency
 * record, the route's own checks (`prepare`, before anything is queued), then the job on the
 * customer's partition and its outcome as the answer. A replayed answer carries
 * `Idempotent-Replayed: true`.
 *
 * @param route - the idempotency fingerprint's route part: one key, one route and body
 */
export async function answerQueuedOperation<N extends JobName>(
  services: Services,
  jobs: JobGateway,
  req: Request,
  res: Response,
  route: string,
  prepare: (op: Operation) => Promise<QueuedJob<N>>,
): Promise<void> {
  const app = res.locals.app;
  const key = checkIdempotencyKey(req.get('idempotency-key'));
  const op = operationOf(key);
  res.setHeader('Idempotency-Key', op.operationKey);
  const body = await withIdempotency(
    services,
    {
      applicationId: app.id,
      key,
      route,
      body: req.body,
      op,
      requestId: String(req.id),
      onReplay: () => res.setHeader('Idempotent-Replayed', 'true'),
    },
    async (run) => {
      const job = await prepare(run);
      beginQueueing(res, op.operationKey);
      return unwrapOutcome(await jobs.run(job.name, customerKeyOf(app.id, job.customerId), job.payload, { applicationId: app.id, ...op }));
    },
  );
  res.json(body);
}
