/**
 * Recorded carts and backtests (docs/results.md "Recorded carts", "Backtests"), through real
 * requests to a real API, worker, database and Redis:
 *  - the check that keeps it honest: a flash sale — more customers than units, all at once, each
 *    with its own basket — recorded, then replayed as it is over its own period, reproduces what
 *    really happened exactly: the same orders redeemed (the journal's), the same discount (the
 *    results counters'), the same moment the limit ran out;
 *  - a change (a lower limit) and a draft are replayed against the same record, with the carts that change;
 *  - recording is opt-in (an application that has not opted in records nothing), keeps the
 *    application's retention, and a person's recorded carts go with the person (erasure);
 *  - the documented 400s and 404s.
 */
import { expect } from 'chai';
import { makeOrder } from '../fixtures/records.js';
import { adminHelpers, settle, type AdminApp } from '../support/admin.js';
import { useTestApi } from '../support/context.js';
import { assertMatchesSpec } from '../support/openapi.js';

/** An order whose amounts are `k` times the fixture's: each cart's discount is its own. */
const orderOf = (k: number) =>
  makeOrder({
    original_price_subtotal: 1200 * k,
    selling_price_subtotal: 1000 * k,
    items: [
      { product_id: 'p1', sku: 'SKU1', name: 'Shirt', original_price: 700 * k, selling_price: 600 * k, quantity: 1, shipping: 0 },
      { product_id: 'p2', sku: 'SKU2', name: 'Socks', original_price: 250 * k, selling_price: 200 * k, quantity: 2, shipping: 0 },
    ],
  });

const CUSTOMERS = 24;
const UNITS = 8;

describe('admin API: recorded carts and backtests', function () {
  this.timeout(120_000);
  const api = useTestApi();
  const { admin, client, newApp, must } = adminHelpers(api);
  let app: AdminApp;
  let flash: { id: string };
  const sources = Array.from({ length: CUSTOMERS }, (_, i) => `fan-${i}`);

  /** Asks for a backtest and waits until it is done (polling its progress as the console does). */
  async function backtest(body: Record<string, unknown>) {
    const asked = await admin('POST', `/applications/${app.id}/backtests`, body);
    expect(asked.status, asked.text).to.equal(202);
    assertMatchesSpec('POST', '/admin/applications/{app}/backtests', 202, asked.body);
    for (;;) {
      const b = await must('GET', `/applications/${app.id}/backtests/${asked.body.id}`);
      if (b.status === 'done' || b.status === 'failed') {
        assertMatchesSpec('GET', '/admin/applications/{app}/backtests/{backtest}', 200, b);
        return b;
      }
      await settle();
    }
  }

  before(async () => {
    app = await newApp();
    const setting = await must('PATCH', `/applications/${app.id}`, { cart_recording: { enabled: true, retention_days: 45 } });
    expect(setting.cart_recording).to.deep.equal({ enabled: true, retention_days: 45 });
    await must('POST', `/applications/${app.id}/customers`, { customers: sources.map((source_id) => ({ source_id })) });
    flash = await must('POST', `/applications/${app.id}/campaigns`, {
      name: 'Flash sale',
      code: 'FLASH',
      discount: { kind: 'discount', type: 'percentage', value: 10 },
      limits: { total: UNITS },
    });
    await settle();
    // A list and a validate first: recorded too.
    expect((await client(app, 'POST', '/coupons/list/all', { source_id: sources[0], order: orderOf(1) })).status).to.equal(200);
    const checked = await client(app, 'POST', '/coupons/validate', {
      source_id: sources[0],
      coupon_details: [{ coupon_code: 'FLASH' }],
      order: orderOf(1),
    });
    expect(checked.status, checked.text).to.equal(200);
    // The sale: every customer at once, each with a basket of its own.
    const answers = await Promise.all(
      sources.map((s, i) =>
        client(app, 'POST', '/coupons/apply?type=redeem', {
          source_id: s,
          coupon_details: [{ coupon_code: 'FLASH' }],
          order: orderOf(i + 1),
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).to.have.length(UNITS);
    expect(answers.filter((a) => a.status === 400)).to.have.length(CUSTOMERS - UNITS);
    await api().services.carts.flush();
  });

  it('when a live campaign is backtested over its own period, then it reproduces what happened: the same orders, discount and moment the limit ran out', async () => {
    const b = await backtest({ campaign_id: flash.id });
    expect(b).to.include({ status: 'done', kind: 'live', campaign_id: flash.id, name: 'Flash sale', carts: 'presented', error: null });
    expect(b.progress).to.deep.equal({ done: CUSTOMERS + 1, total: CUSTOMERS + 1 });
    const r = b.result;
    expect(r.replayed).to.deep.equal({ orders: CUSTOMERS, checks: 1, lists: 0, reverts: 0 });
    expect(r.backtest).to.deep.include(r.actual);
    expect(r.backtest.orders).to.equal(UNITS);
    expect(r.changed).to.deep.equal({ gained: 0, lost: 0, different_amount: 0, carts: [] });
    expect(r.refusals_by_reason).to.have.keys(['total_limit']);
    expect(r.refusals_by_reason.total_limit).to.equal(CUSTOMERS - UNITS);

    // What really happened, from the journal and the results counters.
    const results = await must('GET', `/applications/${app.id}/campaigns/${flash.id}/results`);
    expect(r.backtest.discount).to.equal(results.totals.discount);
    expect(r.backtest.basket).to.equal(results.totals.basket);
    const journal = await must('GET', `/applications/${app.id}/redemptions?campaign=${flash.id}&state=completed`);
    expect(journal.redemptions).to.have.length(UNITS);

    // The moment: when the redeem that took the last unit was decided, after every redeem that got one, before every refusal.
    const [limit] = r.limits;
    expect(limit).to.include({ what: 'redemptions', period: 'total', limit: UNITS });
    expect(limit.ran_out_at).to.be.a('string').and.equal(limit.actual_ran_out_at);
    const carts = (
      await Promise.all(sources.map(async (s) => api().services.repos.recordedCarts.ofCustomer(app.id, await customerId(s))))
    ).flat();
    const orders = carts.filter((c) => c.kind === 'r');
    const redeemed = orders.filter((c) => c.outcomes[0]!.ok);
    expect(redeemed.map((c) => c.orderId).sort()).to.deep.equal(journal.redemptions.map((j: { order_id: string }) => j.order_id).sort());
    const last = Math.max(...redeemed.map((c) => c.at.getTime()));
    expect(Date.parse(limit.ran_out_at)).to.equal(last);
    for (const refused of orders.filter((c) => !c.outcomes[0]!.ok)) expect(refused.at.getTime()).to.be.at.least(last);
  });

  it('when a change halves the limit, then half the orders are redeemed, the limit runs out earlier and the orders it loses are listed', async () => {
    const b = await backtest({ campaign_id: flash.id, changes: { limits: { total: UNITS / 2 } } });
    expect(b).to.include({ status: 'done', kind: 'change' });
    const r = b.result;
    expect(r.backtest.orders).to.equal(UNITS / 2);
    expect(r.actual.orders).to.equal(UNITS);
    expect(r.changed).to.include({ gained: 0, lost: UNITS / 2, different_amount: 0 });
    expect(r.changed.carts).to.have.length(UNITS / 2);
    for (const c of r.changed.carts) {
      expect(c.actual.applied).to.equal(true);
      expect(c.backtest).to.deep.equal({ applied: false, discount: 0, reason: 'total_limit' });
      expect(c.customer).to.match(/^fan-\d+$/);
    }
    const [limit] = r.limits;
    expect(limit.limit).to.equal(UNITS / 2);
    // The real limit (8) ran out later than the changed one (4) would have.
    expect(Date.parse(limit.ran_out_at)).to.be.at.most(Date.parse(limit.actual_ran_out_at));
    // The live campaign is as it was.
    expect((await must('GET', `/applications/${app.id}/campaigns/${flash.id}`)).limits.total).to.equal(UNITS);
  });

  it('when a draft is backtested over every recorded cart, then it is tried on each as if each customer had presented it', async () => {
    const b = await backtest({
      campaign: {
        name: 'Ten off big baskets',
        code: 'BIGTEN',
        discount: { kind: 'discount', type: 'flat', value: 10 },
        cart_conditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 10000 }],
      },
    });
    expect(b, b.error).to.include({ status: 'done', kind: 'draft', campaign_id: null, carts: 'all' });
    const r = b.result;
    expect(r.replayed).to.deep.equal({ orders: CUSTOMERS, checks: 1, lists: 1, reverts: 0 });
    expect(r.actual).to.equal(null);
    // Baskets of 1000 × k: those of k ≥ 10 qualify.
    expect(r.backtest.orders).to.equal(CUSTOMERS - 9);
    expect(r.backtest.discount).to.equal((CUSTOMERS - 9) * 10);
    expect(r.changed.gained).to.equal(CUSTOMERS - 9);
    // No code named it: nothing was saved.
    expect(await api().services.repos.couponCodes.findByCode(app.id, 'BIGTEN')).to.equal(null);
  });

  it('when listed, then the newest backtest comes first', async () => {
    const list = await must('GET', `/applications/${app.id}/backtests`);
    assertMatchesSpec('GET', '/admin/applications/{app}/backtests', 200, list);
    expect(list.backtests.map((b: { kind: string }) => b.kind)).to.deep.equal(['draft', 'change', 'live']);
  });

  it('when an application has not opted in, then none of its carts is recorded', async () => {
    const other = await newApp();
    await must('POST', `/applications/${other.id}/customers`, { customers: [{ source_id: 'quiet' }] });
    await must('POST', `/applications/${other.id}/campaigns`, {
      name: 'Quiet',
      code: 'QUIET',
      discount: { kind: 'discount', type: 'flat', value: 5 },
    });
    await settle();
    for (const path of ['/coupons/list/all', '/coupons/validate', '/coupons/apply?type=redeem'])
      await client(other, 'POST', path, { source_id: 'quiet', coupon_details: [{ coupon_code: 'QUIET' }], order: makeOrder() });
    await api().services.carts.flush();
    const id = (await api().services.repos.customers.resolve(other.id, 'quiet'))!.id;
    expect(await api().services.repos.recordedCarts.ofCustomer(other.id, id)).to.deep.equal([]);
  });

  it('when an order with field names a database treats specially is sent, then its answer is as always and the carts after it are still recorded', async () => {
    const hostile = { ...orderOf(1), $where: 'sleep(1000)', 'a.b': { $gt: '' }, '': 1 };
    const sent = await client(app, 'POST', '/coupons/validate', {
      source_id: sources[5],
      coupon_details: [{ coupon_code: 'FLASH' }],
      order: hostile,
    });
    expect(sent.status).to.be.below(500);
    await api().services.carts.flush();
    const id = await customerId(sources[5]!);
    const before = (await api().services.repos.recordedCarts.ofCustomer(app.id, id)).length;
    const plain = await client(app, 'POST', '/coupons/validate', {
      source_id: sources[5],
      coupon_details: [{ coupon_code: 'FLASH' }],
      order: orderOf(1),
    });
    expect(plain.status).to.be.below(500);
    await api().services.carts.flush();
    expect(await api().services.repos.recordedCarts.ofCustomer(app.id, id)).to.have.length(before + 1);
  });

  it('when carts are recorded, then each keeps the application retention', async () => {
    const [cart] = await api().services.repos.recordedCarts.ofCustomer(app.id, await customerId(sources[0]!));
    const doc = await api().services.db.models.RecordedCart.findById(cart!.id).lean();
    expect(doc!.e.getTime() - doc!.t.getTime()).to.equal(45 * 86_400_000);
  });

  it('when a customer is erased, then its recorded carts are gone and the others stay', async () => {
    const erased = await customerId(sources[1]!);
    const kept = await customerId(sources[2]!);
    expect(await api().services.repos.recordedCarts.ofCustomer(app.id, erased)).to.have.length.greaterThan(0);
    expect((await admin('POST', `/applications/${app.id}/customers/${sources[1]}/erase`)).status).to.equal(200);
    expect(await api().services.repos.recordedCarts.ofCustomer(app.id, erased)).to.deep.equal([]);
    expect(await api().services.repos.recordedCarts.ofCustomer(app.id, kept)).to.have.length(1);
  });

  it('when a backtest is asked wrongly, then the documented 400s and 404s answer', async () => {
    const ask = (body: unknown) => admin('POST', `/applications/${app.id}/backtests`, body);
    for (const body of [
      {},
      { campaign_id: flash.id, campaign: { name: 'x' } },
      { changes: { limits: { total: 1 } } },
      { campaign_id: flash.id, from: '2026-13-01' },
      { campaign_id: flash.id, from: '2026-11-10', to: '2026-11-01' },
      { campaign_id: flash.id, from: '2024-01-01', to: '2026-01-01' },
      { campaign: { name: 'Draft', code: 'D1', discount: { kind: 'discount', type: 'flat', value: 1 } }, carts: 'presented' },
      { campaign: { name: 'Draft' } },
    ]) {
      const res = await ask(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      assertMatchesSpec('POST', '/admin/applications/{app}/backtests', 400, res.body);
    }
    expect((await ask({ campaign_id: 'ffffffffffffffffffffffff' })).status).to.equal(404);
    expect((await admin('GET', `/applications/${app.id}/backtests/ffffffffffffffffffffffff`)).status).to.equal(404);
    expect((await admin('GET', `/applications/${app.id}/backtests/nope`)).status).to.equal(404);
  });

  async function customerId(sourceId: string): Promise<string> {
    return (await api().services.repos.customers.resolve(app.id, sourceId, { includeArchived: true }))!.id;
  }
});

describe('admin API: a backtest of a campaign whose redemptions were reverted', function () {
  this.timeout(60_000);
  const api = useTestApi();
  const { admin, client, newApp, must } = adminHelpers(api);

  it('when a redemption was reverted and its unit taken again, then the replay gives it back too and reproduces what stands', async () => {
    const app = await newApp();
    await must('PATCH', `/applications/${app.id}`, { cart_recording: { enabled: true } });
    const who = ['r1', 'r2', 'r3', 'r4', 'r5'];
    await must('POST', `/applications/${app.id}/customers`, { customers: who.map((source_id) => ({ source_id })) });
    const campaign = await must('POST', `/applications/${app.id}/campaigns`, {
      name: 'Three only',
      code: 'THREE',
      discount: { kind: 'discount', type: 'percentage', value: 20 },
      limits: { total: 3 },
    });
    await settle();
    const apply = (type: 'redeem' | 'revert', sourceId: string, order: ReturnType<typeof makeOrder>) =>
      client(app, 'POST', `/coupons/apply?type=${type}`, { source_id: sourceId, coupon_details: [{ coupon_code: 'THREE' }], order });
    const orders = who.map((_, i) => orderOf(i + 1));
    for (const i of [0, 1, 2]) expect((await apply('redeem', who[i]!, orders[i]!)).status).to.equal(200);
    expect((await apply('revert', who[0]!, orders[0]!)).status).to.equal(200);
    // The unit given back is taken again; the next one is refused.
    expect((await apply('redeem', who[3]!, orders[3]!)).status).to.equal(200);
    expect((await apply('redeem', who[4]!, orders[4]!)).status).to.equal(400);
    await api().services.carts.flush();

    const asked = await admin('POST', `/applications/${app.id}/backtests`, { campaign_id: campaign.id });
    expect(asked.status, asked.text).to.equal(202);
    let b = asked.body;
    while (b.status !== 'done' && b.status !== 'failed') {
      await settle();
      b = await must('GET', `/applications/${app.id}/backtests/${b.id}`);
    }
    expect(b.status, b.error).to.equal('done');
    const r = b.result;
    expect(r.replayed).to.deep.equal({ orders: 5, checks: 0, lists: 0, reverts: 1 });
    expect(r.backtest).to.deep.include(r.actual);
    expect(r.changed).to.deep.equal({ gained: 0, lost: 0, different_amount: 0, carts: [] });
    const results = await must('GET', `/applications/${app.id}/campaigns/${campaign.id}/results`);
    expect(r.backtest).to.include({ orders: results.totals.redemptions, discount: results.totals.discount, basket: results.totals.basket });
    expect(r.backtest.orders).to.equal(3);
    expect(r.limits[0].ran_out_at).to.be.a('string').and.equal(r.limits[0].actual_ran_out_at);
  });
});
