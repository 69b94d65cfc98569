import { expect } from 'chai';
import { balanceIdOf } from '../../shared/data/wallet-balance.repository.js';
import { createCustomers, createWallet } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';
import { exitOf, startWorkerProcess, tailOf, type WorkerProcess } from '../support/service-process.js';

/**
 * A worker SIGKILLed at each step of a wallet credit written on what it remembered of the balance
 * (shared/usecases/wallet-ledger.ts: no read, the entry at the remembered slot, the move): the
 * worker kills itself at a named point (WORKER_FAILPOINT) in its second credit of the customer —
 * once the entry is written, or once the balance moved — a second worker, which remembers nothing,
 * re-runs the stalled job, and the credit is posted exactly once: the answer is the credit's, the
 * balance equals its ledger, one entry per credit in slot order.
 */
describe('worker: a wallet credit on a remembered balance killed mid-way', function () {
  this.timeout(240_000);
  /** A dead worker's job is re-queued within a few seconds, as in crash-recovery.spec.ts. */
  const fastStall = { JOB_LOCK_MS: '2000', STALLED_INTERVAL_MS: '1000' };
  let api: TestApi;
  let app: TestApplication;
  const workers: WorkerProcess[] = [];
  before(async () => {
    api = await startTestApi({}, { inProcessWorker: false });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => (w.alive() ? w.stop() : null)));
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['cust-1']);
    await createWallet(api.services, app.id);
  });
  const start = async (env: NodeJS.ProcessEnv = {}) => {
    const w = await startWorkerProcess({ ...fastStall, ...env });
    workers.push(w);
    return w;
  };
  const credit = (points: number, key: string) =>
    call(api.url, 'PUT', '/wallets/customer/cust-1/transactions/loyalty', {
      auth: app.auth,
      headers: { 'idempotency-key': key },
      body: { type: 'credit', points },
    });
  /** The answer, asked again with the same key while it is a 503 (not known in time). */
  async function answerOf(first: ReturnType<typeof credit>, again: () => ReturnType<typeof credit>) {
    let res = await first;
    for (let retries = 0; res.status === 503 && retries < 5; retries++) res = await again();
    return res;
  }

  for (const at of ['ledger-after-entry', 'ledger-after-move'] as const)
    it(`when the worker dies at ${at}, then another worker's re-run posts the credit once`, async () => {
      const victim = await start({ WORKER_FAILPOINT: at });
      victim.deliberatelyEnded = true; // it kills itself: the fault under test
      // The first credit reads the balance (nothing remembered yet) and passes no failpoint.
      const first = await credit(10, 'c-1');
      expect(first.status, first.text).to.equal(200);
      const second = credit(25, 'c-2');
      const ended = await Promise.race([exitOf(victim.child).then(() => 'killed'), second.then(() => 'answered')]);
      expect(ended, `the credit finished without reaching ${at}; the worker's output:\n${tailOf(victim.log)}`).to.equal('killed');
      expect(victim.exit?.signal).to.equal('SIGKILL');
      await start();
      const res = await answerOf(second, () => credit(25, 'c-2'));
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.include({ loyalty_points: 35, previous_loyalty_points: 10, points: 25 });
      // A third credit, by the survivor: its slot follows.
      expect((await credit(5, 'c-3')).body).to.include({ loyalty_points: 40, previous_loyalty_points: 35 });
      const [customer] = await api.services.repos.customers.findBySourceIds(app.id, ['cust-1']);
      if (!customer) throw new Error('cust-1 is missing');
      const wallet = (await api.services.repos.wallets.findByWalletId(app.id, 'loyalty'))!;
      const balance = (await api.services.repos.walletBalances.findById(balanceIdOf(app.id, customer.id, wallet.id)))!;
      const entries = await api.services.db.models.WalletTransaction.find({ application: app.id, customer: customer.id, state: 'posted' })
        .sort({ seq: 1 })
        .lean<{ seq: number; txnId: string; before: number; after: number }[]>();
      expect(entries.map((e) => [e.seq, e.after - e.before])).to.deep.equal([
        [0, 1000],
        [1, 2500],
        [2, 500],
      ]);
      expect([balance.points, balance.version]).to.deep.equal([4000, 3]);
    });
});
