import { expect } from 'chai';
import { createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, TEST_ADMIN_TOKEN, type TestApi, type TestApplication } from '../support/context.js';
import { WebhookReceiver, waitFor, type Received } from '../support/webhook-receiver.js';

const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
/** Loopback allowed explicitly; retries fast so a test sees several. */
const FAST = {
  WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
  WEBHOOK_RETRY_BASE_MS: '200',
  WEBHOOK_RETRY_MAX_MS: '1000',
  WEBHOOK_MAX_ATTEMPTS: '40',
  WEBHOOK_TIMEOUT_MS: '1500',
};

async function registerEndpoint(api: TestApi, app: TestApplication, url: string, body: Record<string, unknown> = {}) {
  const res = await call(api.url, 'POST', `/admin/applications/${app.id}/webhooks`, { auth: ADMIN, body: { url, ...body } });
  expect(res.status, res.text).to.equal(201);
  return res.body as { id: string; secret: string };
}

/** First arrival of each event id, in arrival order. */
const firstArrivals = (received: Received[]) => {
  const seen = new Set<string>();
  return received.filter((r) => r.status < 300 && !seen.has(r.json.id) && seen.add(r.json.id));
};

describe('webhook delivery', function () {
  this.timeout(120_000);
  let api: TestApi;
  let receiver: WebhookReceiver;
  before(async () => {
    api = await startTestApi(FAST);
  });
  beforeEach(async () => {
    receiver = await new WebhookReceiver().up();
  });
  afterEach(async () => {
    await receiver.down();
  });
  after(async () => {
    await api.close();
  });

  it('when a burst of redeems, refusals, reverts, cashbacks and wallet updates runs, then every event arrives once, signed, in each customer order', async () => {
    const app = await createTestApplication(api.services);
    const sourceIds = ['b0', 'b1', 'b2', 'b3'];
    await createCustomers(api.services, app.id, sourceIds);
    await createWallet(api.services, app.id);
    const limited = await createCampaign(api.services, app.id, { code: 'BURST10', limits: { total: 6 } });
    const cashback = await createCampaign(api.services, app.id, {
      code: 'BURSTCB',
      discount: { kind: 'cashback', type: 'flat', value: 2500, maxCents: null, walletId: 'loyalty' },
    });
    const endpoint = await registerEndpoint(api, app, receiver.url);

    const apply = (type: string, sourceId: string, code: string, couponId: string, order: object) =>
      call(api.url, 'POST', `/coupons/apply?type=${type}`, {
        auth: app.auth,
        body: { source_id: sourceId, coupon_details: [{ coupon_id: couponId, coupon_code: code }], order },
      });
    const credit = (sourceId: string, points: number) =>
      call(api.url, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, { auth: app.auth, body: { type: 'credit', points } });

    const orders = sourceIds.map(() => [makeOrder(), makeOrder(), makeOrder()]);
    const cbOrders = sourceIds.map(() => makeOrder());
    const phase1 = await Promise.all([
      ...sourceIds.flatMap((s, i) => [credit(s, 10 + i), credit(s, 1.5)]),
      ...sourceIds.flatMap((s, i) => orders[i]!.map((o) => apply('redeem', s, 'BURST10', limited.id, o))),
      ...sourceIds.map((s, i) => apply('redeem', s, 'BURSTCB', cashback.id, cbOrders[i]!)),
    ]);
    const phase2 = await Promise.all(
      sourceIds.flatMap((s, i) => [
        apply('revert', s, 'BURSTCB', cashback.id, cbOrders[i]!),
        apply('revert', s, 'BURST10', limited.id, orders[i]![0]!),
      ]),
    );
    const all = [...phase1, ...phase2];
    for (const r of all) expect([200, 400], r.text).to.include(r.status);
    const limitedRedeems = phase1.slice(8, 20);
    expect(limitedRedeems.filter((r) => r.status === 200)).to.have.length(6);
    const expected =
      8 + // credits
      6 + // completed limited redeems
      6 + // refused limited redeems
      4 * 2 + // cashback redeems and their credits
      4 * 2 + // cashback reverts and their debits
      phase2.filter((r, i) => i % 2 === 1 && r.status === 200).length; // reverts of limited redeems that had completed

    await waitFor(`${expected} events`, () => new Set(receiver.accepted.map((r) => r.json.id)).size >= expected, 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    const events = firstArrivals(receiver.received).map((r) => r.json);
    expect(events).to.have.length(expected);
    expect(receiver.allSigned(endpoint.secret), 'every signature verifies').to.equal(true);
    // Every copy of an event carries the id and the bytes of the first.
    for (const r of receiver.received) expect(r.body).to.equal(receiver.received.find((x) => x.json.id === r.json.id)!.body);
    const byType = (t: string) => events.filter((e) => e.type === t);
    expect(byType('redemption.refused')).to.have.length(6);
    expect(byType('redemption.refused')[0].data).to.include({ reason: 'total_limit', message: 'coupon validation failed' });
    expect(byType('redemption.completed').filter((e) => e.data.coupon_code === 'BURST10')[0].data).to.include({
      discount: 100,
      cashback: 0,
      currency: 'INR',
      status: 'completed',
    });
    // Per customer: sequence increases in arrival order, and each wallet event starts where the last ended.
    for (const s of sourceIds) {
      const mine = events.filter((e) => e.data.source_id === s);
      const sequences = mine.map((e) => e.sequence);
      expect(sequences, s).to.deep.equal([...sequences].sort((a, b) => a - b));
      let balance = 0;
      for (const w of mine.filter((e) => e.type === 'wallet.transaction.completed')) {
        expect(w.data.previous_loyalty_points, `${s} ${w.data.txn_id}`).to.equal(balance);
        balance = w.data.loyalty_points;
      }
      const read = await call(api.url, 'GET', `/wallets/customer/${s}`, { auth: app.auth });
      expect(read.body[0].loyalty_points).to.equal(balance);
    }
  });
});
