/**
 * A redeem of a completed order as the order's report (docs/wallets.md "A redeem as the order's
 * report"), on a real API and worker: for an application that opted in (`loyalty.earn_on_redeem`),
 * the order earns on what the customer pays, once, under the report's txn id — so a report of the
 * same order answers what the redeem earned — and a revert takes it back. For an application that
 * has not opted in, nothing is earned and the redeem's body is the documented one.
 */
import { expect } from 'chai';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { startTestApi, type TestApi } from '../support/context.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';

describe('a redeem of a completed order earns as its report, for an application that opted in', function () {
  this.timeout(60_000);
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  });
  after(async () => {
    await api.close();
  });
  const { admin, client, must, newApp } = adminHelpers(() => api);
  let seq = 0;
  const code = () => `EARN${process.pid}X${++seq}`;

  /** 1 point per 10.00 of the selling subtotal; a second wallet earning 1 point per 1.00 of shipping. */
  async function shop(opts: { optIn?: boolean; stacking?: boolean } = {}) {
    const app = await newApp();
    if (opts.optIn !== false) {
      const patched = await must('PATCH', `/applications/${app.id}`, {
        loyalty: { earn_on_redeem: true },
        ...(opts.stacking ? { stacking: { max_coupons: 2 } } : {}),
      });
      expect(patched.loyalty).to.deep.equal({ earn_on_redeem: true });
    }
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
    // An endpoint, so that events are recorded (nothing listens there).
    await must('POST', `/applications/${app.id}/webhooks`, { url: 'http://127.0.0.1:9/hooks' });
    await must('POST', `/applications/${app.id}/wallets`, {
      wallet_id: 'loyalty',
      earning_rules: [{ name: 'Base points', points: 1, per: 10 }],
    });
    await must('POST', `/applications/${app.id}/wallets`, {
      wallet_id: 'miles',
      earning_rules: [{ name: 'Shipping miles', earned_on: 'shipping', points: 1, per: 1 }],
    });
    const campaign = async (discount: Record<string, unknown>, more: Record<string, unknown> = {}) =>
      (await must('POST', `/applications/${app.id}/campaigns`, { name: `C${seq}`, code: code(), discount, ...more })).code as string;
    return { app, campaign };
  }
  const order = (order_id: string, status = 'completed') => ({
    order_id,
    status,
    selling_price_subtotal: 123.45,
    original_price_subtotal: 123.45,
    shipping: 7,
    items: [{ product_id: 'p1', selling_price: 123.45, original_price: 123.45, quantity: 1, shipping: 7 }],
  });
  const apply = async (app: AdminApp, type: 'redeem' | 'revert', codes: string[], o: Record<string, unknown>) => {
    const res = await client(app, 'POST', `/coupons/apply?type=${type}`, {
      source_id: 'c1',
      coupon_details: codes.map((coupon_code) => ({ coupon_code })),
      order: o,
    });
    expect(res.status, res.text).to.equal(200);
    return res;
  };
  const balances = async (app: AdminApp) =>
    Object.fromEntries(
      ((await client(app, 'GET', '/wallets/customer/c1')).body as any[]).map((w) => [w.wallet_id, w.loyalty_points as number]),
    );
  const ledger = async (app: AdminApp, wallet = 'loyalty') =>
    ((await must('GET', `/applications/${app.id}/customers/c1/wallets/${wallet}/ledger?limit=100`)).entries as any[]).map((e) => [
      e.txn_id,
      e.type,
      e.points,
      e.origin,
    ]);

  it('when a completed order is redeemed with 10% off, then it earns on what is paid (111.10: 11 points), once; a report of it answers the same', async () => {
    const { app, campaign } = await shop();
    const ten = await campaign({ kind: 'discount', type: 'percentage', value: 10 });
    const redeemed = await apply(app, 'redeem', [ten], order('o-1'));
    assertMatchesSpec('post', '/coupons/apply', 200, redeemed.body);
    expect(Object.keys(redeemed.body).sort()).to.deep.equal(['couponId', 'coupon_code', 'orderId', 'request_id', 'status']);
    expect(await balances(app)).to.deep.equal({ loyalty: 11, miles: 7 });
    await apply(app, 'redeem', [ten], order('o-1')); // the order is redeemed already: nothing earned twice
    const reported = await client(app, 'POST', '/wallets/customer/c1/orders/loyalty', { order: order('o-1') });
    expect(reported.body).to.deep.include({ points: 11, txn_id: 'order:loyalty:o-1', previous_loyalty_points: 0, loyalty_points: 11 });
    expect(await ledger(app)).to.deep.equal([['order:loyalty:o-1', 'credit', 11, 'order']]);
    // The redemption's event, then the order's earning in each wallet, once each whatever the repeats.
    const events = ((await must('GET', `/applications/${app.id}/events?limit=100`)).events as any[]).sort(
      (a, b) => a.sequence - b.sequence,
    );
    expect(events.map((e) => [e.type, e.data.wallet_id ?? null, e.data.txn_id ?? null, e.data.points ?? null])).to.deep.equal([
      ['redemption.completed', null, null, null],
      ['wallet.transaction.completed', 'loyalty', 'order:loyalty:o-1', 11],
      ['wallet.transaction.completed', 'miles', 'order:miles:o-1', 7],
    ]);
  });

  it('when the redeem is reverted, then what the order earned is taken back, and a later report of it earns nothing', async () => {
    const { app, campaign } = await shop();
    const ten = await campaign({ kind: 'discount', type: 'percentage', value: 10 });
    await apply(app, 'redeem', [ten], order('o-2'));
    await apply(app, 'revert', [ten], order('o-2', 'reverted'));
    expect(await balances(app)).to.deep.equal({ loyalty: 0, miles: 0 });
    expect(await ledger(app)).to.deep.equal([
      ['order:loyalty:o-2', 'credit', 11, 'order'],
      ['order-return:loyalty:o-2', 'debit', 11, 'order_return'],
    ]);
    await apply(app, 'revert', [ten], order('o-2', 'reverted')); // a repeat takes back nothing more
    expect((await ledger(app)).length).to.equal(2);
    const events = ((await must('GET', `/applications/${app.id}/events?limit=100`)).events as any[]).sort(
      (a, b) => a.sequence - b.sequence,
    );
    expect(events.map((e) => [e.type, e.data.txn_id ?? null, e.data.origin ?? null])).to.deep.equal([
      ['redemption.completed', null, null],
      ['wallet.transaction.completed', 'order:loyalty:o-2', 'order'],
      ['wallet.transaction.completed', 'order:miles:o-2', 'order'],
      ['redemption.reverted', null, null],
      ['wallet.transaction.completed', 'order-return:loyalty:o-2', 'order_return'],
      ['wallet.transaction.completed', 'order-return:miles:o-2', 'order_return'],
    ]);
    expect((await verifyApplication(api.services, app.id)).discrepancies).to.deep.equal([]);
  });

  it('when a pending order is redeemed, then nothing is earned until the storefront reports it completed', async () => {
    const { app, campaign } = await shop();
    const ten = await campaign({ kind: 'discount', type: 'percentage', value: 10 });
    await apply(app, 'redeem', [ten], order('o-3', 'pending'));
    expect(await balances(app)).to.deep.equal({ loyalty: 0, miles: 0 });
    const reported = await client(app, 'POST', '/wallets/customer/c1/orders/loyalty', {
      order: { ...order('o-3'), selling_price_subtotal: 111.1 },
    });
    expect(reported.body).to.deep.include({ points: 11 });
  });

  it('when two coupons stack, one of them free shipping, then the goods earn on the subtotal less the goods discount and the shipping on what is left of it', async () => {
    const { app, campaign } = await shop({ stacking: true });
    const five = await campaign({ kind: 'discount', type: 'flat', value: 23.45 });
    const shipping = await campaign({ kind: 'discount', type: 'free_shipping' });
    await apply(app, 'redeem', [five, shipping], order('o-4'));
    // 123.45 − 23.45 = 100.00: 10 points; shipping 7.00 − 7.00 = 0: no miles (nothing written).
    expect(await balances(app)).to.deep.equal({ loyalty: 10, miles: 0 });
    expect(await ledger(app, 'miles')).to.deep.equal([]);
    await apply(app, 'revert', [five], order('o-4', 'reverted'));
    expect(await balances(app)).to.deep.equal({ loyalty: 0, miles: 0 });
  });

  it('when the application has not opted in, then a redeem earns nothing and the setting reads false', async () => {
    const { app, campaign } = await shop({ optIn: false });
    const listed = (await must('GET', '/applications?limit=1000')).applications.find((a: any) => a.id === app.id);
    expect(listed.loyalty).to.deep.equal({ earn_on_redeem: false });
    const ten = await campaign({ kind: 'discount', type: 'percentage', value: 10 });
    const redeemed = await apply(app, 'redeem', [ten], order('o-5'));
    expect(Object.keys(redeemed.body).sort()).to.deep.equal(['couponId', 'coupon_code', 'orderId', 'request_id', 'status']);
    expect(await balances(app)).to.deep.equal({ loyalty: 0, miles: 0 });
    const wrong = await admin('PATCH', `/applications/${app.id}`, { loyalty: { earn_on_redeem: 'yes' } });
    expect(wrong.status, wrong.text).to.equal(400);
  });

  it('when a campaign multiplies points, then the order earns that many times on what is paid; with several, the highest; 0 earns none', async () => {
    const { app, campaign } = await shop({ stacking: true });
    const double = await campaign({ kind: 'discount', type: 'percentage', value: 10 }, { earning_multiplier: 2 });
    const listed = (await must('GET', `/applications/${app.id}/campaigns?limit=100`)).campaigns as any[];
    expect(listed.find((c) => c.code === double).earning_multiplier).to.equal(2);
    await apply(app, 'redeem', [double], order('m-1'));
    expect((await balances(app)).loyalty, '111.10 paid: 11.11 × 2 = 22.22, down').to.equal(22);
    const triple = await campaign({ kind: 'discount', type: 'flat', value: 1 }, { earning_multiplier: 1.5 });
    await apply(app, 'redeem', [triple, double], order('m-2'));
    // 123.45 − 12.35 (10 %) − 1.00 = 110.10: 11.01 × 2 = 22.02, down: 22.
    expect((await balances(app)).loyalty).to.equal(44);
    const app2 = await shop();
    await apply(
      app2.app,
      'redeem',
      [await app2.campaign({ kind: 'discount', type: 'flat', value: 2 }, { earning_multiplier: 0 })],
      order('m-3'),
    );
    expect(await balances(app2.app)).to.deep.equal({ loyalty: 0, miles: 0 });
    const wrong = await admin('POST', `/applications/${app.id}/campaigns`, {
      name: 'x',
      code: code(),
      discount: { kind: 'discount', type: 'flat', value: 1 },
      earning_multiplier: -1,
    });
    expect(wrong.status, wrong.text).to.equal(400);
  });
});
