/**
 * Orders reported by the storefront (docs/wallets.md "Orders reported by the storefront"), on a real
 * API and worker: a completed order earns what the wallet's earning rules give it, once whatever
 * the repeats and races; a returned order takes it back (at most the balance; a pending credit is
 * cancelled); a return reported first means the completion never earns.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { startTestApi, type TestApi } from '../support/context.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { verifyApplication } from '../../shared/usecases/verify-exactness.usecase.js';

describe('orders reported by the storefront: earning and returns', function () {
  this.timeout(60_000);
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  });
  after(async () => {
    await api.close();
  });
  const { client, must, newApp } = adminHelpers(() => api);

  /** 1 point per 10.00 of the selling subtotal (down); orders under 20.00 earn nothing. */
  const RULES = [{ name: 'Base points', points: 1, per: 10, min_order: 20 }];
  const order = (order_id: string, status: string, subtotal = 123.45) => ({
    order_id,
    status,
    selling_price_subtotal: subtotal,
    original_price_subtotal: subtotal,
    items: [{ product_id: 'p1', selling_price: subtotal, original_price: subtotal, quantity: 1 }],
  });
  async function shop(wallet: Record<string, unknown> = {}): Promise<AdminApp> {
    const app = await newApp();
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
    await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'loyalty', earning_rules: RULES, ...wallet });
    await must('POST', `/applications/${app.id}/webhooks`, { url: 'http://127.0.0.1:9/hooks' });
    return app;
  }
  const report = (app: AdminApp, body: unknown, wallet = 'loyalty', customer = 'c1') =>
    client(app, 'POST', `/wallets/customer/${customer}/orders/${wallet}`, body);
  const balance = async (app: AdminApp) => (await client(app, 'GET', '/wallets/customer/c1')).body[0].loyalty_points as number;
  const ledger = async (app: AdminApp) =>
    (await must('GET', `/applications/${app.id}/customers/c1/wallets/loyalty/ledger?limit=100`)).entries as any[];

  it('when a completed order is reported, then it earns by the rules, once: a repeat answers the same and moves nothing', async () => {
    const app = await shop();
    const first = await report(app, { order: order('o-1', 'completed') });
    expect(first.status, first.text).to.equal(200);
    assertMatchesSpec('post', '/wallets/customer/{source_id}/orders/{wallet_id}', 200, first.body);
    expect(first.body).to.deep.equal({
      order_id: 'o-1',
      status: 'completed',
      wallet_id: 'loyalty',
      points: 12,
      txn_id: 'order:loyalty:o-1',
      previous_loyalty_points: 0,
      loyalty_points: 12,
      pending: false,
    });
    const again = await report(app, { order: order('o-1', 'completed') });
    expect(again.body).to.deep.equal(first.body);
    expect(await balance(app)).to.equal(12);
    expect((await ledger(app)).map((e) => [e.txn_id, e.type, e.points, e.origin])).to.deep.equal([
      ['order:loyalty:o-1', 'credit', 12, 'order'],
    ]);
  });

  it('when 12 reports of one order race, then exactly one credit is posted and every answer says it', async () => {
    const app = await shop();
    const answers = await Promise.all(Array.from({ length: 12 }, () => report(app, { order: order('race', 'completed') })));
    expect(answers.map((a) => a.status)).to.deep.equal(answers.map(() => 200));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).to.equal(1);
    expect(await balance(app)).to.equal(12);
    expect((await ledger(app)).length).to.equal(1);
  });

  it('when a returned order is reported, then what it earned is taken back, once; at most the balance when some was spent', async () => {
    const app = await shop();
    await report(app, { order: order('o-1', 'completed') }); // +12
    await client(app, 'PUT', '/wallets/customer/c1/transactions/loyalty', { type: 'debit', points: 5 }); // 7 left
    const back = await report(app, { order: { order_id: 'o-1', status: 'returned' } });
    expect(back.status, back.text).to.equal(200);
    expect(back.body).to.include({
      status: 'returned',
      points: 7,
      txn_id: 'order-return:loyalty:o-1',
      previous_loyalty_points: 7,
      loyalty_points: 0,
    });
    expect((await report(app, { order: { order_id: 'o-1', status: 'returned' } })).body).to.deep.equal(back.body);
    // Completed reported again after the return: the credit it recorded is answered again, nothing moves.
    expect((await report(app, { order: order('o-1', 'completed') })).body).to.include({ points: 12, txn_id: 'order:loyalty:o-1' });
    expect(await balance(app)).to.equal(0);
  });

  it('when the return is reported before the completion, then the completion never earns', async () => {
    const app = await shop();
    const back = await report(app, { order: { order_id: 'early', status: 'returned' } });
    expect(back.body).to.deep.equal({
      order_id: 'early',
      status: 'returned',
      wallet_id: 'loyalty',
      points: 0,
      txn_id: null,
      previous_loyalty_points: null,
      loyalty_points: null,
      pending: false,
    });
    const late = await report(app, { order: order('early', 'completed') });
    expect(late.body).to.include({ points: 0, txn_id: null });
    expect(await balance(app)).to.equal(0);
  });

  it('when the order is below the minimum, then nothing is earned and nothing is written', async () => {
    const app = await shop();
    const small = await report(app, { order: order('small', 'completed', 19.99) });
    expect(small.body).to.include({ points: 0, txn_id: null });
    expect(await ledger(app)).to.deep.equal([]);
  });

  it('when the wallet has a pending period, then the earned points wait, and a return cancels them', async () => {
    const app = await shop({ pending: { days: 14 } });
    const earned = await report(app, { order: order('p-1', 'completed') });
    expect(earned.body).to.include({ points: 12, pending: true, loyalty_points: 0 });
    const back = await report(app, { order: { order_id: 'p-1', status: 'returned' } });
    expect(back.body).to.include({ points: 12, pending: true, loyalty_points: 0 });
    expect(await balance(app)).to.equal(0);
  });

  it('when an order of absurd amounts would earn more than a wallet update may move, then 400 in words and nothing moves', async () => {
    const app = await shop();
    const res = await report(app, { order: order('huge', 'completed', 2e11) });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.details).to.equal('the order would earn more than 1000000000 points');
    expect(await ledger(app)).to.deep.equal([]);
  });

  it('when 120 random hostile reports arrive, then never a 5xx, a 200 is the documented shape, and the balance equals its ledger', async () => {
    const app = await shop();
    const hostile = fc.oneof(
      fc.constantFrom(null, true, '', 'NaN', '1e309', '__proto__', { $gt: 0 }, ['$in'], 1e308, -1, 0.005),
      fc.double(),
      fc.string({ maxLength: 20 }),
    );
    const item = fc.record(
      {
        product_id: fc.oneof(fc.string({ maxLength: 6 }), hostile),
        selling_price: fc.oneof(fc.double({ min: 0, max: 1e5, noNaN: true }), hostile),
        original_price: fc.oneof(fc.double({ min: 0, max: 1e5, noNaN: true }), hostile),
        quantity: fc.oneof(fc.integer({ min: 1, max: 4 }), hostile),
      },
      { requiredKeys: [] },
    );
    // Weighted towards reports the route accepts, so that both answers are exercised in every run
    // (a valid return is about a quarter of the bodies: the chance of no 200 in 120 is below 1e-13).
    const often = <T>(likely: fc.Arbitrary<T>) => fc.oneof({ arbitrary: likely, weight: 5 }, { arbitrary: hostile, weight: 1 });
    const anOrder = fc.record(
      {
        order_id: often(fc.constantFrom('h-1', 'h-2', 'h-3')),
        status: often(fc.constantFrom('completed', 'returned')),
        selling_price_subtotal: often(fc.double({ min: 0, max: 1e6, noNaN: true })),
        original_price_subtotal: often(fc.double({ min: 0, max: 1e6, noNaN: true })),
        items: often(fc.array(item, { maxLength: 4 })),
      },
      { requiredKeys: ['order_id', 'status'] },
    );
    const body = often(fc.record({ order: often(anOrder) }));
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await report(app, b);
        statuses.add(res.status);
        expect(res.status, res.text).to.be.below(500);
        if (res.status === 200) {
          assertMatchesSpec('post', '/wallets/customer/{source_id}/orders/{wallet_id}', 200, res.body);
          expect(res.body.points).to.be.at.least(0);
        } else expect(res.body).to.have.keys(['code', 'message', 'details', 'request_id']);
      }),
      { numRuns: 120 },
    );
    expect([...statuses].sort()).to.include.members([200, 400]);
    const verified = await verifyApplication(api.services, app.id, { recheckMs: 0, eventGraceMs: 0 });
    expect(verified.discrepancies).to.deep.equal([]);
  });

  it('when the report is wrong, then the documented 400s and 404s, and nothing is queued', async () => {
    const app = await shop();
    const cases: [unknown, number, string][] = [
      [{}, 400, 'order is required'],
      [{ order: { status: 'completed' } }, 400, 'order_id is required'],
      [{ order: { order_id: 'x', status: 'shipped' } }, 400, 'status should be completed or returned'],
      [{ order: { order_id: 'x', status: 'completed', items: 'no' } }, 400, ''],
      [
        { order: { order_id: 'x', status: 'returned', return_id: 'r-1' } },
        400,
        'items is required for a partial return: the lines that came back',
      ],
      [
        { order: { order_id: 'x', status: 'returned', return_id: '', items: [] } },
        400,
        'return_id should be a string of 1 to 256 characters',
      ],
      [{ order: { order_id: 'x', status: 'returned', return_id: 'r', items: [{ product_id: 'p' }] } }, 400, ''],
    ];
    for (const [body, status, details] of cases) {
      const res = await report(app, body);
      expect(res.status, res.text).to.equal(status);
      if (details) expect(res.body.details).to.equal(details);
    }
    expect((await report(app, { order: order('x', 'completed') }, 'nope')).body).to.deep.include({
      code: 404,
      details: 'wallet not found',
    });
    expect((await report(app, { order: order('x', 'completed') }, 'loyalty', 'nobody')).status).to.equal(404);
    expect(await ledger(app)).to.deep.equal([]);
  });

  describe('partial returns (docs/wallets.md "Partial returns")', () => {
    /** 123.45: a shoe at 80.00 and socks at 43.45 — 12 points at 1 per 10.00. */
    const twoLines = (order_id: string) => ({
      order_id,
      status: 'completed',
      selling_price_subtotal: 123.45,
      original_price_subtotal: 123.45,
      items: [
        { product_id: 'shoe', selling_price: 80, original_price: 80, quantity: 1 },
        { product_id: 'socks', selling_price: 43.45, original_price: 43.45, quantity: 1 },
      ],
    });
    const line = (product_id: string, price: number) => ({ product_id, selling_price: price, original_price: price, quantity: 1 });
    const partly = (order_id: string, return_id: string, items: unknown[]) => ({
      order: { order_id, status: 'returned', return_id, items },
    });

    it('when lines come back one return at a time, then each takes back what its lines earn, once, never more than the order earned', async () => {
      const app = await shop();
      await report(app, { order: twoLines('p-1') });
      const socks = await report(app, partly('p-1', 'r-1', [line('socks', 43.45)]));
      expect(socks.status, socks.text).to.equal(200);
      assertMatchesSpec('post', '/wallets/customer/{source_id}/orders/{wallet_id}', 200, socks.body);
      // The minimum order (20.00) does not apply to the lines of a return: 43.45 earns 4.
      expect(socks.body).to.deep.include({ return_id: 'r-1', points: 4, txn_id: 'order-return:loyalty:p-1#r-1', loyalty_points: 8 });
      expect((await report(app, partly('p-1', 'r-1', [line('socks', 43.45)]))).body, 'a repeat').to.deep.equal(socks.body);
      expect((await report(app, partly('p-1', 'r-2', [line('shoe', 80)]))).body).to.deep.include({ points: 8, loyalty_points: 0 });
      // More back than was bought: nothing is left to take back.
      expect((await report(app, partly('p-1', 'r-3', [line('shoe', 80)]))).body).to.deep.include({ points: 0, txn_id: null });
      expect((await report(app, { order: { order_id: 'p-1', status: 'returned' } })).body).to.deep.include({ points: 0, txn_id: null });
      expect(await balance(app)).to.equal(0);
      expect((await ledger(app)).map((e) => [e.txn_id, e.points])).to.deep.equal([
        ['order:loyalty:p-1', 12],
        ['order-return:loyalty:p-1#r-1', 4],
        ['order-return:loyalty:p-1#r-2', 8],
      ]);
    });

    it('when the rest of the order comes back after a part, then the whole return takes back what is left', async () => {
      const app = await shop();
      await report(app, { order: twoLines('p-2') });
      await report(app, partly('p-2', 'r-1', [line('socks', 43.45)]));
      const rest = await report(app, { order: { order_id: 'p-2', status: 'returned' } });
      expect(rest.body).to.deep.include({ points: 8, txn_id: 'order-return:loyalty:p-2', loyalty_points: 0 });
      expect((await report(app, partly('p-2', 'r-9', [line('shoe', 1)]))).body, 'after the whole order: nothing').to.deep.include({
        points: 0,
      });
    });

    it('when a part comes back before the completion is reported, then it takes nothing and the completion still earns', async () => {
      const app = await shop();
      expect((await report(app, partly('p-3', 'r-1', [line('socks', 43.45)]))).body).to.deep.include({ points: 0, txn_id: null });
      expect((await report(app, { order: twoLines('p-3') })).body).to.deep.include({ points: 12 });
    });

    it('when the earning is still pending, then a part of the pending credit is cancelled, and the whole return cancels the rest', async () => {
      const app = await shop({ pending: { days: 14 } });
      await report(app, { order: twoLines('p-4') });
      const part = await report(app, partly('p-4', 'r-1', [line('socks', 43.45)]));
      expect(part.body).to.deep.include({ points: 4, pending: true, loyalty_points: 0 });
      const wallet = (await client(app, 'GET', '/wallets/customer/c1')).body[0];
      expect(wallet.loyalty_points).to.equal(0);
      const rest = await report(app, { order: { order_id: 'p-4', status: 'returned' } });
      expect(rest.body).to.deep.include({ points: 8, pending: true });
      const verified = await verifyApplication(api.services, app.id, { recheckMs: 0, eventGraceMs: 0 });
      expect(verified.discrepancies).to.deep.equal([]);
    });
  });
});
