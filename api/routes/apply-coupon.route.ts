import type { RequestHandler } from 'express';
import type { JobGateway } from '../../shared/queue/gateway.js';
import type { Services } from '../../shared/services.js';
import { prepareApplyOperation } from '../../shared/usecases/apply/prepare-apply.usecase.js';
import { answerQueuedOperation } from './queued-operation.js';

/** POST /coupons/apply?type=redeem|revert: checked, queued on the customer's partition, answered by its job. */
export function applyCouponRoute(services: Services, jobs: JobGateway): RequestHandler {
  return (req, res) => {
    const app = res.locals.app;
    return answerQueuedOperation(services, jobs, req, res, {
      applicationId: app.id,
      route: `apply:${String(req.query.type)}`,
      prepare: (op) => prepareApplyOperation(services, app, { type: req.query.type, body: req.body, requestId: String(req.id) }, op),
    });
  };
}
