/**
 * Earning caps per period (docs/wallets.md "Caps per period"), on a real API and worker: a rule's
 * cap per calendar period of the wallet's timezone bounds what a customer earns under it — exactly,
 * whatever races; a return gives back what its order counted; the next period starts afresh at the
 * wallet's midnight (the test clock moves the time of every process: TEST_CLOCK_FILE).
 */
import { expect } from 'chai';
import { testClock } from '../support/test-clock.js';
import { Types } from 'mongoose';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { startTestApi, type TestApi } from '../support/context.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';

describe('earning caps per period: a customer earns at most the cap in each period of the wallet', function () {
  this.timeout(60_000);
  let api: TestApi;
  const clock = testClock();
  const clockAt = clock.at;
  before(async () => {
    api = await startTestApi(clock.env);
  });
  afterEach(() => clock.ahead(0));
  after(async () => {
    await api?.close();
    clock.remove();
  });
  const { admin, client, must, newApp } = adminHelpers(() => api);

  /** 1 point per 10.00, at most 25 a month; and 1 point per order of any size (no cap). */
  const CAPPED = { name: 'Base points', points: 1, per: 10, max_per_period: { points: 25, period: 'month' } };
  const order = (order_id: string, status = 'completed', subtotal = 123.45) => ({
    order_id,
    status,
    selling_price_subtotal: subtotal,
    original_price_subtotal: subtotal,
    items: [{ product_id: 'p1', selling_price: subtotal, original_price: subtotal, quantity: 1 }],
  });
  async function shop(rules: unknown[] = [CAPPED], timezone = 'America/New_York'): Promise<AdminApp> {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'loyalty', timezone, earning_rules: rules });
    return app;
  }
  const report = async (app: AdminApp, o: unknown) => {
    const res = await client(app, 'POST', '/wallets/customer/c1/orders/loyalty', { order: o });
    expect(res.status, res.text).to.equal(200);
    assertMatchesSpec('post', '/wallets/customer/{source_id}/orders/{wallet_id}', 200, res.body);
    return res.body as { points: number; txn_id: string | null; loyalty_points: number | null };
  };
  const balance = async (app: AdminApp) => (await client(app, 'GET', '/wallets/customer/c1')).body[0].loyalty_points as number;
  const explain = async (app: AdminApp, body: Record<string, unknown>) => {
    const res = await admin('POST', `/applications/${app.id}/wallets/loyalty/earning/explain`, body);
    expect(res.status, res.text).to.equal(200);
    assertMatchesSpec('POST', '/admin/applications/{app}/wallets/{wallet_id}/earning/explain', 200, res.body);
    return res.body;
  };

  it('when orders pass the monthly cap, then the last one earns what is left and the next nothing; the rule reads back with its cap', async () => {
    const app = await shop();
    const [wallet] = (await must('GET', `/applications/${app.id}/wallets`)).wallets;
    expect(wallet.earning_rules[0].max_per_period).to.deep.equal({ points: 25, period: 'month' });
    expect((await report(app, order('o-1'))).points).to.equal(12);
    expect((await report(app, order('o-2'))).points).to.equal(12);
    expect((await report(app, order('o-3'))).points, '1 left of 25').to.equal(1);
    const over = await report(app, order('o-4'));
    expect(over, 'the cap is used up: nothing moves').to.deep.include({ points: 0, txn_id: null, loyalty_points: null });
    expect(await balance(app)).to.equal(25);
    // A repeat of the capped order answers the same: its decision is recorded.
    expect(await report(app, order('o-4'))).to.deep.include({ points: 0, txn_id: null });
    const explained = await explain(app, { order: order('o-5'), customer: 'c1' });
    expect(explained.points).to.equal(0);
    expect(explained.rules[0].steps.at(-1)).to.deep.equal({ step: 'period_cap', points: 0, limited: true });
    expect(explained.rules[0].period.left).to.equal(0);
    expect((await explain(app, { order: order('o-5') })).points, 'a customer not named: as one who earned nothing yet').to.equal(12);
  });

  it('when an order is returned, then what it counted is given back to the cap, and the next order earns again', async () => {
    const app = await shop();
    await report(app, order('o-1'));
    await report(app, order('o-2'));
    expect((await report(app, order('o-3'))).points).to.equal(1);
    const back = await client(app, 'POST', '/wallets/customer/c1/orders/loyalty', { order: { order_id: 'o-2', status: 'returned' } });
    expect(back.body).to.deep.include({ points: 12, loyalty_points: 13 });
    expect((await explain(app, { order: order('x'), customer: 'c1' })).rules[0].period.left).to.equal(12);
    expect((await report(app, order('o-4'))).points).to.equal(12);
    expect(await balance(app)).to.equal(25);
    const ledger = (await must('GET', `/applications/${app.id}/customers/c1/wallets/loyalty/ledger?limit=100`)).entries as any[];
    expect(ledger.map((e) => [e.txn_id, e.type, e.points])).to.deep.equal([
      ['order:loyalty:o-1', 'credit', 12],
      ['order:loyalty:o-2', 'credit', 12],
      ['order:loyalty:o-3', 'credit', 1],
      ['order-return:loyalty:o-2', 'debit', 12],
      ['order:loyalty:o-4', 'credit', 12],
    ]);
  });

  it('when 16 different orders race against the cap, then together they earn exactly the cap', async () => {
    const app = await shop();
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => report(app, order(`race-${i}`))));
    const earned = answers.map((a) => a.points);
    expect(
      earned.reduce((a, b) => a + b, 0),
      JSON.stringify(earned),
    ).to.equal(25);
    expect(earned.filter((p) => p > 0).sort((a, b) => a - b)).to.deep.equal([1, 12, 12]);
    expect(await balance(app)).to.equal(25);
    const verified = await verifyApplication(api.services, app.id);
    expect(verified.discrepancies).to.deep.equal([]);
  });

  it('when a balance counts more than its entries counted, then the verifier reports the counter with both figures', async () => {
    const app = await shop();
    await report(app, order('o-1'));
    await client(app, 'POST', '/wallets/customer/c1/orders/loyalty', { order: { order_id: 'o-1', status: 'returned' } });
    await report(app, order('o-2'));
    expect((await verifyApplication(api.services, app.id)).discrepancies, 'earned 12, returned 12, earned 12').to.deep.equal([]);
    const Balance = api.services.db.models.WalletBalance.collection;
    const planted = await Balance.findOneAndUpdate(
      { application: new Types.ObjectId(app.id) },
      { $inc: { 'periodCounters.0.hundredths': 300 } },
    );
    const [d, ...rest] = (await verifyApplication(api.services, app.id)).discrepancies;
    expect(rest).to.deep.equal([]);
    expect(d).to.deep.include({ kind: 'period_counter_mismatch', expected: 1200, found: 1500 });
    expect(d!.documents).to.deep.equal([{ collection: 'wallet_balances', id: planted!._id }]);
  });

  it("when the month ends at the wallet's midnight, then the cap starts afresh — not at UTC's", async () => {
    const app = await shop();
    clockAt('2026-12-31T23:00:00-05:00'); // New York, still December (04:00 UTC on 1 January)
    await report(app, order('dec-1'));
    await report(app, order('dec-2'));
    expect((await report(app, order('dec-3'))).points).to.equal(1);
    clockAt('2026-12-31T23:59:00-05:00');
    expect((await report(app, order('dec-4'))).points, 'UTC is in January already; New York is not').to.equal(0);
    clockAt('2027-01-01T00:01:00-05:00');
    expect((await report(app, order('jan-1'))).points, 'a new month in New York').to.equal(12);
    const explained = await explain(app, { order: order('x'), customer: 'c1' });
    expect(explained.rules[0].period).to.deep.equal({ period: '2027-01', left: 13 });
    // December's return gives back to December's counter, which is gone: January's stays.
    await client(app, 'POST', '/wallets/customer/c1/orders/loyalty', { order: { order_id: 'dec-1', status: 'returned' } });
    expect((await explain(app, { order: order('x'), customer: 'c1' })).rules[0].period.left).to.equal(13);
  });

  it('when a capped rule and an uncapped one earn on the same order, then only the capped one stops at its cap', async () => {
    const perOrder = { name: 'Every 100.00', points: 1, per: 100 };
    const weekly = { ...CAPPED, max_per_period: { points: 20, period: 'week' } };
    const app = await shop([weekly, perOrder]);
    expect((await report(app, order('w-1'))).points).to.equal(12 + 1);
    expect((await report(app, order('w-2'))).points, '8 left of 20, and the uncapped point').to.equal(8 + 1);
    expect((await report(app, order('w-3'))).points).to.equal(1);
    expect(await balance(app)).to.equal(23);
  });

  it('when a cap is wrong, then 400 naming the field, and nothing is stored', async () => {
    const app = await shop([]);
    for (const max_per_period of [{ points: 10, period: 'fortnight' }, { points: 0, period: 'day' }, { period: 'day' }, 25]) {
      const res = await admin('PATCH', `/applications/${app.id}/wallets/loyalty`, { earning_rules: [{ ...CAPPED, max_per_period }] });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.details ?? res.body.message, res.text).to.match(/earning_rules\[0\]\.max_per_period/);
    }
    const res = await admin('POST', `/applications/${app.id}/wallets/loyalty/earning/explain`, { order: order('x'), customer: 'nobody' });
    expect(res.status, res.text).to.equal(404);
    expect((await must('GET', `/applications/${app.id}/wallets`)).wallets[0].earning_rules).to.deep.equal([]);
  });
});
