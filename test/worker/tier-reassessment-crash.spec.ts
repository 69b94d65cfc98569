/**
 * A worker SIGKILLed in the middle of a tier re-assessment run (docs/wallets.md "Tiers"): the
 * customers it had not re-assessed are re-assessed by the next worker, the ones it had are not
 * re-assessed again — one re-assessment entry per customer and period end, every tier where the
 * rules put it, every ledger chained. Real worker processes, a clock moved through TEST_CLOCK_FILE.
 */
import { expect } from 'chai';
import { testClock } from '../support/test-clock.js';
import { createCustomers } from '../fixtures/records.js';
import { createTestApplication, startTestApi, type TestApi } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';

const CUSTOMERS = 400;

describe('worker: a worker killed during a tier re-assessment run', function () {
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

  it('when the worker is SIGKILLed while re-assessments run, then the next worker re-assesses the rest and no customer twice', async () => {
    const { services } = api;
    const app = await createTestApplication(services);
    const sourceIds = Array.from({ length: CUSTOMERS }, (_, i) => `tier-${i}`);
    await createCustomers(services, app.id, sourceIds);
    const wallet = await services.repos.wallets.create(app.id, {
      walletId: 'loyalty',
      name: 'Loyalty',
      currency: 'EUR',
      singularUnitName: 'point',
      pluralUnitName: 'points',
      timezone: 'UTC',
      tiers: {
        basis: { kind: 'calendar', period: 'month' },
        levels: [
          { name: 'Member', minHundredths: 0, multiplier: 100 },
          { name: 'Silver', minHundredths: 100_000, multiplier: 125 },
        ],
      },
    });
    const env = { ...clock.env, EXPIRY_SWEEP_MS: '100' };
    workers.push(await startWorkerProcess(env));
    // Each customer earns 1500 points this month: Silver, re-assessed at the month's end.
    const credit = (sourceId: string) =>
      fetch(`${api.url}/wallets/customer/${sourceId}/transactions/loyalty`, {
        method: 'PUT',
        headers: { authorization: app.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'credit', points: 1500 }),
      }).then((r) => expect(r.status).to.equal(200));
    for (let i = 0; i < sourceIds.length; i += 50) await Promise.all(sourceIds.slice(i, i + 50).map(credit));

    const { WalletTransaction, WalletBalance } = services.db.models;
    const [first] = await WalletBalance.find({ application: app.id }).limit(1).lean<{ tier: { until: Date } }[]>();
    const monthEnd = new Date(first!.tier.until);
    const nextMonthEnd = new Date(Date.UTC(monthEnd.getUTCFullYear(), monthEnd.getUTCMonth() + 1, 1));
    const reassessed = () => WalletTransaction.countDocuments({ application: app.id, type: 'tier' });
    // Two days into next month: every customer's re-assessment is due (one period end each).
    clock.ahead(monthEnd.getTime() + 2 * 86_400_000 - Date.now());
    // Killed as soon as the first re-assessment is posted: the other settle jobs are queued or running.
    while ((await reassessed()) === 0) await new Promise((r) => setTimeout(r, 5));
    await workers[0]!.kill();
    const byTheFirst = await reassessed();
    expect(byTheFirst, 'killed mid-run: some customers re-assessed, not all').to.be.within(1, CUSTOMERS - 1);

    workers.push(await startWorkerProcess(env));
    const deadline = Date.now() + 120_000;
    while ((await reassessed()) < CUSTOMERS) {
      if (Date.now() > deadline) throw new Error(`only ${await reassessed()} of ${CUSTOMERS} re-assessed`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Nothing more comes: give the sweep a few more ticks, then count again.
    await new Promise((r) => setTimeout(r, 1000));
    const entries = await WalletTransaction.find({ application: app.id, type: 'tier' }).lean<
      { customer: unknown; txnId: string; points: number; before: number; after: number }[]
    >();
    expect(entries).to.have.length(CUSTOMERS);
    expect(new Set(entries.map((e) => String(e.customer))).size, 'one re-assessment per customer').to.equal(CUSTOMERS);
    expect(
      entries.every((e) => e.txnId === `tier:${wallet.id}:${monthEnd.toISOString()}` && e.points === 0 && e.before === e.after),
      'each for the month end, moving no points',
    ).to.equal(true);
    const balances = await WalletBalance.find({ application: app.id, wallet: wallet.id }).lean<
      { points: number; version: number; tier: { level: string; held: string; until: Date }; nextDue?: Date }[]
    >();
    expect(balances).to.have.length(CUSTOMERS);
    const wrong = balances.filter(
      (b) =>
        !(
          b.points === 150_000 &&
          b.version === 2 &&
          b.tier.level === 'Silver' &&
          b.tier.held === 'Silver' &&
          new Date(b.tier.until).getTime() === nextMonthEnd.getTime() &&
          b.nextDue?.getTime() === nextMonthEnd.getTime()
        ),
    );
    expect(wrong, JSON.stringify(wrong.slice(0, 2))).to.deep.equal([]);
    expect((await verifyApplication(services, app.id)).discrepancies, 'every balance and tier equals its ledger').to.deep.equal([]);
    console.log(`      re-assessed ${byTheFirst} customers before the kill, ${CUSTOMERS - byTheFirst} after, each once`);
  });
});
