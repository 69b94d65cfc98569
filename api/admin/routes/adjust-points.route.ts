/**
 * `POST /admin/applications/:app/customers/:customer/wallets/:wallet/adjustments`: an operator's
 * manual adjustment of a customer's points (docs/admin-api.md#adjusting-points), queued on the
 * customer's partition like every wallet operation. Its operation key (the `Idempotency-Key`, or
 * one made here) is known before the audit entry is written, which records the ledger id it will
 * have: an entry its answer leaves pending is settled from the ledger.
 */
import { DomainError } from '../../../shared/errors.js';
import { JOB, customerKeyOf } from '../../../shared/queue/names.js';
import { unwrapOutcome } from '../../../shared/queue/outcome.js';
import { requireCustomer } from '../../../shared/usecases/admin/customers.usecase.js';
import { prepareAdjustment } from '../../../shared/usecases/admin/wallet-adjustment.usecase.js';
import { checkIdempotencyKey, operationIdOf, operationOf } from '../../../shared/usecases/idempotency.js';
import { beginQueueing } from '../../middleware/limits.js';
import type { AdminCall, CustomRoute, RunAudited } from '../admin-route.js';
import { APP } from './applications.routes.js';

/** After the role check: the key, the customer, then the audited change that queues the job and waits for its outcome. */
async function adjustPoints({ req, res, services, jobs, param }: AdminCall, audited: RunAudited): Promise<unknown> {
  const op = operationOf(checkIdempotencyKey(req.get('idempotency-key')));
  const app = param('app');
  // The customer by the service's id, as the log names customers (the route takes a source id too).
  const customer = await requireCustomer(services, app, param('customer'));
  const txnId = operationIdOf(app, op.operationKey);
  res.setHeader('Idempotency-Key', op.operationKey);
  // What was asked, and the ledger id it gets: the entry of a change cut short is settled by it.
  const body = { ...(req.body as object), wallet_id: param('wallet'), txn_id: txnId };
  return audited({ id: customer.id, body }, async () => {
    if (!jobs) throw new DomainError('unavailable', 'Service Unavailable', 'the queues are not connected', { code: 503 });
    const payload = await prepareAdjustment(services, {
      applicationId: app,
      customer: param('customer'),
      walletId: param('wallet'),
      body: req.body,
      txnId,
      requestId: String(req.id),
    });
    beginQueueing(res, op.operationKey);
    return unwrapOutcome(
      await jobs.run(JOB.walletTransaction, customerKeyOf(app, payload.customerId), payload, { applicationId: app, ...op }),
    );
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
