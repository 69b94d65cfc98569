import { expect } from 'chai';
import fc from 'fast-check';
import { createCampaign, createCustomers } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

/**
 * Property: whatever a client sends to list or validate — wrong types, `$` operators as values,
 * huge numbers, NaN-like strings, deep nesting, thousands of items — the answer is never a 5xx:
 * either a documented Error object (4xx) or a valid Coupon result.
 */
describe('hostile bodies on list and validate (property test)', function () {
  this.timeout(300_000);
  let api: TestApi;
  let app: TestApplication;
  before(async () => {
    api = await startTestApi();
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['cust-1']);
    await createCampaign(api.services, app.id, {
      code: 'PROP',
      metadataKeys: [{ key: 'channel', type: 'string', scope: 'order' }],
      cartConditions: [{ field: 'metadata.channel', operator: 'in', value: ['app'] }],
      productValidations: [{ field: 'cart_qty', operator: 'lte', value: 100 }],
    });
    await createCampaign(api.services, app.id, {
      code: 'PROP2',
      discountCalculatedOn: 'valid_cart_selling_price_subtotal',
      excludedItems: { match: 'OR', properties: [{ property: 'sku', values: ['X'] }] },
    });
  });
  after(async () => {
    await api.close();
  });

  const hostileScalar = fc.oneof(
    fc.constantFrom(null, true, false, '', 'NaN', 'Infinity', '-1', '1e309', '__proto__', 'constructor'),
    fc.double(),
    fc.integer(),
    fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER, 2 ** 64, -0, 0.005),
    fc.string({ maxLength: 40 }),
    fc.constantFrom({ $gt: 0 }, { $ne: null }, { $where: 'sleep(1000)' }, ['$in'], { __proto__: { polluted: true } }),
  );
  const deep = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      hostileScalar,
      fc.array(tie('node'), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 8 }), tie('node'), { maxKeys: 3 }),
    ),
  })).node;
  const item = fc.record(
    {
      product_id: fc.oneof(fc.string({ maxLength: 10 }), hostileScalar),
      original_price: fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), hostileScalar),
      selling_price: fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), hostileScalar),
      quantity: fc.oneof(fc.integer({ min: 1, max: 5 }), hostileScalar),
      shipping: hostileScalar,
      sku: fc.oneof(fc.constantFrom('X', 'Y'), hostileScalar),
      metadata: deep,
    },
    { requiredKeys: [] },
  );
  const order = fc.record(
    {
      order_id: hostileScalar,
      original_price_subtotal: fc.oneof(fc.double({ min: 0, max: 1e9, noNaN: true }), hostileScalar),
      selling_price_subtotal: fc.oneof(fc.double({ min: 0, max: 1e9, noNaN: true }), hostileScalar),
      shipping: hostileScalar,
      tax: hostileScalar,
      payment_mode: hostileScalar,
      status: hostileScalar,
      metadata: deep,
      items: fc.oneof(fc.array(item, { maxLength: 6 }), hostileScalar),
    },
    { requiredKeys: [] },
  );
  const body = fc.record(
    {
      source_id: fc.oneof(fc.constant('cust-1'), hostileScalar),
      coupon_details: fc.oneof(
        fc.array(
          fc.record(
            {
              coupon_id: fc.oneof(fc.constantFrom('PROP', 'bulk'), hostileScalar),
              coupon_code: fc.oneof(fc.constantFrom('prop', 'PROP2'), hostileScalar),
            },
            { requiredKeys: [] },
          ),
          { maxLength: 2 },
        ),
        hostileScalar,
      ),
      order: fc.oneof(order, hostileScalar, deep),
    },
    { requiredKeys: [] },
  );

  function assertContractShape(path: string, status: number, b: unknown) {
    expect(status, JSON.stringify(b)).to.be.below(500);
    if (status !== 200) {
      expect(b).to.have.keys(['code', 'message', 'details', 'request_id']);
      return;
    }
    const results = path.endsWith('list/all') ? (b as unknown[]) : [b];
    for (const r of results as Record<string, unknown>[]) {
      expect(r).to.include.keys(['coupon_code', 'coupon_code_id', 'is_applicable', 'coupon_savings', 'request_id']);
      const o = (r.coupon_savings as { order: Record<string, unknown> }).order;
      for (const k of ['total_discount', 'total_amount', 'total_cashback', 'selling_price_subtotal'])
        expect(Number.isFinite(o[k]), k).to.equal(true);
      expect(o.total_amount as number).to.be.at.least(0);
      expect(JSON.stringify(o)).to.not.match(/"\$|__proto__|polluted/);
    }
  }

  for (const path of ['/coupons/validate', '/coupons/list/all']) {
    it(`when ${path} receives 150 random hostile bodies, then never a 5xx and always a contract shape`, async () => {
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          const res = await call(api.url, 'POST', path, { auth: app.auth, body: b });
          assertContractShape(path, res.status, res.body);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('when an order has 5,000 items, then the answer is a valid result, not an error', async () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({
      product_id: `p${i}`,
      original_price: 2,
      selling_price: 1,
      quantity: 1,
      shipping: 0,
      sku: i % 2 ? 'X' : 'Y',
    }));
    const res = await call(api.url, 'POST', '/coupons/validate', {
      auth: app.auth,
      body: { coupon_details: [{ coupon_code: 'PROP2' }], order: { original_price_subtotal: 10000, selling_price_subtotal: 5000, items } },
    });
    expect(res.status).to.equal(200);
    expect(res.body.coupon_savings.order.total_discount).to.equal(250);
    const spread = res.body.coupon_savings.order.items.reduce(
      (s: number, i: { discount_value: number }) => s + Math.round(i.discount_value * 100),
      0,
    );
    expect(spread).to.equal(25000);
  });

  it('when JSON nests 10,000 levels deep, then a 4xx or a valid result, never a crash', async () => {
    const raw = `{"coupon_details":[{"coupon_code":"PROP"}],"order":${'['.repeat(10000)}${']'.repeat(10000)}}`;
    const res = await call(api.url, 'POST', '/coupons/validate', { auth: app.auth, rawBody: raw });
    expect(res.status).to.be.below(500);
  });

  it('when numbers overflow to Infinity in JSON (1e999), then not applicable, not a crash', async () => {
    const raw = '{"coupon_details":[{"coupon_code":"PROP2"}],"order":{"original_price_subtotal":1e999,"selling_price_subtotal":1e999}}';
    const res = await call(api.url, 'POST', '/coupons/validate', { auth: app.auth, rawBody: raw });
    expect(res.status).to.equal(200);
    expect(res.body.is_applicable).to.equal(false);
  });
});
