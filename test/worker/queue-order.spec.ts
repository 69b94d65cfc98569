import { expect } from 'chai';
import type { JobAnswer } from '../../shared/queue/gateway.js';
import { JOB } from '../../shared/queue/names.js';
import { prepareWalletOperation } from '../../shared/usecases/wallet-operation.usecase.js';
import { createCustomers, createWallet } from '../fixtures/records.js';
import { createTestApplication, startTestApi, type TestApi } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

describe('per-customer queues with two real worker processes', function () {
  this.timeout(120_000);
  let api: TestApi;
  let workers: WorkerProcess[];
  before(async () => {
    api = await startTestApi({}, { inProcessWorker: false });
    workers = await Promise.all([startWorkerProcess(), startWorkerProcess()]);
  });
  after(async () => {
    const codes = await Promise.all(workers.map((w) => w.stop()));
    await api.close();
    expect(codes).to.deep.equal([0, 0]);
  });

  it("when a customer's operations are queued in order, then they are applied one at a time in that order, while other customers run too", async () => {
    const app = await createTestApplication(api.services);
    const customers = await createCustomers(api.services, app.id, ['a', 'b', 'c', 'd', 'e', 'f']);
    const wallet = await createWallet(api.services, app.id);
    const perCustomer = 25;
    const runs: Promise<unknown>[] = [];
    for (let i = 0; i < perCustomer; i++) {
      for (const c of customers) {
        const input = await prepareWalletOperation(api.services, {
          applicationId: app.id,
          sourceId: c.sourceId,
          walletId: 'loyalty',
          body: { type: 'credit', points: 1, description: String(i) },
          txnId: `order-test-${c.id}-${i}`,
          requestId: `r-${i}`,
        });
        // Not awaited: adds are issued in this order on one connection, completions come later.
        runs.push(
          api.jobs.queueAndWait(
            { name: JOB.walletTransaction, customerId: c.id, payload: input },
            { applicationId: app.id, operationKey: input.txnId, fresh: true },
          ),
        );
      }
    }
    const answers = (await Promise.all(runs)) as JobAnswer[];
    expect(answers.every((a) => a.answered && a.outcome.ok)).to.equal(true);
    for (const c of customers) {
      const ledger = await api.services.repos.walletTransactions.listForCustomer(app.id, c.id, wallet.id);
      const bySeq = [...ledger].sort((x, y) => x.seq! - y.seq!);
      expect(bySeq.map((e) => e.description)).to.deep.equal(Array.from({ length: perCustomer }, (_, i) => String(i)));
      expect(bySeq.map((e) => e.after)).to.deep.equal(Array.from({ length: perCustomer }, (_, i) => (i + 1) * 100));
    }
  });
});
