import { expect } from 'chai';
import { campaignResults, CsvAnswer } from '../../shared/usecases/admin/results.usecase.js';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';
import { createCampaign, createCustomers, createWallet, makeOrder, usageOf } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi } from '../support/context.js';
import { startWorkerProcess, type WorkerProcess } from '../support/service-process.js';
import { checkHistory, hundredths, plantedDefects, type History } from '../support/linearizability.js';

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

    /** A request with its invocation and completion instants (the history the checker reads). */
    const timed = async (send: () => ReturnType<typeof call>) => {
      const at = Date.now();
      const res = await send();
      return Object.assign(res, { call: at, ret: Date.now() });
    };
    const credits = Array.from({ length: 150 }, (_, i) =>
      timed(() =>
        call(api.url, 'PUT', `/wallets/customer/${sourceIds[i % sourceIds.length]}/transactions/loyalty`, {
          auth: app.auth,
          body: { type: 'credit', points: (i % 5) + 1 },
        }),
      ),
    );
    const orders = Array.from({ length: 90 }, () => makeOrder());
    const redeems = orders.map((order, i) =>
      timed(() =>
        call(api.url, 'POST', '/coupons/apply?type=redeem', {
          auth: app.auth,
          body: { source_id: sourceIds[i % sourceIds.length], coupon_details: [{ coupon_id: campaign.id, coupon_code: 'CRASH30' }], order },
        }),
      ),
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
    // The campaign's results (docs/results.md) count exactly the accepted redeems and their baskets (1000 each).
    const results = await campaignResults(api.services, app.id, campaign.id, {});
    if (results instanceof CsvAnswer) throw new Error('JSON results expected');
    expect(results.totals).to.include({ redemptions: completed, reverts: 0, basket: completed * 1000 });
    expect(report.checked.balances).to.equal(12);
    // Every answer is one a correct service could give (docs/reliability.md, "Linearizability"), and lies planted in this history are caught.
    const history: History = { coupon: { limit: 30, ops: [] }, wallets: {} };
    redeemResults.forEach((r, i) =>
      history.coupon!.ops.push({
        client: i % sourceIds.length,
        kind: 'redeem',
        key: orders[i]!.order_id,
        call: r.call,
        ret: r.ret,
        outcome: r.status === 200 ? 'ok' : 'refused',
      }),
    );
    creditResults.forEach((r, i) =>
      (history.wallets[sourceIds[i % sourceIds.length]!] ??= []).push({
        client: i % sourceIds.length,
        kind: 'credit',
        points: hundredths((i % 5) + 1),
        call: r.call,
        ret: r.ret,
        outcome: 'ok',
        before: hundredths(r.body.previous_loyalty_points),
        after: hundredths(r.body.loyalty_points),
      }),
    );
    expect(checkHistory(history).linearizable, 'linearizable').to.equal(true);
    for (const planted of plantedDefects(history)) expect(checkHistory(planted.history).linearizable, planted.name).to.equal(false);
  });
});
