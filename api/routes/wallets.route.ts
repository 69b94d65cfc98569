import type { RequestHandler } from 'express';
import type { JobGateway } from '../../shared/queue/gateway.js';
import { JOB } from '../../shared/queue/names.js';
import { unwrapOutcome } from '../../shared/queue/outcome.js';
import type { Services } from '../../shared/services.js';
import { checkIdempotencyKey, operationIdOf, operationOf, withIdempotency } from '../../shared/usecases/idempotency.js';
import { prepareWalletOperation, readCustomerWallets } from '../../shared/usecases/wallet-operation.usecase.js';
import { beginQueueing } from '../middleware/limits.js';

/** GET /wallets/customer/{source_id} */
export function readWalletsRoute(services: Services): RequestHandler {
  return async (req, res) => {
    res.json(await readCustomerWallets(services, { applicationId: res.locals.app.id, sourceId: String(req.params.sourceId) }));
  };
}

/** PUT /wallets/customer/{source_id}/transactions/{wallet_id}: validate, queue, wait. */
export function walletTransactionRoute(services: Services, jobs: JobGateway): RequestHandler {
  return async (req, res) => {
    const app = res.locals.app;
    const key = checkIdempotencyKey(req.get('idempotency-key'));
    const op = operationOf(key);
    res.setHeader('Idempotency-Key', op.operationKey);
    const sourceId = String(req.params.sourceId);
    const walletId = String(req.params.walletId);
    const body = await withIdempotency(
      services,
      { applicationId: app.id, key, route: `wallet:${sourceId}:${walletId}`, body: req.body, op },
      async () => {
        const input = await prepareWalletOperation(services, {
          applicationId: app.id,
          sourceId,
          walletId,
          body: req.body,
          // One operation key, one ledger id: a retry of it collides in the ledger and applies once.
          txnId: operationIdOf(app.id, op.operationKey),
          requestId: String(req.id),
        });
        beginQueueing(res, op.operationKey);
        const outcome = await jobs.run(JOB.walletTransaction, `${app.id}:${input.customerId}`, input, { applicationId: app.id, ...op });
        return unwrapOutcome(outcome);
      },
    );
    res.json(body);
  };
}
