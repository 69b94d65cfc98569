import { expect } from 'chai';
import { createBulkCodes, createCampaign, createCustomers, makeOrder, seedUsage } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

describe('POST /coupons/validate', () => {
  let api: TestApi;
  let app: TestApplication;
  let cust1: string;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    api.services.now = () => new Date();
    app = await createTestApplication(api.services);
    const cs = await createCustomers(api.services, app.id, ['cust-1', 'cust-2']);
    cust1 = cs[0]!.id;
  });

  const validate = (body: unknown, headers: Record<string, string> = {}) =>
    call(api.url, 'POST', '/coupons/validate', { auth: app.auth, body, headers });
  const blank = {
    order_id: '',
    source_id: '',
    status: '',
    original_price_subtotal: 0,
    selling_price_subtotal: 0,
    total_discount: 0,
    total_amount: 0,
    total_cashback: 0,
    shipping: 0,
    coupon_details: {},
    metadata: {},
    items: [],
  };

  it('when a coupon applies to an order, then the Coupon result carries the exact savings', async () => {
    const c = await createCampaign(api.services, app.id, { code: 'Save10', name: 'Ten off', termsAndConditions: ['t1', 't2'] });
    const order = makeOrder({ shipping: 40, payment_mode: 'UPI' });
    const res = await validate(
      { source_id: 'cust-1', coupon_details: [{ coupon_id: '', coupon_code: ' save10 ' }], order },
      { 'x-request-id': 'rv-1' },
    );
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      coupon_code: 'Save10',
      coupon_code_id: c.id,
      coupon_name: 'Ten off',
      coupon_terms_and_conditions: ['t1', 't2'],
      is_applicable: true,
      coupon_savings: {
        order: {
          order_id: order.order_id,
          source_id: 'cust-1',
          status: 'completed',
          original_price_subtotal: 1200,
          selling_price_subtotal: 1000,
          total_discount: 100,
          total_amount: 900,
          total_cashback: 0,
          shipping: 40,
          payment_mode: 'UPI',
          discount_calculated_on_property: 'selling_price_subtotal',
          coupon_details: {},
          metadata: {},
          items: [
            {
              product_id: 'p1',
              name: 'Shirt',
              sku: 'SKU1',
              original_price: 700,
              selling_price: 600,
              quantity: 1,
              shipping: 0,
              metadata: {},
              final_amount: 600,
            },
            {
              product_id: 'p2',
              name: 'Socks',
              sku: 'SKU2',
              original_price: 250,
              selling_price: 200,
              quantity: 2,
              shipping: 0,
              metadata: {},
              final_amount: 400,
            },
          ],
        },
      },
      request_id: 'rv-1',
    });
  });

  it('when a selected-items discount does not divide evenly, then item discounts sum exactly to the total', async () => {
    await createCampaign(api.services, app.id, {
      code: 'THIRD',
      discount: { kind: 'discount', type: 'flat', value: 1000, maxCents: null, walletId: null },
      discountCalculatedOn: 'selected_items_selling_price_subtotal',
      itemSelector: { match: 'OR', properties: [{ property: 'sku', values: ['A', 'B', 'C'] }] },
    });
    const items = ['A', 'B', 'C', 'D'].map((sku, i) => ({
      product_id: `p${i}`,
      sku,
      original_price: 100,
      selling_price: 100,
      quantity: 1,
      shipping: 0,
    }));
    const res = await validate({
      coupon_details: [{ coupon_code: 'THIRD' }],
      order: { original_price_subtotal: 400, selling_price_subtotal: 400, items },
    });
    const o = res.body.coupon_savings.order;
    expect(o.total_discount).to.equal(10);
    expect(o.items.map((i: { discount_value: number }) => i.discount_value)).to.deep.equal([3.34, 3.33, 3.33, 0]);
    expect(o.items.map((i: { final_amount: number }) => i.final_amount)).to.deep.equal([96.66, 96.67, 96.67, 100]);
  });

  const notApplicable: [string, Record<string, unknown>, () => unknown, string][] = [
    [
      'the order subtotals are missing',
      {},
      () => ({ items: [] }),
      'invalid payload, original_price_subtotal and selling_price_subtotal is required and should not be 0',
    ],
    [
      'a subtotal is 0',
      {},
      () => makeOrder({ selling_price_subtotal: 0 }),
      'invalid payload, original_price_subtotal and selling_price_subtotal is required and should not be 0',
    ],
    [
      'a subtotal has the wrong type',
      {},
      () => makeOrder({ original_price_subtotal: '1200' }),
      'invalid payload, original_price_subtotal and selling_price_subtotal is required and should not be 0',
    ],
    [
      'an item has no product_id',
      {},
      () => makeOrder({ items: [{ original_price: 1, selling_price: 1, shipping: 0 }] }),
      'product_id is required',
    ],
    ['the total limit is reached', { limits: { total: 0 } }, () => makeOrder(), 'coupon code redemption total_limit exceeded'],
    [
      'the coupon expired',
      { validUntil: new Date('2021-01-01T00:00:00Z') },
      () => makeOrder(),
      'coupon is not available at this moment or expired',
    ],
    [
      'the coupon has not started',
      { validFrom: new Date('2099-01-01T00:00:00Z') },
      () => makeOrder(),
      'coupon is not available at this moment or expired',
    ],
    [
      'a cart rule fails',
      { cartConditions: [{ field: 'selling_price_subtotal', operator: 'gt', value: 200000 }] },
      () => makeOrder(),
      'selling_price_subtotal should be greater than 2000.00',
    ],
    [
      'a product validation fails',
      { productValidations: [{ field: 'selling_price', operator: 'gt', value: 50000 }] },
      () => makeOrder(),
      'selling_price should be greater than 500.00',
    ],
    [
      'a cart_qty validation fails',
      { productValidations: [{ field: 'cart_qty', operator: 'gt', value: 1 }] },
      () => makeOrder(),
      'cart_qty should be greater than 1',
    ],
    [
      'no item has the selected properties',
      {
        discountCalculatedOn: 'selected_items_selling_price_subtotal',
        itemSelector: {
          match: 'AND',
          properties: [
            { property: 'sku', values: ['SKU1'] },
            { property: 'name', values: ['Socks'] },
          ],
        },
      },
      () => makeOrder(),
      'Discount validation is failed, please check terms and condition in the coupon tray',
    ],
    [
      'a selected-items validation fails',
      {
        discountCalculatedOn: 'selected_items_selling_price_subtotal',
        itemSelector: { match: 'OR', properties: [{ property: 'sku', values: ['SKU2'] }] },
        selectedItemsValidations: [{ field: 'selected_items_total_qty', operator: 'gte', value: 3 }],
      },
      () => makeOrder(),
      'Discount validation is failed, please check terms and condition in the coupon tray',
    ],
  ];
  for (const [label, overrides, order, message] of notApplicable) {
    it(`when ${label}, then 200 not applicable with "${message}" and the blank savings shape`, async () => {
      const limits = (overrides.limits as { total?: number } | undefined)?.total === 0 ? { total: 1 } : undefined;
      const c = await createCampaign(api.services, app.id, { code: 'NA', ...overrides, ...(limits ? { limits } : {}) });
      if (limits) await seedUsage(api.services, app.id, c.id, 'total');
      const res = await validate({ source_id: 'cust-1', coupon_details: [{ coupon_code: 'NA' }], order: order() });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        coupon_code: 'NA',
        coupon_code_id: c.id,
        coupon_name: 'Test coupon',
        coupon_terms_and_conditions: ['One per order'],
        is_applicable: false,
        message,
        coupon_savings: { order: blank },
        request_id: res.headers.get('x-request-id'),
      });
    });
  }

  it('when the per-customer limit is reached, then per_user_limit exceeded; another customer still applies', async () => {
    const c = await createCampaign(api.services, app.id, { code: 'PU', limits: { perCustomer: 1 } });
    await seedUsage(api.services, app.id, c.id, `customer:${cust1}`);
    const mine = await validate({ source_id: 'cust-1', coupon_details: [{ coupon_code: 'PU' }] });
    expect(mine.body).to.include({ is_applicable: false, message: 'coupon code redemption per_user_limit exceeded' });
    const theirs = await validate({ source_id: 'cust-2', coupon_details: [{ coupon_code: 'PU' }] });
    expect(theirs.body.is_applicable).to.equal(true);
  });

  for (const [period, limits, message] of [
    ['day', { perDay: 1 }, 'coupon code redemption per_day_limit exceeded'],
    ['week', { perWeek: 1 }, 'coupon code redemption per_week_limit exceeded'],
    ['month', { perMonth: 1 }, 'coupon code redemption per_month_limit exceeded'],
  ] as const) {
    it(`when the per-${period} limit is reached in the application's timezone, then ${message}`, async () => {
      api.services.now = () => new Date('2026-03-10T20:00:00Z'); // 2026-03-11 01:30 in Asia/Kolkata
      const c = await createCampaign(api.services, app.id, { code: 'PERIOD', limits });
      const scope = { day: 'day:2026-03-11', week: 'week:2026-W11', month: 'month:2026-03' }[period];
      await seedUsage(api.services, app.id, c.id, scope);
      const res = await validate({ coupon_details: [{ coupon_code: 'PERIOD' }] });
      expect(res.body).to.include({ is_applicable: false, message });
    });
  }

  it('when outside the schedule, then not available', async () => {
    api.services.now = () => new Date('2026-03-10T20:00:00Z'); // Wednesday 01:30 in Kolkata
    await createCampaign(api.services, app.id, { code: 'OFFICE', schedule: { daysOfWeek: [3], hours: [{ from: '09:00', to: '18:00' }] } });
    const res = await validate({ coupon_details: [{ coupon_code: 'OFFICE' }] });
    expect(res.body).to.include({ is_applicable: false, message: 'coupon is not available at this moment or expired' });
  });

  const errors: [string, () => unknown, string, string][] = [
    [
      'the source_id is unknown',
      () => ({ source_id: 'ghost', coupon_details: [{ coupon_code: 'E' }] }),
      'invalid_payload',
      'invalid source_id',
    ],
    [
      'the coupon code and id are wrong',
      () => ({ coupon_details: [{ coupon_id: 'x', coupon_code: 'NOPE' }] }),
      'coupon validation failed',
      'coupon not found, invalid coupon code or coupon id',
    ],
    [
      'the coupon id and code are both missing',
      () => ({ coupon_details: [{}] }),
      'coupon validation failed',
      'coupon not found, invalid coupon code or coupon id',
    ],
    ['coupon_details is missing', () => ({}), 'coupon validation failed', 'coupon not found, invalid coupon code or coupon id'],
    [
      'coupon_details is empty',
      () => ({ coupon_details: [] }),
      'coupon validation failed',
      'coupon not found, invalid coupon code or coupon id',
    ],
    [
      'two coupons are sent',
      () => ({ coupon_details: [{ coupon_code: 'E' }, { coupon_code: 'E' }] }),
      'Invalid payload',
      'only one coupon can be applied per request',
    ],
    [
      'an assigned-user coupon is validated without a customer',
      () => ({ coupon_details: [{ coupon_code: 'MINE' }] }),
      'Invalid source_id',
      'please login/signup to redeem the coupon code',
    ],
    [
      'an assigned-user coupon is validated by another customer',
      () => ({ source_id: 'cust-2', coupon_details: [{ coupon_code: 'MINE' }] }),
      'coupon validation failed',
      'coupon not found, invalid coupon code or coupon id',
    ],
  ];
  for (const [label, body, message, details] of errors) {
    it(`when ${label}, then 400 ${message} / ${details}`, async () => {
      await createCampaign(api.services, app.id, { code: 'E' });
      await createCampaign(api.services, app.id, { code: 'MINE', assignment: 'assigned_users', assignedCustomerIds: [cust1] });
      const res = await validate(body());
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ code: 400, message, details, request_id: res.headers.get('x-request-id') });
    });
  }

  it('when the id is right and the code wrong (or the reverse), then the coupon is found (docs/decisions.md#15)', async () => {
    const c = await createCampaign(api.services, app.id, { code: 'RIGHT' });
    expect((await validate({ coupon_details: [{ coupon_id: c.id, coupon_code: 'WRONG' }] })).body.coupon_code).to.equal('RIGHT');
    expect((await validate({ coupon_details: [{ coupon_id: 'wrong', coupon_code: 'right' }] })).body.coupon_code).to.equal('RIGHT');
    expect((await validate({ coupon_details: [{ coupon_id: 'right' }] })).body.coupon_code).to.equal('RIGHT');
  });

  it('when a bulk code is typed with coupon_id "bulk", then it is found and counted per code', async () => {
    const c = await createCampaign(api.services, app.id, { codeType: 'bulk', code: undefined });
    await createBulkCodes(api.services, app.id, c.id, ['BULK-AAA']);
    const res = await validate({ coupon_details: [{ coupon_id: 'bulk', coupon_code: 'bulk-aaa' }] });
    expect(res.body).to.include({ coupon_code: 'BULK-AAA', is_applicable: true });
    await seedUsage(api.services, app.id, c.id, `code:${res.body.coupon_code_id}`);
    const used = await validate({ coupon_details: [{ coupon_id: res.body.coupon_code_id, coupon_code: '' }] });
    expect(used.body).to.include({ is_applicable: false, message: 'coupon code redemption total_limit exceeded' });
  });

  it('when metadata is sent, then only declared keys with the declared type are echoed (docs/decisions.md#19)', async () => {
    await createCampaign(api.services, app.id, {
      code: 'META',
      metadataKeys: [
        { key: 'channel', type: 'string', scope: 'order' },
        { key: 'gift', type: 'boolean', scope: 'item' },
      ],
      cartConditions: [{ field: 'metadata.channel', operator: 'in', value: ['app', 'web'] }],
    });
    const order = makeOrder({ metadata: { channel: 'app', other: 1, __proto__x: 2, $where: 'x' } });
    (order.items as Record<string, unknown>[])[0]!.metadata = { gift: true, channel: 'app' };
    (order.items as Record<string, unknown>[])[1]!.metadata = { gift: 'yes' };
    const res = await validate({ coupon_details: [{ coupon_code: 'META' }], order });
    expect(res.body.is_applicable).to.equal(true);
    expect(res.body.coupon_savings.order.metadata).to.deep.equal({ channel: 'app' });
    expect(res.body.coupon_savings.order.items.map((i: { metadata: unknown }) => i.metadata)).to.deep.equal([{ gift: true }, {}]);
    const wrong = await validate({ coupon_details: [{ coupon_code: 'META' }], order: makeOrder({ metadata: { channel: 'pos' } }) });
    expect(wrong.body).to.include({ is_applicable: false, message: 'channel should be one of app, web' });
    const absent = await validate({ coupon_details: [{ coupon_code: 'META' }], order: makeOrder() });
    expect(absent.body.is_applicable).to.equal(true); // optional field not sent: no error (list rule 5)
  });
});
