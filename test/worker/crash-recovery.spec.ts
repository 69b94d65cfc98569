import { expect } from 'chai';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';
import { createCampaign, createCustomers, createWallet, makeOrder, usageOf } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';

/**
 * A worker killed with SIGKILL in the middle of a burst: its active jobs stall, are re-queued by
 * the stall check and re-run by the surviving worker. Nothing may be lost or applied twice.
 */
describe('a worker killed mid-burst', function () {
  this.timeout(240_000);
  const fastStall = { JOB_LOCK_MS: '2000', STALLED_INTERVAL_MS: '1000' };
  let api: TestApi;
  let workers: WorkerProcess[] = [];
  before(async () => {
    api = await startTestApi({ JOB_WAIT_TIMEOUT_MS: '120000' }, { inProcessWorker: false });
  });
  after(async () => {
    await Promise.all(workers.map((w) => w.stop().catch(() => null)));
    await api.close();
  });

  it('when SIGKILL hits a worker during credits and redeems, then balances and counters match the accepted responses exactly', async () => {
    const app = await createTestApplication(api.services);
    const sourceIds = Array.from({ length: 12 }, (_, i) => `k${i}`);
    const customers = await createCustomers(api.services, app.id, sourceIds);
    const wallet = await createWallet(api.services, app.id);
    const campaign = await createCampaign(api.services, app.id, { code: 'CRASH30', limits: { total: 30 } });
    const victim = await startWorkerProcess(fastStall);
    const survivor = await startWorkerProcess(fastStall);
    workers = [victim, survivor];

    const credits = Array.from({ length: 150 }, (_, i) =>
      call(api.url, 'PUT', `/wallets/customer/${sourceIds[i % sourceIds.length]}/transactions/loyalty`, {
        auth: app.auth,
        body: { type: 'credit', points: (i % 5) + 1 },
      }),
    );
    const redeems = Array.from({ length: 90 }, (_, i) =>
      call(api.url, 'POST', '/coupons/apply?type=redeem', {
        auth: app.auth,
        body: {
          source_id: sourceIds[i % sourceIds.length],
          coupon_details: [{ coupon_id: campaign.id, coupon_code: 'CRASH30' }],
          order: makeOrder(),
        },
      }),
    );
    await new Promise((r) => setTimeout(r, 300));
    await victim.kill();

    const creditResults = await Promise.all(credits);
    const redeemResults = await Promise.all(redeems);
    for (const r of [...creditResults, ...redeemResults]) expect([200, 400], JSON.stringify(r.body)).to.include(r.status);
    expect(creditResults.every((r) => r.status === 200)).to.equal(true);

    // Balances: exactly the sum of the accepted credits, and the ledger agrees.
    for (const c of customers) {
      const accepted = creditResults
        .filter((r, i) => sourceIds[i % sourceIds.length] === c.sourceId)
        .reduce((s, r) => s + r.body.points, 0);
      const read = await call(api.url, 'GET', `/wallets/customer/${c.sourceId}`, { auth: app.auth });
      expect(read.body[0].loyalty_points, c.sourceId).to.equal(accepted);
      const sum = await api.services.repos.walletTransactions.sumApplied(app.id, c.id, wallet.id);
      expect(sum / 100).to.equal(accepted);
    }
    // Counters: exactly the completed redeems, never above the limit.
    const completed = redeemResults.filter((r) => r.status === 200).length;
    expect(completed).to.equal(30);
    expect(await usageOf(api.services, app.id, campaign.id, 'total')).to.equal(completed);
    // And the exactness verifier agrees: every counter and balance re-derived from the journals.
    const report = await verifyApplication(api.services, app.id, { eventGraceMs: 0 });
    expect(report.discrepancies).to.deep.equal([]);
    expect(report.checked.balances).to.equal(12);
  });
});
