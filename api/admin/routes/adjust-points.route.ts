/**
 * `POST /admin/applications/:app/customers/:customer/wallets/:wallet/adjustments`: an operator's
 * manual adjustment of a customer's points (docs/admin-api.md#adjusting-points), queued on the
 * customer's partition through the path every queued operation takes (routes/queued-operation.ts),
 * its change audited once its operation key — hence the ledger id it gets — is known: an entry its
 * answer leaves pending is settled from the ledger.
 */
import { queuesNotConnected } from '../../../shared/admin-errors.js';
import { requireCustomer } from '../../../shared/usecases/admin/customers.usecase.js';
import {
  adjustmentRecord,
  adjustmentState,
  prepareAdjustmentJob,
  type AdjustmentRequest,
} from '../../../shared/usecases/admin/wallet-adjustment.usecase.js';
import { answerQueuedOperation } from '../../routes/queued-operation.js';
import type { AdminCall, CustomRoute, RunAudited } from '../admin-route.js';
import { APP } from './applications.routes.js';

/** After the role check: the customer, then the queued operation, its change audited. */
async function adjustPoints({ req, res, services, jobs, param }: AdminCall, audited: RunAudited): Promise<void> {
  if (!jobs) throw queuesNotConnected();
  const applicationId = param('app');
  // The customer by the service's id, as the log names customers (the route takes a source id too).
  const customer = await requireCustomer(services, applicationId, param('customer'));
  const adjustment: AdjustmentRequest = {
    applicationId,
    customerId: customer.id,
    walletId: param('wallet'),
    body: req.body,
    requestId: String(req.id),
  };
  await answerQueuedOperation(services, jobs, req, res, {
    applicationId,
    route: `adjustment:${customer.id}:${adjustment.walletId}`,
    prepare: (op) => prepareAdjustmentJob(services, adjustment, op),
    around: (op, perform) => audited({ id: customer.id, body: adjustmentRecord(adjustment, op) }, perform, adjustmentState),
  });
}

export const ADJUST_POINTS_ROUTE: CustomRoute = {
  method: 'post',
  path: `${APP}/customers/:customer/wallets/:wallet/adjustments`,
  action: 'change',
  // A change of many: the entry records the request (its ledger id settles it, not a stamp: the worker writes the ledger entry).
  audit: { type: 'customer', verb: 'adjust_points', target: 'handler', many: 'Customer' },
  status: 200,
  custom: adjustPoints,
};
