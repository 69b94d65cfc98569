import type { RequestHandler } from 'express';
import type { JobGateway } from '../../shared/queue/gateway.js';
import type { Services } from '../../shared/services.js';
import { may, refusalOf } from '../../shared/domain/roles.js';
import { adminForbidden, queuesNotConnected } from '../../shared/usecases/admin/admin-errors.js';
import { requireCustomer } from '../../shared/usecases/admin/customers.usecase.js';
import { auditedAdjustment, prepareAdjustmentJob, type AdjustmentRequest } from '../../shared/usecases/admin/wallet-adjustment.usecase.js';
import { answerQueuedOperation } from '../routes/queued-operation.js';
import type { Actor } from '../../shared/domain/roles.js';

/**
 * `POST /admin/applications/:app/customers/:customer/wallets/:wallet/adjustments`: an operator's
 * credit or debit of a customer's points (docs/admin-api.md#adjusting-points), queued on the
 * customer's partition through the path every queued operation takes (routes/queued-operation.ts),
 * as an audited change.
 */
export function adjustPointsRoute(services: Services, jobs: JobGateway | undefined): RequestHandler {
  return async (req, res) => {
    const actor = res.locals.actor as Actor;
    // The role first, as every route: a viewer is refused before anything is looked up.
    if (!may(actor, 'change')) throw adminForbidden(refusalOf(actor, 'change'));
    if (!jobs) throw queuesNotConnected();
    const applicationId = String(req.params.app);
    // The customer by the service's id, as the log names customers (the route takes a source id too).
    const customer = await requireCustomer(services, applicationId, String(req.params.customer));
    const adjustment: AdjustmentRequest = {
      applicationId,
      customerId: customer.id,
      walletId: String(req.params.wallet),
      body: req.body,
      requestId: String(req.id),
    };
    await answerQueuedOperation(services, jobs, req, res, {
      applicationId,
      route: `adjustment:${customer.id}:${adjustment.walletId}`,
      prepare: (op) => prepareAdjustmentJob(services, adjustment, op),
      around: (op, perform) => auditedAdjustment(services, actor, adjustment, op, perform),
    });
  };
}
