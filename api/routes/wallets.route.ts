import type { RequestHandler } from 'express';
import type { JobGateway } from '../../shared/queue/gateway.js';
import type { Services } from '../../shared/services.js';
import { prepareWalletJob, readCustomerWallets } from '../../shared/usecases/wallet-operation.usecase.js';
import { answerQueuedOperation } from './queued-operation.js';
import { setWalletPoints } from '../wallet-points-header.js';
import { setWalletTier } from '../wallet-tier-header.js';
import { prepareOrderReport } from '../../shared/usecases/order-report.usecase.js';

/** GET /wallets/customer/{source_id} */
export function readWalletsRoute(services: Services): RequestHandler {
  return async (req, res) => {
    const read = await readCustomerWallets(services, { applicationId: res.locals.app.id, sourceId: String(req.params.sourceId) });
    setWalletPoints(res, read.buckets);
    setWalletTier(res, read.tiers);
    res.json(read.wallets);
  };
}

/** PUT /wallets/customer/{source_id}/transactions/{wallet_id}: checked, queued on the customer's partition, answered by its job. */
export function walletTransactionRoute(services: Services, jobs: JobGateway): RequestHandler {
  return (req, res) => {
    const applicationId = res.locals.app.id;
    const sourceId = String(req.params.sourceId);
    const walletId = String(req.params.walletId);
    return answerQueuedOperation(services, jobs, req, res, {
      applicationId,
      route: `wallet:${sourceId}:${walletId}`,
      prepare: (op) => prepareWalletJob(services, { applicationId, sourceId, walletId, body: req.body, requestId: String(req.id) }, op),
    });
  };
}

/**
 * POST /wallets/customer/{source_id}/orders/{wallet_id}: an order completed earns what the wallet's
 * earning rules give it, an order returned gives it back (docs/wallets.md); queued on the
 * customer's partition, exactly once per order whatever the repeats.
 */
export function orderReportRoute(services: Services, jobs: JobGateway): RequestHandler {
  return (req, res) => {
    const applicationId = res.locals.app.id;
    const sourceId = String(req.params.sourceId);
    const walletId = String(req.params.walletId);
    return answerQueuedOperation(services, jobs, req, res, {
      applicationId,
      route: `order:${sourceId}:${walletId}`,
      prepare: () => prepareOrderReport(services, { applicationId, sourceId, walletId, body: req.body, requestId: String(req.id) }),
    });
  };
}
