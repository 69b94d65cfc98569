/**
 * "Try a cart" (POST /admin/applications/:app/explain): its verdicts are validate's. A property
 * over generated campaigns (every discount type, kind and base, cart conditions, selectors,
 * exclusions, product and selected-items validations, limits) and generated carts and customers:
 * for each, validate through the client route and explain through the admin API, then the same
 * applicability, the same refusal message (or the same error status and body), the same discount
 * and cashback — and the explanation's own rules agree with its verdict. Nothing is counted.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { DISCOUNT_BASES } from '../../shared/domain/types.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

const SKUS = ['A', 'B', 'C'];

const selector = fc.record({
  match: fc.constantFrom('AND', 'OR'),
  properties: fc.array(
    fc.record({ property: fc.constant('sku'), operator: fc.constantFrom('in', 'nin'), values: fc.subarray(SKUS, { minLength: 1 }) }),
    {
      minLength: 1,
      maxLength: 2,
    },
  ),
});

const campaign = fc
  .record({
    base: fc.constantFrom(...DISCOUNT_BASES),
    kind: fc.constantFrom('discount', 'cashback'),
    type: fc.constantFrom('percentage', 'flat'),
    value: fc.integer({ min: 1, max: 60 }),
    max: fc.option(fc.integer({ min: 1, max: 40 }), { nil: null }),
    minSubtotal: fc.option(fc.integer({ min: 10, max: 400 }), { nil: undefined }),
    itemSelector: selector,
    excluded: fc.option(selector, { nil: undefined }),
    maxQty: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    minSelectedQty: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
    total: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    perCustomer: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }),
  })
  .map((g) => ({
    name: 'explained',
    discount: { kind: g.kind, type: g.type, value: g.value, max: g.max, ...(g.kind === 'cashback' ? { wallet_id: 'loyalty' } : {}) },
    discount_calculated_on_property: g.base,
    ...(g.base.startsWith('selected_items_') ? { item_selector: g.itemSelector } : {}),
    ...(g.base.startsWith('valid_cart_') && g.excluded ? { excluded_items: g.excluded } : {}),
    cart_conditions: g.minSubtotal ? [{ field: 'selling_price_subtotal', operator: 'gte', value: g.minSubtotal }] : [],
    product_validations: g.maxQty ? [{ field: 'cart_qty', operator: 'lte', value: g.maxQty }] : [],
    selected_items_validations:
      g.base.startsWith('selected_items_') && g.minSelectedQty
        ? [{ field: 'selected_items_total_qty', operator: 'gte', value: g.minSelectedQty }]
        : [],
    limits: { total: g.total ?? null, per_customer: g.perCustomer ?? null },
  }));

const item = fc.record({
  product_id: fc.constantFrom('p1', 'p2', 'p3'),
  sku: fc.constantFrom(...SKUS),
  original_price: fc.integer({ min: 5, max: 300 }),
  discountPct: fc.integer({ min: 0, max: 50 }),
  quantity: fc.integer({ min: 1, max: 5 }),
});

const cart = fc
  .record({ items: fc.array(item, { minLength: 1, maxLength: 4 }), shipping: fc.integer({ min: 0, max: 30 }), broken: fc.boolean() })
  .map((c) => {
    const items = c.items.map((i) => ({
      product_id: i.product_id,
      sku: i.sku,
      original_price: i.original_price,
      selling_price: Math.round(i.original_price * (100 - i.discountPct)) / 100,
      quantity: i.quantity,
    }));
    const sum = (k: 'original_price' | 'selling_price') => Math.round(items.reduce((n, i) => n + i[k] * i.quantity, 0) * 100) / 100;
    // One in ten carts is unreadable (no subtotals): both must refuse it alike.
    if (c.broken && c.items.length === 1) return { items };
    return { items, original_price_subtotal: sum('original_price'), selling_price_subtotal: sum('selling_price'), shipping: c.shipping };
  });

describe('admin API: "Try a cart" explains what validate answers', function () {
  this.timeout(300_000);
  let api: TestApi;
  let app: TestApplication;
  before(async () => {
    api = await startTestApi();
    app = await createTestApplication(api.services);
    const admin = (method: string, path: string, body?: unknown) =>
      call(api.url, method, `/admin/applications/${app.id}${path}`, { headers: ADMIN_HEADERS, body });
    expect((await admin('POST', '/wallets', { wallet_id: 'loyalty' })).status).to.equal(201);
    expect((await admin('POST', '/customers', { customers: [{ source_id: 'c1' }, { source_id: 'c2' }] })).status).to.equal(200);
  });
  after(() => api.close());

  it("when generated campaigns meet generated carts and customers, then explain gives validate's verdict, message and amounts, and its rules agree with its verdict (property)", async () => {
    let seq = 0;
    let applicable = 0;
    await fc.assert(
      fc.asyncProperty(campaign, cart, fc.constantFrom(undefined, 'c1', 'c2'), fc.nat({ max: 2 }), async (input, order, customer, used) => {
        const code = `EXPLAIN${process.pid}X${++seq}`;
        const made = await call(api.url, 'POST', `/admin/applications/${app.id}/campaigns`, {
          headers: ADMIN_HEADERS,
          body: { ...input, code },
        });
        expect(made.status, made.text).to.equal(201);
        // Some use first, through the real route, so that limits have something to count.
        for (let i = 0; i < used; i++)
          await call(api.url, 'POST', '/coupons/apply?type=redeem', {
            auth: app.auth,
            body: {
              source_id: 'c2',
              coupon_details: [{ coupon_code: code }],
              order: {
                original_price_subtotal: 500,
                selling_price_subtotal: 500,
                items: [{ product_id: 'p1', sku: 'A', original_price: 500, selling_price: 500, quantity: 1 }],
              },
            },
          });
        const body = { ...(customer ? { source_id: customer } : {}), order };
        const validated = await call(api.url, 'POST', '/coupons/validate', {
          auth: app.auth,
          body: { ...body, coupon_details: [{ coupon_code: code }] },
        });
        const explained = await call(api.url, 'POST', `/admin/applications/${app.id}/explain`, {
          headers: ADMIN_HEADERS,
          body: { ...body, code },
        });
        if (validated.status !== 200) {
          // validate refused the request itself: explain refuses it the same way.
          expect(explained.status, explained.text).to.equal(validated.status);
          expect(explained.body.details).to.equal(validated.body.details);
          return;
        }
        expect(explained.status, explained.text).to.equal(200);
        const [result] = explained.body.results;
        const v = validated.body;
        expect(result.applicable, JSON.stringify({ v, result })).to.equal(v.is_applicable);
        if (!v.is_applicable) {
          expect(result.message).to.equal(v.message);
          // The first rule that failed is the one that decided, and nothing after it was reached.
          const firstFailed = result.checks.findIndex((c: { passed: boolean | null }) => c.passed === false);
          expect(firstFailed, JSON.stringify(result.checks)).to.be.at.least(0);
          expect(result.checks.slice(firstFailed + 1).every((c: { passed: boolean | null }) => c.passed === null)).to.equal(true);
        } else {
          applicable++;
          expect(result.discount_amount).to.equal(v.coupon_savings.order.total_discount);
          expect(result.cashback_amount).to.equal(v.coupon_savings.order.total_cashback);
          expect(
            result.checks.every((c: { passed: boolean | null }) => c.passed === true),
            JSON.stringify(result.checks),
          ).to.equal(true);
          const discount = result.checks.find((c: { rule: string }) => c.rule === 'discount');
          expect(discount.figures.discount_amount).to.equal(
            input.discount.kind === 'cashback' ? v.coupon_savings.order.total_cashback : v.coupon_savings.order.total_discount,
          );
        }
      }),
      { numRuns: 60 },
    );
    // The property met both sides: a run where nothing applies would prove little.
    expect(applicable, 'applicable runs').to.be.above(3);
  });

  it("when the order lacks what a redeem needs, then the answer says the redeem's refusal beside the verdicts, by the apply route's own check", async () => {
    const explainOrder = async (order?: unknown) => {
      const res = await call(api.url, 'POST', `/admin/applications/${app.id}/explain`, {
        headers: ADMIN_HEADERS,
        body: order === undefined ? {} : { order },
      });
      expect(res.status, res.text).to.equal(200);
      return res.body.redeem_refusal;
    };
    const item = { product_id: 'p1', sku: 'A', original_price: 100, selling_price: 90, quantity: 1 };
    const complete = {
      order_id: 'try-1',
      status: 'completed',
      original_price_subtotal: 100,
      selling_price_subtotal: 90,
      items: [{ ...item, shipping: 0 }],
    };
    expect(await explainOrder(complete)).to.equal(null);
    expect(await explainOrder()).to.equal(null); // no order: nothing to redeem
    const noShipping = { ...complete, items: [item] };
    expect(await explainOrder(noShipping)).to.equal('shipping is required');
    const noOrderId = { ...complete, order_id: undefined };
    expect(await explainOrder(noOrderId)).to.equal('order_id is required');
    // The same words the apply route answers for that order.
    const redeemed = await call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: app.auth,
      body: { source_id: 'c1', coupon_details: [{ coupon_code: 'ANY' }], order: noShipping },
    });
    expect(redeemed.status).to.equal(400);
    expect(redeemed.body.details).to.equal('shipping is required');
  });

  it('when a campaign is assigned to another customer, then without a code assignment refuses first and its rules follow as not reached', async () => {
    const code = `ASSIGNED${process.pid}`;
    const made = await call(api.url, 'POST', `/admin/applications/${app.id}/campaigns`, {
      headers: ADMIN_HEADERS,
      body: {
        name: 'assigned',
        code,
        valid_from: '2020-01-01T00:00:00Z',
        assignment: 'assigned_users',
        assigned_source_ids: ['c2'],
        discount: { kind: 'discount', type: 'percentage', value: 10 },
        discount_calculated_on_property: 'selling_price_subtotal',
      },
    });
    expect(made.status, made.text).to.equal(201);
    const order = {
      original_price_subtotal: 100,
      selling_price_subtotal: 90,
      items: [{ product_id: 'p1', sku: 'A', original_price: 100, selling_price: 90, quantity: 1 }],
    };
    const explainFor = async (sourceId?: string) => {
      const res = await call(api.url, 'POST', `/admin/applications/${app.id}/explain`, {
        headers: ADMIN_HEADERS,
        body: { ...(sourceId ? { source_id: sourceId } : {}), order },
      });
      expect(res.status, res.text).to.equal(200);
      return res.body.results.find((r: { code: string }) => r.code === code);
    };
    const notReached = [
      {
        rule: 'availability',
        passed: null,
        text: 'available now',
        figures: { state: 'available', valid_from: '2020-01-01T00:00:00.000Z', valid_until: null },
      },
      { rule: 'order', passed: null, text: 'order read', figures: {} },
      {
        rule: 'discount',
        passed: null,
        text: '10% on selling_price_subtotal',
        figures: {
          base: 'selling_price_subtotal',
          base_amount: 90,
          type: 'percentage',
          value: 10,
          max_amount: null,
          kind: 'discount',
          discount_amount: 9,
          eligible_items: null,
          item_discount_amount: [null],
        },
      },
    ];
    const refused = (text: string) => ({
      campaign_id: made.body.id,
      campaign_name: 'assigned',
      code,
      applicable: false,
      reason: 'coupon_not_found',
      message: 'coupon not found, invalid coupon code or coupon id',
      discount_amount: 0,
      cashback_amount: 0,
      checks: [{ rule: 'assignment', passed: false, text, figures: {} }, ...notReached],
    });
    expect(await explainFor('c1')).to.deep.equal(refused('assigned to other customers'));
    expect(await explainFor()).to.deep.equal(refused('assigned to some customers: name one (source_id)'));
    const mine = await explainFor('c2');
    expect(mine.applicable).to.equal(true);
    expect(mine.checks.map((c: { passed: boolean | null }) => c.passed)).to.deep.equal([true, true, true]);
  });

  it('when a flat discount applies, then every money figure of the explanation is in currency units, its value as the campaign states it', async () => {
    const code = `FLAT${process.pid}`;
    const made = await call(api.url, 'POST', `/admin/applications/${app.id}/campaigns`, {
      headers: ADMIN_HEADERS,
      body: {
        name: 'flat ten',
        code,
        valid_from: '2020-01-01T00:00:00Z',
        discount: { kind: 'discount', type: 'flat', value: 10, max: 8 },
        discount_calculated_on_property: 'selling_price_subtotal',
        cart_conditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 50 }],
      },
    });
    expect(made.status, made.text).to.equal(201);
    expect(made.body.discount.value, 'the campaign states a flat 10').to.equal(10);
    const res = await call(api.url, 'POST', `/admin/applications/${app.id}/explain`, {
      headers: ADMIN_HEADERS,
      body: {
        code,
        order: {
          original_price_subtotal: 100,
          selling_price_subtotal: 90,
          shipping: 5,
          items: [{ product_id: 'p1', sku: 'A', original_price: 100, selling_price: 90, quantity: 1 }],
        },
      },
    });
    expect(res.status, res.text).to.equal(200);
    const [result] = res.body.results;
    expect(result.discount_amount).to.equal(8);
    const rows = Object.fromEntries(result.checks.map((c: { rule: string; figures: object }) => [c.rule, c.figures]));
    expect(rows.cart_condition).to.deep.equal({ field: 'selling_price_subtotal', operator: 'gte', value: 50, actual: 90 });
    expect(rows.discount).to.deep.equal({
      base: 'selling_price_subtotal',
      base_amount: 90,
      type: 'flat',
      value: 10,
      max_amount: 8,
      kind: 'discount',
      discount_amount: 8,
      eligible_items: null,
      item_discount_amount: [null],
    });
    expect(centsKeys(res.body)).to.deep.equal([]);
  });

  it("when a flat tier or a free gift applies, then the tier's value, its threshold and the gift's value are in currency units", async () => {
    const order = {
      original_price_subtotal: 150,
      selling_price_subtotal: 150,
      items: [{ product_id: 'p1', sku: 'A', original_price: 150, selling_price: 150, quantity: 1 }],
    };
    const explainOf = async (name: string, discount: object) => {
      const code = `${name.toUpperCase()}${process.pid}`;
      const made = await call(api.url, 'POST', `/admin/applications/${app.id}/campaigns`, {
        headers: ADMIN_HEADERS,
        body: { name, code, valid_from: '2020-01-01T00:00:00Z', discount, discount_calculated_on_property: 'selling_price_subtotal' },
      });
      expect(made.status, made.text).to.equal(201);
      const res = await call(api.url, 'POST', `/admin/applications/${app.id}/explain`, { headers: ADMIN_HEADERS, body: { code, order } });
      expect(res.status, res.text).to.equal(200);
      expect(centsKeys(res.body)).to.deep.equal([]);
      const [result] = res.body.results;
      return Object.fromEntries(result.checks.map((c: { rule: string }) => [c.rule, c])) as Record<
        string,
        { text: string; figures: object }
      >;
    };
    const tiered = await explainOf('tiers', {
      kind: 'discount',
      type: 'tiered',
      tier_type: 'flat',
      tiers: [
        { from: 100, value: 10 },
        { from: 200, value: 25 },
      ],
    });
    expect(tiered.promotion).to.deep.equal({
      rule: 'promotion',
      passed: true,
      text: 'tier from 100.00 reached',
      figures: {
        base: 'selling_price_subtotal',
        base_amount: 150,
        value_type: 'flat',
        first_tier_amount: 100,
        tier_from_amount: 100,
        tier_value: 10,
      },
    });
    const gift = await explainOf('gift', {
      kind: 'discount',
      type: 'free_gift',
      gift: { product_id: 'case', name: 'Phone case', value: 19.99 },
    });
    expect((gift.discount!.figures as { free_gifts: unknown }).free_gifts).to.deep.equal([
      { product_id: 'case', sku: null, name: 'Phone case', quantity: 1, value: 19.99 },
    ]);
  });

  it("when every campaign is explained, then each gets a verdict, an unknown code is validate's 400, and nothing was counted", async () => {
    const res = await call(api.url, 'POST', `/admin/applications/${app.id}/explain`, {
      headers: ADMIN_HEADERS,
      body: {
        source_id: 'c1',
        order: {
          original_price_subtotal: 100,
          selling_price_subtotal: 90,
          items: [{ product_id: 'p1', sku: 'A', original_price: 100, selling_price: 90, quantity: 1 }],
        },
      },
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.results.length).to.be.above(10);
    for (const r of res.body.results) expect(r).to.include.keys('campaign_id', 'applicable', 'checks');
    const unknown = await call(api.url, 'POST', `/admin/applications/${app.id}/explain`, {
      headers: ADMIN_HEADERS,
      body: { code: 'NOPE-NOT-HERE' },
    });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.details).to.equal('coupon not found, invalid coupon code or coupon id');
    const usage = await call(api.url, 'GET', `/admin/applications/${app.id}/redemptions?limit=100`, { headers: ADMIN_HEADERS });
    const before = usage.body.redemptions.length;
    await call(api.url, 'POST', `/admin/applications/${app.id}/explain`, { headers: ADMIN_HEADERS, body: { source_id: 'c1' } });
    const after = await call(api.url, 'GET', `/admin/applications/${app.id}/redemptions?limit=100`, { headers: ADMIN_HEADERS });
    expect(after.body.redemptions.length).to.equal(before);
  });
});

/** Every key of an answer, at any depth, that still names hundredths. */
function centsKeys(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(centsKeys);
  if (typeof v !== 'object' || v === null) return [];
  return Object.entries(v).flatMap(([k, x]) => [...(/cents/i.test(k) ? [k] : []), ...centsKeys(x)]);
}
