import type { RequestHandler } from 'express';
import type { JobGateway } from '../../shared/queue/gateway.js';
import { JOB } from '../../shared/queue/names.js';
import type { Services } from '../../shared/services.js';
import { operationIdOf } from '../../shared/usecases/idempotency.js';
import { prepareWalletOperation, readCustomerWallets } from '../../shared/usecases/wallet-operation.usecase.js';
import { answerQueuedOperation } from './queued-operation.js';
import { setWalletPoints } from '../wallet-points-header.js';

/** GET /wallets/customer/{source_id} */
export function readWalletsRoute(services: Services): RequestHandler {
  return async (req, res) => {
    const read = await readCustomerWallets(services, { applicationId: res.locals.app.id, sourceId: String(req.params.sourceId) });
    setWalletPoints(res, read.buckets);
    res.json(read.wallets);
  };
}

/** PUT /wallets/customer/{source_id}/transactions/{wallet_id}: validate, queue, wait. */
export function walletTransactionRoute(services: Services, jobs: JobGateway): RequestHandler {
  return (req, res) => {
    const sourceId = String(req.params.sourceId);
    const walletId = String(req.params.walletId);
    return answerQueuedOperation(services, jobs, req, res, `wallet:${sourceId}:${walletId}`, async (op) => {
      const applicationId = res.locals.app.id;
      const payload = await prepareWalletOperation(services, {
        applicationId,
        sourceId,
        walletId,
        body: req.body,
        // One operation key, one ledger id: a retry of it collides in the ledger and applies once.
        txnId: operationIdOf(applicationId, op.operationKey),
        requestId: String(req.id),
      });
      return { name: JOB.walletTransaction, customerId: payload.customerId, payload };
    });
  };
}
