import type { RequestHandler } from 'express';
import { JOB } from '../../shared/queue/names.js';
import type { JobGateway } from '../../shared/queue/gateway.js';
import { unwrapOutcome } from '../../shared/queue/outcome.js';
import type { Services } from '../../shared/services.js';
import { prepareApply } from '../../shared/usecases/apply-coupon.usecase.js';
import { checkIdempotencyKey, operationOf, withIdempotency } from '../../shared/usecases/idempotency.js';
import { beginQueueing } from '../middleware/limits.js';

/** POST /coupons/apply?type=redeem|revert: validate, queue on the customer's partition, wait. */
export function applyCouponRoute(services: Services, jobs: JobGateway): RequestHandler {
  return async (req, res) => {
    const app = res.locals.app;
    const key = checkIdempotencyKey(req.get('idempotency-key'));
    const op = operationOf(key);
    res.setHeader('Idempotency-Key', op.operationKey);
    const body = await withIdempotency(
      services,
      { applicationId: app.id, key, route: `apply:${String(req.query.type)}`, body: req.body, op },
      async () => {
        const prepared = await prepareApply(services, app, { type: req.query.type, body: req.body, requestId: String(req.id) });
        const customerKey = `${app.id}:${prepared.input.customerId}`;
        const run = { applicationId: app.id, ...op };
        beginQueueing(res, op.operationKey);
        const outcome =
          prepared.type === 'redeem'
            ? await jobs.run(JOB.redeem, customerKey, prepared.input, run)
            : await jobs.run(JOB.revert, customerKey, prepared.input, run);
        return unwrapOutcome(outcome);
      },
    );
    res.json(body);
  };
}
