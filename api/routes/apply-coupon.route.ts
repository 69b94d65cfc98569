import type { RequestHandler } from 'express';
import { JOB } from '../../shared/queue/names.js';
import type { JobGateway } from '../../shared/queue/gateway.js';
import { unwrapOutcome } from '../../shared/queue/outcome.js';
import type { Services } from '../../shared/services.js';
import { prepareApply } from '../../shared/usecases/apply-coupon.usecase.js';
import { checkIdempotencyKey, fingerprintOf, withIdempotency } from '../../shared/usecases/idempotency.js';

/** POST /coupons/apply?type=redeem|revert: validate, queue on the customer's partition, wait. */
export function applyCouponRoute(services: Services, jobs: JobGateway): RequestHandler {
  return async (req, res) => {
    const app = res.locals.app;
    const key = checkIdempotencyKey(req.get('idempotency-key'));
    const body = await withIdempotency(
      services,
      { applicationId: app.id, key, fingerprint: fingerprintOf(`apply:${String(req.query.type)}`, req.body) },
      async () => {
        const prepared = await prepareApply(services, app, { type: req.query.type, body: req.body, requestId: String(req.id) });
        const customerKey = `${app.id}:${prepared.input.customerId}`;
        const outcome =
          prepared.type === 'redeem'
            ? await jobs.run(JOB.redeem, customerKey, prepared.input)
            : await jobs.run(JOB.revert, customerKey, prepared.input);
        return unwrapOutcome(outcome);
      },
    );
    res.json(body);
  };
}
