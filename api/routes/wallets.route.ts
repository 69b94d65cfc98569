import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { JobGateway } from '../../shared/queue/gateway.js';
import { JOB } from '../../shared/queue/names.js';
import { unwrapOutcome } from '../../shared/queue/outcome.js';
import type { Services } from '../../shared/services.js';
import { checkIdempotencyKey, fingerprintOf, operationIdOf, withIdempotency } from '../../shared/usecases/idempotency.js';
import { prepareWalletOperation, readCustomerWallets } from '../../shared/usecases/wallet-operation.usecase.js';

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
    const sourceId = String(req.params.sourceId);
    const walletId = String(req.params.walletId);
    const body = await withIdempotency(
      services,
      { applicationId: app.id, key, fingerprint: fingerprintOf(`wallet:${sourceId}:${walletId}`, req.body) },
      async () => {
        const input = await prepareWalletOperation(services, {
          applicationId: app.id,
          sourceId,
          walletId,
          body: req.body,
          // With a key, retries of a timed-out request reuse the ledger id and apply once.
          txnId: key ? operationIdOf(app.id, key) : randomUUID(),
          requestId: String(req.id),
        });
        return unwrapOutcome(await jobs.run(JOB.walletTransaction, `${app.id}:${input.customerId}`, input));
      },
    );
    res.json(body);
  };
}
