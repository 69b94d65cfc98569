import { expect } from 'chai';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, testMongoUri, type TestApi } from '../support/context.js';
import { Relay } from '../support/relay.js';
import { startWorkerProcess, type ServiceProcess } from '../support/service-process.js';

/**
 * A database connection that dies silently — no FIN, no reset: a dead path through a middlebox —
 * is only noticed by the driver's socket timeout. The worker's (DB_SOCKET_TIMEOUT_MS, at most half
 * of JOB_RETRY_BUDGET_MS) gives the dead connection up while the job still has budget left, and
 * the retry goes over a fresh connection, which the relay lets through (a new path). The API talks
 * to the database directly: only the worker's path dies.
 */
describe('a database connection that dies silently (blackholed) under the worker', function () {
  this.timeout(120_000);
  // The test's own settings: the bounds below come from them.
  const budgetMs = 9000;
  const socketTimeoutMs = 3000; // the default rule: a third of the budget
  /** Scheduling on a loaded 2-core machine, a backoff between attempts, the job's own work. */
  const marginMs = 4000;
  let api: TestApi;
  let relay: Relay;
  let worker: ServiceProcess | undefined;

  before(async () => {
    api = await startTestApi({ JOB_WAIT_TIMEOUT_MS: String(budgetMs + marginMs) }, { inProcessWorker: false });
    const direct = new URL(testMongoUri());
    relay = await Relay.start(Number(direct.port));
    const through = new URL(direct.href);
    through.host = `127.0.0.1:${relay.port}`;
    through.searchParams.set('directConnection', 'true');
    worker = await startWorkerProcess({
      MONGODB_URI: through.href,
      JOB_RETRY_BUDGET_MS: String(budgetMs),
      DB_SOCKET_TIMEOUT_MS: String(socketTimeoutMs),
    });
  });
  after(async () => {
    await worker?.kill().catch(() => undefined);
    await relay?.stop();
    await api?.close();
  });

  it('when every open connection of the worker is blackholed mid-operation, then a credit and a redeem answer 200 within one socket timeout plus the retry, each applied once', async () => {
    const app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['bh1']);
    await createWallet(api.services, app.id);
    const campaign = await createCampaign(api.services, app.id, { code: 'BLACKHOLE' });
    const credit = (key: string) =>
      call(api.url, 'PUT', '/wallets/customer/bh1/transactions/loyalty', {
        auth: app.auth,
        body: { type: 'credit', points: 5 },
        headers: { 'Idempotency-Key': key },
      });
    const redeem = (key: string, orderId: string) =>
      call(api.url, 'POST', '/coupons/apply?type=redeem', {
        auth: app.auth,
        body: { source_id: 'bh1', coupon_details: [{ coupon_code: 'BLACKHOLE' }], order: makeOrder({ order_id: orderId }) },
        headers: { 'Idempotency-Key': key },
      });
    // Warm: the worker's pool holds open connections through the relay.
    const warm = await Promise.all([credit('warm-credit'), redeem('warm-redeem', 'bh-order-0')]);
    expect(warm.map((r) => r.status)).to.deep.equal([200, 200]);

    await relay.blackhole();
    const started = Date.now();
    const [credited, redeemed] = await Promise.all([credit('bh-credit'), redeem('bh-redeem', 'bh-order-1')]);
    const tookMs = Date.now() - started;
    console.log(`      blackholed: credit ${credited.status}, redeem ${redeemed.status} after ${tookMs} ms`);
    expect([credited.status, redeemed.status], JSON.stringify([credited.body, redeemed.body])).to.deep.equal([200, 200]);
    expect(credited.body).to.include({ points: 5, loyalty_points: 10, previous_loyalty_points: 5 });
    // The dead connection was met (one socket timeout at least), given up, and the retry went over
    // a fresh path inside the budget. Before the worker had its own socket timeout (60 s, the
    // budget's length) both jobs outlived the budget and the API answered 503.
    expect(tookMs).to.be.at.least(socketTimeoutMs);
    expect(tookMs).to.be.below(budgetMs);

    // Nothing applied twice: the keyed repeats answer the same, and the stored figures are exact.
    const again = await credit('bh-credit');
    expect(again.body).to.deep.include({ txn_id: credited.body.txn_id, loyalty_points: 10 });
    const redeemedAgain = await redeem('bh-redeem', 'bh-order-1');
    expect(redeemedAgain.status).to.equal(200);
    expect((await api.services.repos.redemptions.countByState(campaign.id)).completed).to.equal(2);
    await relay.heal();
  });
});
