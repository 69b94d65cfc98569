import type { RequestHandler } from 'express';
import { JOB } from '../../shared/queue/names.js';
import type { JobGateway } from '../../shared/queue/gateway.js';
import { refusalOutcome } from '../../shared/queue/outcome.js';
import type { Services } from '../../shared/services.js';
import { prepareApply } from '../../shared/usecases/apply/prepare-apply.usecase.js';
import { refuseIfSoldOut } from '../../shared/usecases/apply/sold-out.usecase.js';
import { answerQueuedOperation } from './queued-operation.js';

/**
 * POST /coupons/apply?type=redeem|revert: validate, queue on the customer's partition, wait. A
 * redeem of a sold-out coupon is refused here when the refusal is provable (sold-out.usecase.ts),
 * counted like the worker's refusals.
 */
export function applyCouponRoute(services: Services, jobs: JobGateway): RequestHandler {
  return (req, res) =>
    answerQueuedOperation(services, jobs, req, res, `apply:${String(req.query.type)}`, async (op) => {
      const app = res.locals.app;
      const prepared = await prepareApply(services, app, { type: req.query.type, body: req.body, requestId: String(req.id) });
      const { customerId } = prepared.input;
      if (prepared.type === 'revert') return { name: JOB.revert, customerId, payload: prepared.input };
      const refused = await refuseIfSoldOut(services, app, prepared.campaign, prepared.input, op);
      if (refused) {
        jobs.onOutcome?.(JOB.redeem, prepared.input, refusalOutcome(refused));
        throw refused;
      }
      return { name: JOB.redeem, customerId, payload: prepared.input };
    });
}
