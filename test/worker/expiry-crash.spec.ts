/**
 * A worker SIGKILLed in the middle of an expiry run (docs/wallets.md): the balances it had not
 * settled are settled by the next worker, the ones it had settled are not settled again — every
 * bucket expires exactly once, no balance is left with points past their expiry, every ledger
 * stays chained. Real worker processes, a clock moved through TEST_CLOCK_FILE.
 */
import { expect } from 'chai';
import { testClock } from '../support/test-clock.js';
import { createCustomers } from '../fixtures/records.js';
import { createTestApplication, startTestApi, type TestApi } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

const CUSTOMERS = 400;

describe('worker: a worker killed during an expiry run', function () {
  this.timeout(240_000);
  let api: TestApi;
  const workers: WorkerProcess[] = [];
  const clock = testClock();
  before(async () => {
    api = await startTestApi({}, { inProcessWorker: false });
  });
  after(async () => {
    for (const w of workers) if (w.alive()) await w.kill();
    await api.close();
    clock.remove();
  });

  it('when the worker is SIGKILLed while settle jobs run, then the next worker expires the rest and nothing expires twice', async () => {
    const { services } = api;
    const app = await createTestApplication(services);
    const sourceIds = Array.from({ length: CUSTOMERS }, (_, i) => `exp-${i}`);
    await createCustomers(services, app.id, sourceIds);
    const wallet = await services.repos.wallets.create(app.id, {
      walletId: 'loyalty',
      name: 'Loyalty',
      currency: 'EUR',
      singularUnitName: 'point',
      pluralUnitName: 'points',
      timezone: 'UTC',
      pointsExpiry: { kind: 'after', amount: 1, unit: 'days' },
    });
    const env = { ...clock.env, EXPIRY_SWEEP_MS: '100' };
    workers.push(await startWorkerProcess(env));
    // Each customer gets 10 points expiring a day after the credit.
    const ids = (await services.repos.customers.findBySourceIds(app.id, sourceIds)).map((c) => c.id);
    expect(ids).to.have.length(CUSTOMERS);
    const credit = (sourceId: string) =>
      fetch(`${api.url}/wallets/customer/${sourceId}/transactions/loyalty`, {
        method: 'PUT',
        headers: { authorization: app.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'credit', points: 10 }),
      }).then((r) => expect(r.status).to.equal(200));
    for (let i = 0; i < sourceIds.length; i += 50) await Promise.all(sourceIds.slice(i, i + 50).map(credit));

    const { WalletTransaction, WalletBalance } = services.db.models;
    const expiredCount = () => WalletTransaction.countDocuments({ application: app.id, type: 'expired' });
    // Two days later: every bucket is due.
    clock.ahead(2 * 86_400_000);
    // Killed as soon as the first expiry is posted: the other settle jobs are queued or running.
    while ((await expiredCount()) === 0) await new Promise((r) => setTimeout(r, 5));
    await workers[0]!.kill();
    const settledByTheFirst = await expiredCount();
    expect(settledByTheFirst, 'killed mid-run: some balances settled, not all').to.be.within(1, CUSTOMERS - 1);

    workers.push(await startWorkerProcess(env));
    const deadline = Date.now() + 120_000;
    while ((await expiredCount()) < CUSTOMERS) {
      if (Date.now() > deadline) throw new Error(`only ${await expiredCount()} of ${CUSTOMERS} expired`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Nothing more comes: give the sweep a few more ticks, then count again.
    await new Promise((r) => setTimeout(r, 1000));
    const expired = await WalletTransaction.find({ application: app.id, type: 'expired' }).lean<{ customer: unknown; points: number }[]>();
    expect(expired).to.have.length(CUSTOMERS);
    expect(new Set(expired.map((e) => String(e.customer))).size, 'one expiry per customer').to.equal(CUSTOMERS);
    expect(
      expired.every((e) => e.points === 1000),
      '10 points each (stored in hundredths)',
    ).to.equal(true);
    const balances = await WalletBalance.find({ application: app.id, wallet: wallet.id }).lean<
      { points: number; buckets?: unknown[]; nextDue?: Date }[]
    >();
    expect(balances).to.have.length(CUSTOMERS);
    const left = balances.filter((b) => !(b.points === 0 && (b.buckets ?? []).length === 0 && !b.nextDue));
    expect(left, JSON.stringify(left.slice(0, 2))).to.deep.equal([]);
    for (const id of ids.slice(0, 50)) {
      expect(await services.repos.walletTransactions.sumApplied(app.id, id, wallet.id)).to.equal(0);
    }
    console.log(`      expired ${settledByTheFirst} balances before the kill, ${CUSTOMERS - settledByTheFirst} after, each once`);
  });
});
