import type { RequestHandler } from 'express';
import { JOB } from '../../shared/queue/names.js';
import type { JobGateway } from '../../shared/queue/gateway.js';
import type { Services } from '../../shared/services.js';
import { prepareApply } from '../../shared/usecases/apply/prepare-apply.usecase.js';
import { answerQueuedOperation } from './queued-operation.js';

/** POST /coupons/apply?type=redeem|revert: validate, queue on the customer's partition, wait. */
export function applyCouponRoute(services: Services, jobs: JobGateway): RequestHandler {
  return (req, res) =>
    answerQueuedOperation(services, jobs, req, res, `apply:${String(req.query.type)}`, async () => {
      const prepared = await prepareApply(services, res.locals.app, { type: req.query.type, body: req.body, requestId: String(req.id) });
      const { customerId } = prepared.input;
      return prepared.type === 'redeem'
        ? { name: JOB.redeem, customerId, payload: prepared.input }
        : { name: JOB.revert, customerId, payload: prepared.input };
    });
}
