/**
 * Promotion kinds (docs/campaigns.md "Promotion kinds") through the admin API and the client
 * routes of a running API and worker: each kind's admin format round trip and its 400s, and for
 * each kind list (with the same cart and customer), validate, Try a cart (explain) and redeem
 * agreeing on the amounts — the per-item breakdown exact in cents — with a free gift named in the
 * answers, recorded in the journal and limited by `max_gifts`.
 */
import { expect } from 'chai';
import { redemptionKey } from '../../shared/data/redemption-journal.repository.js';
import { makeOrder } from '../fixtures/records.js';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { startTestApi, type TestApi } from '../support/context.js';

const SHIRT = { product_id: 'shirt', sku: 'SHIRT', name: 'Shirt', original_price: 120, selling_price: 100, shipping: 0 };
const SOCKS = { product_id: 'socks', sku: 'SOCKS', name: 'Socks', original_price: 30, selling_price: 20, shipping: 0 };
const PHONE = { product_id: 'phone', sku: 'PHONE', name: 'Phone', original_price: 500, selling_price: 450, shipping: 0 };
const CASE = { product_id: 'case', sku: 'CASE', name: 'Phone case', original_price: 25, selling_price: 20, shipping: 0 };

/** A cart of these lines (each `[item, quantity]`), its subtotals summed from them. */
function cart(lines: [Record<string, unknown>, number][], extra: Record<string, unknown> = {}) {
  const items = lines.map(([item, quantity]) => ({ ...item, quantity }));
  const sum = (k: string) => items.reduce((s, i) => s + ((i as Record<string, unknown>)[k] as number) * i.quantity, 0);
  return makeOrder({ original_price_subtotal: sum('original_price'), selling_price_subtotal: sum('selling_price'), items, ...extra });
}
const bySku = (sku: string) => ({ match: 'AND', properties: [{ property: 'sku', operator: 'eq', values: [sku] }] });

describe('promotion kinds', function () {
  this.timeout(60_000);
  let api: TestApi;
  let app: AdminApp;
  before(async () => {
    api = await startTestApi();
    app = await newApp({ name: `Kinds ${process.pid}`, timezone: 'Europe/Berlin', currency: 'EUR' });
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'k-1' }, { source_id: 'k-2' }] });
  });
  after(async () => {
    await api?.close();
  });
  const { admin, client, newApp, must } = adminHelpers(() => api);
  let seq = 0;
  const code = () => `KIND${process.pid}X${++seq}`;
  const campaigns = () => `/applications/${app.id}/campaigns`;

  async function create(discount: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const res = await admin('POST', campaigns(), { name: `Kind ${seq}`, code: code(), discount, ...extra });
    expect(res.status, res.text).to.equal(201);
    assertMatchesSpec('POST', '/admin/applications/{app}/campaigns', 201, res.body);
    return res.body as { id: string; code: string; discount: Record<string, unknown>; discount_calculated_on_property: string };
  }
  const validate = (c: { code: string }, order: Record<string, unknown>, source_id = 'k-1') =>
    client(app, 'POST', '/coupons/validate', { source_id, coupon_details: [{ coupon_code: c.code }], order });
  const redeem = (c: { code: string }, order: Record<string, unknown>, source_id = 'k-1') =>
    client(app, 'POST', '/coupons/apply?type=redeem', { source_id, coupon_details: [{ coupon_code: c.code }], order });
  const explain = async (c: { code: string }, order: Record<string, unknown>) => {
    const res = await admin('POST', `/applications/${app.id}/explain`, { source_id: 'k-1', code: c.code, order });
    expect(res.status, res.text).to.equal(200);
    return res.body.results[0];
  };

  /**
   * Validate, list, Try a cart and redeem of one cart for one customer: the same total; list's savings are validate's
   * (less the two fields only validate sends) and it names the same free gifts. Returns validate's body and each
   * item's discount_value.
   */
  async function agreeing(c: { code: string }, order: Record<string, unknown>) {
    const shown = await validate(c, order);
    expect(shown.status, shown.text).to.equal(200);
    assertMatchesSpec('POST', '/coupons/validate', 200, shown.body);
    expect(shown.body.is_applicable, shown.text).to.equal(true);
    const savings = shown.body.coupon_savings.order;
    // List rule 3: with source_id and an order, each coupon is checked for that customer and cart.
    const listed = await client(app, 'POST', '/coupons/list/all', { source_id: 'k-1', order });
    expect(listed.status, listed.text).to.equal(200);
    assertMatchesSpec('POST', '/coupons/list/all', 200, listed.body);
    const entry = (listed.body as { coupon_code: string }[]).find((x) => x.coupon_code === c.code) as Record<string, unknown> | undefined;
    expect(entry, 'list').to.include({ is_applicable: true });
    const { payment_mode: _paymentMode, discount_calculated_on_property: _base, ...listSavings } = savings;
    expect((entry!.coupon_savings as { order: unknown }).order, 'list savings').to.deep.equal(listSavings);
    expect(entry!.free_gifts, 'list free_gifts').to.deep.equal(shown.body.free_gifts);
    const explained = await explain(c, order);
    expect(explained.applicable).to.equal(true);
    expect(explained.discount_amount).to.equal(savings.total_discount);
    const done = await redeem(c, order);
    expect(done.status, done.text).to.equal(200);
    const journal = await api.services.repos.redemptions.get(redemptionKey((await campaignOf(c)).id, order.order_id as string, 1));
    expect(journal?.discountCents).to.equal(Math.round(savings.total_discount * 100));
    const items = (savings.items as { product_id: string; discount_value?: number }[]).map((i) => i.discount_value ?? null);
    if (items.every((d) => d !== null)) {
      // The per-item breakdown sums exactly, in cents, to the total.
      expect(items.reduce((s, d) => s + Math.round(d! * 100), 0)).to.equal(Math.round(savings.total_discount * 100));
    }
    return { body: shown.body, savings, items };
  }
  const made = new Map<string, { id: string }>();
  const campaignOf = async (c: { code: string }) => made.get(c.code)!;
  async function kind(discount: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const c = await create(discount, extra);
    made.set(c.code, c);
    return c;
  }

  describe('admin format', () => {
    it('when each kind is created, then it comes back with its own keys and its defaults', async () => {
      const bxgy = await kind({ kind: 'discount', type: 'buy_x_get_y', buy: { quantity: 2 }, get: { quantity: 1, percent_off: 100 } });
      expect(bxgy.discount).to.deep.equal({
        kind: 'discount',
        type: 'buy_x_get_y',
        value: null,
        max: null,
        wallet_id: null,
        pending: null,
        buy: { quantity: 2, items: null },
        get: { quantity: 1, items: null, percent_off: 100 },
        max_repeats: 1,
      });
      const gift = await kind({ kind: 'discount', type: 'free_gift', gift: { product_id: 'case', name: 'Phone case', value: 19.99 } });
      expect(gift.discount).to.deep.include({
        gift: { product_id: 'case', sku: null, name: 'Phone case', quantity: 1, value: 19.99 },
        max_gifts: null,
      });
      const tiered = await kind({
        kind: 'discount',
        type: 'tiered',
        tier_type: 'flat',
        tiers: [
          { from: 200, value: 25 },
          { from: 100, value: 10 },
        ],
      });
      expect(tiered.discount).to.deep.include({
        tier_type: 'flat',
        tiers: [
          { from: 100, value: 10 },
          { from: 200, value: 25 },
        ],
      });
      const bundle = await kind({
        kind: 'discount',
        type: 'bundle',
        bundle: [{ items: bySku('PHONE') }, { items: bySku('CASE') }],
        price: 449,
      });
      expect(bundle.discount).to.deep.include({ price: 449, max_repeats: 1 });
      expect((bundle.discount.bundle as unknown[])[1]).to.deep.equal({ items: bySku('CASE'), quantity: 1 });
      const shipping = await kind({ kind: 'discount', type: 'free_shipping' });
      expect(shipping.discount_calculated_on_property).to.equal('shipping');
    });

    it('when a key of another kind, a cashback gift or a free shipping on another base is sent, then 400 names the field', async () => {
      for (const [body, field] of [
        [{ discount: { kind: 'discount', type: 'flat', value: 5, gift: { product_id: 'x', name: 'X' } } }, 'discount.gift'],
        [
          { discount: { kind: 'discount', type: 'buy_x_get_y', value: 5, buy: { quantity: 1 }, get: { quantity: 1, percent_off: 50 } } },
          'discount.value',
        ],
        [{ discount: { kind: 'discount', type: 'buy_x_get_y', buy: { quantity: 1 } } }, 'discount.get'],
        [{ discount: { kind: 'cashback', type: 'free_gift', gift: { product_id: 'x', name: 'X' } } }, 'discount.kind'],
        [
          { discount: { kind: 'discount', type: 'free_shipping' }, discount_calculated_on_property: 'selling_price_subtotal' },
          'discount_calculated_on_property',
        ],
        [
          { discount: { kind: 'discount', type: 'tiered', tier_type: 'percentage', tiers: [{ from: 10, value: 120 }] } },
          'discount.tiers.0.value',
        ],
        [{ discount: { kind: 'discount', type: 'bundle', bundle: [{ items: null }], price: 5 } }, 'discount.bundle.0.items'],
      ] as const) {
        const res = await admin('POST', campaigns(), { name: 'Bad', code: code(), ...body });
        expect(res.status, res.text).to.equal(400);
        expect(res.body.fields, res.text).to.have.property(field);
      }
    });
  });

  describe('list, validate, Try a cart and redeem agree', () => {
    it('"3 for 2": the cheapest of three shirts free, once per three', async () => {
      const c = await kind({
        kind: 'discount',
        type: 'buy_x_get_y',
        buy: { quantity: 2, items: bySku('SHIRT') },
        get: { quantity: 1, percent_off: 100 },
        max_repeats: 2,
      });
      const { savings, items } = await agreeing(
        c,
        cart([
          [SHIRT, 7],
          [SOCKS, 1],
        ]),
      );
      // 7 shirts: two sets of three (K = 2), two shirts free.
      expect(savings.total_discount).to.equal(200);
      expect(items).to.deep.equal([200, 0]);
    });

    it('"buy a phone, get the case free": only the case is discounted', async () => {
      const c = await kind({
        kind: 'discount',
        type: 'buy_x_get_y',
        buy: { quantity: 1, items: bySku('PHONE') },
        get: { quantity: 1, items: bySku('CASE'), percent_off: 100 },
      });
      const { items } = await agreeing(
        c,
        cart([
          [PHONE, 1],
          [CASE, 2],
        ]),
      );
      expect(items).to.deep.equal([0, 20]);
      const none = await validate(c, cart([[CASE, 2]]));
      expect(none.body.is_applicable).to.equal(false);
      expect(none.body.message).to.equal('Discount validation is failed, please check terms and condition in the coupon tray');
    });

    it('"spend 100 save 10, spend 200 save 25": the highest tier reached, and below the first the threshold is the message', async () => {
      const c = await kind({
        kind: 'discount',
        type: 'tiered',
        tier_type: 'flat',
        tiers: [
          { from: 100, value: 10 },
          { from: 200, value: 25 },
        ],
      });
      expect(
        (
          await agreeing(
            c,
            cart([
              [SHIRT, 2],
              [SOCKS, 1],
            ]),
          )
        ).savings.total_discount,
      ).to.equal(25);
      expect(
        (
          await agreeing(
            c,
            cart([
              [SHIRT, 1],
              [SOCKS, 1],
            ]),
          )
        ).savings.total_discount,
      ).to.equal(10);
      const below = await validate(c, cart([[SOCKS, 2]]));
      expect(below.body.is_applicable).to.equal(false);
      expect(below.body.message).to.equal('selling_price_subtotal should be greater than or equal to 100.00');
    });

    it('"from 100 save 5%, from 200 save 10%": a percentage of the base at the tier reached, rounded half away from zero to the cent', async () => {
      const c = await kind({
        kind: 'discount',
        type: 'tiered',
        tier_type: 'percentage',
        tiers: [
          { from: 100, value: 5 },
          { from: 200, value: 10 },
        ],
      });
      const belt = { product_id: 'belt', sku: 'BELT', name: 'Belt', original_price: 35, selling_price: 29.9, shipping: 0 };
      const at = async (lines: [Record<string, unknown>, number][]) => (await agreeing(c, cart(lines))).savings;
      expect(
        await at([
          [SHIRT, 2],
          [SOCKS, 1],
        ]),
      ).to.include({ selling_price_subtotal: 220, total_discount: 22, total_amount: 198 });
      // 5% of 129.90 is 6.495.
      expect(
        await at([
          [SHIRT, 1],
          [belt, 1],
        ]),
      ).to.include({ selling_price_subtotal: 129.9, total_discount: 6.5, total_amount: 123.4 });
    });

    it('a bundle price: phone and case for 449 together', async () => {
      const c = await kind({ kind: 'discount', type: 'bundle', bundle: [{ items: bySku('PHONE') }, { items: bySku('CASE') }], price: 449 });
      const { savings, items } = await agreeing(
        c,
        cart([
          [PHONE, 1],
          [CASE, 1],
          [SOCKS, 1],
        ]),
      );
      expect(savings.total_discount).to.equal(21);
      // 450 + 20 − 449 = 21, spread by value (450 : 20) to the cent, largest remainder: 20.11 and 0.89.
      expect(items).to.deep.equal([20.11, 0.89, 0]);
    });

    it('free shipping over a threshold: the shipping sent is the discount', async () => {
      const c = await kind(
        { kind: 'discount', type: 'free_shipping' },
        { cart_conditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 100 }] },
      );
      const { savings, items } = await agreeing(c, cart([[SHIRT, 1]], { shipping: 7.5 }));
      expect(savings).to.include({ total_discount: 7.5, total_amount: 92.5 });
      expect(items, 'no discount_value on the items').to.deep.equal([null]);
    });

    it('a free gift is named by list (without a cart), validate and Try a cart, recorded by redeem, and limited by max_gifts', async () => {
      const c = await kind(
        {
          kind: 'discount',
          type: 'free_gift',
          gift: { product_id: 'tote', sku: 'TOTE', name: 'Tote bag', value: 5, quantity: 1 },
          max_gifts: 1,
        },
        { cart_conditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 50 }] },
      );
      const gifts = [{ product_id: 'tote', sku: 'TOTE', name: 'Tote bag', quantity: 1, value: 5 }];
      const listed = await client(app, 'POST', '/coupons/list/all', { source_id: 'k-1' });
      expect(listed.status).to.equal(200);
      const entry = (listed.body as { coupon_code: string; free_gifts?: unknown }[]).find((x) => x.coupon_code === c.code);
      expect(entry?.free_gifts, 'list').to.deep.equal(gifts);
      const order = cart([[SHIRT, 1]]);
      expect((await explain(c, order)).free_gifts, 'explain').to.deep.equal(gifts);
      const { body, savings } = await agreeing(c, order);
      expect(body.free_gifts, 'validate').to.deep.equal(gifts);
      expect(savings).to.include({ total_discount: 0, total_amount: 100 });
      const journal = await api.services.repos.redemptions.get(redemptionKey(c.id, order.order_id as string, 1));
      expect(journal?.gifts).to.deep.equal([{ productId: 'tote', sku: 'TOTE', name: 'Tote bag', quantity: 1, valueCents: 500 }]);
      const out = await redeem(c, cart([[SHIRT, 1]]), 'k-2');
      expect(out.status).to.equal(400);
      expect(out.headers.get('coupon-reason')).to.equal('gifts_given_out');
    });
  });
});
