import { expect } from 'chai';
import { makeOrder } from '../fixtures/records.js';
import { ADMIN_HEADERS as ADMIN, adminHelpers, settle } from '../support/admin.js';
import { call, startTestApi, type TestApi } from '../support/context.js';

/** One example per rule kind (docs/campaigns.md); each must read back equal. */
const CAMPAIGNS: Record<string, Record<string, unknown>> = {
  'percentage on selling subtotal with cap and cart minimum': {
    discount: { kind: 'discount', type: 'percentage', value: 10, max: 150 },
    discount_calculated_on_property: 'selling_price_subtotal',
    cart_conditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 200 }],
  },
  'flat on original subtotal': {
    discount: { kind: 'discount', type: 'flat', value: 75.5 },
    discount_calculated_on_property: 'original_price_subtotal',
  },
  'shipping discount': { discount: { kind: 'discount', type: 'percentage', value: 100 }, discount_calculated_on_property: 'shipping' },
  'selected items (AND) with selected-items validations': {
    discount: { kind: 'discount', type: 'percentage', value: 15 },
    discount_calculated_on_property: 'selected_items_selling_price_subtotal',
    item_selector: {
      match: 'AND',
      properties: [
        { property: 'sku', operator: 'in', values: ['S1'] },
        { property: 'name', operator: 'eq', values: ['Shoe'] },
      ],
    },
    selected_items_validations: [
      { field: 'selected_items_total_qty', operator: 'gte', value: 2 },
      { field: 'selected_items_selling_price_subtotal', operator: 'gt', value: 99.99 },
    ],
  },
  'selected items (OR) on original price': {
    discount: { kind: 'discount', type: 'flat', value: 20 },
    discount_calculated_on_property: 'selected_items_original_price_subtotal',
    item_selector: { match: 'OR', properties: [{ property: 'product_id', operator: 'in', values: ['p1', 'p2'] }] },
  },
  'selected items that are not gift cards (nin, neq)': {
    discount: { kind: 'discount', type: 'percentage', value: 10 },
    discount_calculated_on_property: 'selected_items_selling_price_subtotal',
    item_selector: {
      match: 'AND',
      properties: [
        { property: 'sku', operator: 'nin', values: ['GIFT-1', 'GIFT-2'] },
        { property: 'name', operator: 'neq', values: ['Gift card'] },
      ],
    },
  },
  'valid cart excluding items': {
    discount: { kind: 'discount', type: 'percentage', value: 5 },
    discount_calculated_on_property: 'valid_cart_selling_price_subtotal',
    excluded_items: { match: 'OR', properties: [{ property: 'sku', operator: 'in', values: ['GIFTCARD'] }] },
  },
  'valid cart on original price': {
    discount: { kind: 'discount', type: 'percentage', value: 5 },
    discount_calculated_on_property: 'valid_cart_original_price_subtotal',
  },
  'product validations': {
    discount: { kind: 'discount', type: 'percentage', value: 10 },
    discount_calculated_on_property: 'selling_price_subtotal',
    product_validations: [
      { field: 'selling_price', operator: 'gt', value: 100 },
      { field: 'cart_qty', operator: 'lte', value: 5 },
    ],
  },
  'metadata rules and schedule and limits': {
    discount: { kind: 'discount', type: 'percentage', value: 10 },
    discount_calculated_on_property: 'selling_price_subtotal',
    metadata_keys: [
      { key: 'channel', type: 'string', scope: 'order' },
      { key: 'gift', type: 'boolean', scope: 'item' },
      { key: 'tier', type: 'string', scope: 'both' },
    ],
    cart_conditions: [
      { field: 'metadata.channel', operator: 'in', value: ['app'] },
      { field: 'payment_mode', operator: 'nin', value: ['COD'] },
    ],
    product_validations: [
      { field: 'metadata.gift', operator: 'eq', value: false },
      { field: 'metadata.tier', operator: 'neq', value: 'staff' },
    ],
    schedule: { days_of_week: [1, 2, 3, 4, 5], hours: [{ from: '09:00', to: '21:00' }] },
    limits: { total: 1000, per_customer: 2, per_day: 100, per_week: 300, per_month: 900 },
  },
  cashback: {
    discount: { kind: 'cashback', type: 'percentage', value: 5, max: 50, wallet_id: 'loyalty' },
    discount_calculated_on_property: 'selling_price_subtotal',
  },
};

describe('admin API', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });
  const { admin, basic, client, newApp, must } = adminHelpers(() => api);

  it('when no admin token is configured, then /admin answers 404 like an unknown route', async () => {
    const off = await startTestApi({ ADMIN_TOKEN: undefined });
    try {
      const res = await call(off.url, 'GET', '/admin/applications', { headers: ADMIN });
      expect(res.status).to.equal(404);
      expect(res.text).to.equal('Cannot GET /admin/applications');
    } finally {
      await off.close();
    }
  });

  for (const [label, headers] of [
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer wrong-token-wrong-token' }],
  ] as const) {
    it(`when the admin token is ${label}, then 401`, async () => {
      const res = await admin('GET', '/applications', undefined, headers);
      expect(res.status).to.equal(401);
      expect(res.body).to.include({ code: 401, message: 'unauthorized', details: 'admin token invalid' });
    });
  }

  it('when an application is created, then its secret is shown once, works, and is stored only hashed', async () => {
    const app = await newApp();
    expect(app.secret).to.match(/^sk_/);
    // Every page of the listing (other tests of this process created applications before this one).
    let shown: Record<string, unknown> | undefined;
    for (let cursor: string | null = null, pages = 0; !shown && pages < 1000; pages++) {
      const list = await admin('GET', `/applications?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(JSON.stringify(list.body)).to.not.include(app.secret);
      shown = list.body.applications.find((a: { id: string }) => a.id === app.id);
      cursor = list.body.next_cursor;
      if (!cursor) break;
    }
    expect(shown, 'the new application is listed').to.be.an('object');
    expect(shown).to.not.have.property('secret');
    const stored = await api.services.db.connection.db!.collection('applications').findOne({ apiKey: app.api_key });
    expect(JSON.stringify(stored)).to.not.include(app.secret);
    expect((await call(api.url, 'POST', '/coupons/list/all', { auth: basic(app) })).status).to.equal(200);
  });

  it('when the secret is rotated, then the old one stops working within the cache interval and the new one works', async () => {
    const app = await newApp();
    expect((await call(api.url, 'POST', '/coupons/list/all', { auth: basic(app) })).status).to.equal(200);
    const rotated = await admin('POST', `/applications/${app.id}/rotate-secret`);
    expect(rotated.body.secret).to.not.equal(app.secret);
    await settle();
    expect((await call(api.url, 'POST', '/coupons/list/all', { auth: basic(app) })).status).to.equal(401);
    expect((await call(api.url, 'POST', '/coupons/list/all', { auth: basic({ ...app, secret: rotated.body.secret }) })).status).to.equal(
      200,
    );
  });

  it('when an application is disabled, then its credentials get 401', async () => {
    const app = await newApp();
    await admin('PATCH', `/applications/${app.id}`, { status: 'disabled' });
    await settle();
    expect((await call(api.url, 'POST', '/coupons/list/all', { auth: basic(app) })).status).to.equal(401);
  });

  it('when customers are upserted and a wallet defined, then they read back', async () => {
    const app = await newApp();
    const up = await admin('POST', `/applications/${app.id}/customers`, {
      customers: [{ source_id: 'c1', name: 'Asha' }, { source_id: 'c2' }],
    });
    expect(up.body.customers.map((c: { source_id: string }) => c.source_id)).to.deep.equal(['c1', 'c2']);
    await admin('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1', email: 'asha@example.com' }] });
    const list = await admin('GET', `/applications/${app.id}/customers`);
    expect(list.body.customers).to.have.length(2);
    expect(list.body.customers[0]).to.include({ source_id: 'c1', name: 'Asha', email: 'asha@example.com' });
    const wallet = {
      wallet_id: 'loyalty',
      wallet_name: 'Loyalty',
      currency: 'INR',
      singular_unit_name: 'point',
      plural_unit_name: 'points',
      timezone: 'Asia/Kolkata',
    };
    expect((await admin('POST', `/applications/${app.id}/wallets`, wallet)).status).to.equal(201);
    const dup = await admin('POST', `/applications/${app.id}/wallets`, wallet);
    expect(dup.status).to.equal(409);
    expect(dup.body).to.include({ code: 409, message: 'conflict', details: '"wallet_id" already exists in this application' });
    expect((await admin('GET', `/applications/${app.id}/wallets`)).body).to.deep.equal({
      wallets: [{ ...wallet, points_expiry: null, pending: null, earning_rules: null, tiers: null, archived_at: null }],
      next_cursor: null,
    });
  });

  it('when campaigns of every rule kind are created, then each reads back equal and works on validate', async () => {
    const app = await newApp();
    await admin('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
    await admin('POST', `/applications/${app.id}/wallets`, {
      wallet_id: 'loyalty',
      wallet_name: 'L',
      currency: 'INR',
      singular_unit_name: 'p',
      plural_unit_name: 'ps',
      timezone: 'UTC',
    });
    let i = 0;
    for (const [label, rules] of Object.entries(CAMPAIGNS)) {
      const body = { name: label, code_type: 'fixed', code: `KIND${i++}`, valid_from: '2020-01-01T00:00', ...rules };
      const created = await admin('POST', `/applications/${app.id}/campaigns`, body);
      expect(created.status, `${label}: ${JSON.stringify(created.body)}`).to.equal(201);
      const read = await admin('GET', `/applications/${app.id}/campaigns/${created.body.id}`);
      for (const [k, v] of Object.entries(rules)) {
        if (k === 'discount') expect(read.body.discount, label).to.deep.include(v as object);
        else if (k === 'limits') expect(read.body.limits, label).to.deep.include(v as object);
        else expect(read.body[k], `${label}: ${k}`).to.deep.equal(v);
      }
      expect(read.body.valid_from).to.equal('2019-12-31T18:30:00.000Z'); // local midnight in Asia/Kolkata
    }
    expect((await admin('GET', `/applications/${app.id}/campaigns`)).body.campaigns).to.have.length(Object.keys(CAMPAIGNS).length);
    const v = await call(api.url, 'POST', '/coupons/validate', {
      auth: basic(app),
      body: { coupon_details: [{ coupon_code: 'KIND0' }], order: makeOrder() },
    });
    expect(v.body).to.include({ is_applicable: true });
    expect(v.body.coupon_savings.order.total_discount).to.equal(100);
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['name missing', { name: undefined }, '"name" is required'],
    ['unknown code type', { code_type: 'mystery' }, '"code_type" must be one of'],
    ['fixed without code', { code: undefined }, '"code" is required'],
    ['bulk with a code', { code_type: 'bulk' }, '"code" is not allowed'],
    [
      'percentage above 100',
      { discount: { kind: 'discount', type: 'percentage', value: 120 } },
      '"discount.value" must be less than or equal to 100',
    ],
    ['discount value not a number', { discount: { kind: 'discount', type: 'flat', value: 'ten' } }, '"discount.value" must be a number'],
    ['unknown base', { discount_calculated_on_property: 'tax' }, '"discount_calculated_on_property" must be one of'],
    [
      'bad operator',
      { cart_conditions: [{ field: 'selling_price_subtotal', operator: 'between', value: 1 }] },
      '"cart_conditions[0].operator" must be one of',
    ],
    [
      'numeric operator with a string',
      { cart_conditions: [{ field: 'selling_price_subtotal', operator: 'gt', value: 'x' }] },
      '"cart_conditions[0].value" must be a number',
    ],
    ['unknown cart field', { cart_conditions: [{ field: 'colour', operator: 'eq', value: 'red' }] }, '"cart_conditions[0].field"'],
    ['limit zero', { limits: { total: 0 } }, '"limits.total" must be greater than or equal to 1'],
    ['bad day of week', { schedule: { days_of_week: [8] } }, '"schedule.days_of_week[0]" must be less than or equal to 7'],
    ['bad hour', { schedule: { hours: [{ from: '25:00', to: '26:00' }] } }, '"schedule.hours[0].from"'],
    ['bad date', { valid_from: 'yesterday' }, '"valid_from"'],
    [
      'selected base without selector',
      { discount_calculated_on_property: 'selected_items_selling_price_subtotal' },
      '"item_selector" is required',
    ],
    [
      'undeclared metadata',
      { cart_conditions: [{ field: 'metadata.channel', operator: 'eq', value: 'app' }] },
      'undeclared order metadata key',
    ],
    [
      'unknown assigned customer',
      { assignment: 'assigned_users', assigned_source_ids: ['ghost'] },
      '"assigned_source_ids" contains unknown customers',
    ],
    [
      'cashback wallet unknown',
      { discount: { kind: 'cashback', type: 'flat', value: 5, wallet_id: 'nope' } },
      '"discount.wallet_id" is not a wallet',
    ],
  ];
  for (const [label, change, details] of bad) {
    it(`when a campaign has ${label}, then 400 naming the field`, async () => {
      const app = await newApp();
      const body = JSON.parse(
        JSON.stringify({
          name: 'x',
          code_type: 'fixed',
          code: 'BAD1',
          valid_from: '2020-01-01T00:00:00Z',
          discount: { kind: 'discount', type: 'percentage', value: 10 },
          discount_calculated_on_property: 'selling_price_subtotal',
          ...change,
        }),
      );
      const res = await admin('POST', `/applications/${app.id}/campaigns`, body);
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal('Invalid payload');
      expect(res.body.details).to.include(details);
    });
  }

  it('when an application has a bad timezone or currency, then 400 naming them', async () => {
    const res = await admin('POST', '/applications', { name: 'x', timezone: 'Mars/Olympus', currency: 'rupees' });
    expect(res.status).to.equal(400);
    expect(res.body.details).to.include('"timezone" must be an IANA timezone').and.include('"currency"');
  });

  it('when a fixed code is already used, then 409 naming code', async () => {
    const app = await newApp();
    const base = {
      name: 'x',
      code_type: 'fixed',
      valid_from: '2020-01-01T00:00:00Z',
      discount: { kind: 'discount', type: 'flat', value: 1 },
      discount_calculated_on_property: 'selling_price_subtotal',
    };
    expect((await admin('POST', `/applications/${app.id}/campaigns`, { ...base, code: 'SAME' })).status).to.equal(201);
    const dup = await admin('POST', `/applications/${app.id}/campaigns`, { ...base, code: 'same' });
    expect(dup.status).to.equal(409);
    expect(dup.body).to.include({ message: 'conflict' });
    expect(dup.body.details).to.include('"code" is already used');
  });

  it('when bulk codes are generated and imported, then they exist, duplicates are reported, and they validate', async () => {
    const app = await newApp();
    const c = await admin('POST', `/applications/${app.id}/campaigns`, {
      name: 'bulk',
      code_type: 'bulk',
      valid_from: '2020-01-01T00:00:00Z',
      discount: { kind: 'discount', type: 'flat', value: 10 },
      discount_calculated_on_property: 'selling_price_subtotal',
    });
    const gen = await admin('POST', `/applications/${app.id}/campaigns/${c.body.id}/codes`, { generate: { count: 50, prefix: 'GEN-' } });
    expect(gen.body).to.include({ inserted: 50, total: 50 });
    const codes = await admin('GET', `/applications/${app.id}/campaigns/${c.body.id}/codes?limit=100`);
    expect(codes.body.codes).to.have.length(50);
    expect(codes.body.codes[0].code).to.match(/^GEN-[A-Z2-9]{10}$/);
    const imp = await admin('POST', `/applications/${app.id}/campaigns/${c.body.id}/codes`, {
      codes: ['IMPORT-1', 'IMPORT-2', codes.body.codes[0].code],
    });
    expect(imp.body).to.deep.include({ inserted: 2, taken: [codes.body.codes[0].code], total: 52 });
    await settle();
    const v = await call(api.url, 'POST', '/coupons/validate', {
      auth: basic(app),
      body: { coupon_details: [{ coupon_id: 'bulk', coupon_code: 'import-2' }] },
    });
    expect(v.body).to.include({ coupon_code: 'IMPORT-2', is_applicable: true });
  });

  it("when another application's ids are used, then 404", async () => {
    const a = await newApp();
    const b = await newApp();
    const c = await admin('POST', `/applications/${a.id}/campaigns`, {
      name: 'x',
      code_type: 'fixed',
      code: 'MINE',
      valid_from: '2020-01-01T00:00:00Z',
      discount: { kind: 'discount', type: 'flat', value: 1 },
      discount_calculated_on_property: 'selling_price_subtotal',
    });
    const res = await admin('GET', `/applications/${b.id}/campaigns/${c.body.id}`);
    expect(res.status).to.equal(404);
    expect(res.body).to.include({ message: 'resource not found', details: 'campaign not found' });
    expect((await admin('GET', '/applications/000000000000000000000000/campaigns')).body.details).to.equal('application not found');
  });

  it('when redemptions and wallet movements happen, then the admin reads them', async () => {
    const app = await newApp();
    await admin('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
    await admin('POST', `/applications/${app.id}/wallets`, {
      wallet_id: 'loyalty',
      wallet_name: 'L',
      currency: 'INR',
      singular_unit_name: 'p',
      plural_unit_name: 'ps',
      timezone: 'UTC',
    });
    await admin('POST', `/applications/${app.id}/campaigns`, {
      name: 'cb',
      code_type: 'fixed',
      code: 'CB5',
      valid_from: '2020-01-01T00:00:00Z',
      ...CAMPAIGNS.cashback,
    });
    await settle();
    const order = makeOrder();
    const redeem = await call(api.url, 'POST', '/coupons/apply?type=redeem', {
      auth: basic(app),
      body: { source_id: 'c1', coupon_details: [{ coupon_code: 'CB5' }], order },
    });
    expect(redeem.status).to.equal(200);
    const reds = await admin('GET', `/applications/${app.id}/redemptions?customer=c1`);
    expect(reds.body.redemptions[0]).to.include({ order_id: order.order_id, state: 'completed', cashback: 50 });
    const ledger = await admin('GET', `/applications/${app.id}/customers/c1/wallets/loyalty/ledger`);
    expect(ledger.body.balance).to.equal(50);
    expect(ledger.body.entries[0]).to.include({ type: 'credit', points: 50, before: 0, after: 50, state: 'applied', origin: 'cashback' });
  });
  describe('defaults for what the client contract does not need', () => {
    it('when an application is created with only a name, then its timezone is UTC and it has no currency', async () => {
      const res = await admin('POST', '/applications', { name: 'Bare' });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ name: 'Bare', timezone: 'UTC', currency: null, status: 'active', archived_at: null });
      const patched = await admin('PATCH', `/applications/${res.body.id}`, { currency: 'EUR' });
      expect(patched.body.currency).to.equal('EUR');
      expect((await admin('PATCH', `/applications/${res.body.id}`, { currency: null })).body.currency).to.equal(null);
    });

    it('when the old request (name, timezone, currency) is sent, then it still creates the application', async () => {
      const app = await newApp();
      expect(app).to.include({ timezone: 'Asia/Kolkata', currency: 'INR' });
    });

    it("when a wallet is created with an empty body, then its id is generated and the rest defaults to the application's", async () => {
      const app = await newApp({ name: 'Shop', timezone: 'Europe/Paris', currency: 'EUR' });
      const a = await admin('POST', `/applications/${app.id}/wallets`, {});
      const b = await admin('POST', `/applications/${app.id}/wallets`, {});
      expect(a.status).to.equal(201);
      expect(a.body.wallet_id).to.match(/^wal_[0-9a-f]{16}$/);
      expect(b.body.wallet_id)
        .to.match(/^wal_[0-9a-f]{16}$/)
        .and.not.equal(a.body.wallet_id);
      expect(a.body).to.deep.equal({
        wallet_id: a.body.wallet_id,
        wallet_name: 'Loyalty points',
        currency: 'EUR',
        singular_unit_name: 'point',
        plural_unit_name: 'points',
        timezone: 'Europe/Paris',
        points_expiry: null,
        pending: null,
        earning_rules: null,
        tiers: null,
        archived_at: null,
      });
      await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
      const credit = await client(app, 'PUT', `/wallets/customer/c1/transactions/${a.body.wallet_id}`, { type: 'credit', points: 5 });
      expect(credit.status).to.equal(200);
      expect(credit.body).to.include({ wallet_id: a.body.wallet_id, loyalty_points: 5 });
    });

    it('when a wallet is created without a currency in an application without one, then 400 naming currency', async () => {
      const app = await newApp({ name: 'No currency' });
      const res = await admin('POST', `/applications/${app.id}/wallets`, { wallet_name: 'Stars' });
      expect(res.status).to.equal(400);
      expect(res.body.details).to.equal('"currency" is required: the application has no currency to default to');
      const ok = await admin('POST', `/applications/${app.id}/wallets`, { wallet_name: 'Stars', currency: 'USD' });
      expect(ok.body).to.include({ wallet_name: 'Stars', currency: 'USD', timezone: 'UTC' });
    });

    it('when a campaign gives only a name, a code and a discount, then it is fixed, on the selling subtotal, and valid from now', async () => {
      const app = await newApp();
      const before = Date.now();
      const res = await admin('POST', `/applications/${app.id}/campaigns`, {
        name: 'Now',
        code: 'NOW10',
        discount: { kind: 'discount', type: 'percentage', value: 10 },
      });
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.include({ code_type: 'fixed', discount_calculated_on_property: 'selling_price_subtotal', archived_at: null });
      const from = Date.parse(res.body.valid_from);
      expect(from).to.be.within(before - 1000, Date.now());
      await settle();
      const v = await client(app, 'POST', '/coupons/validate', { coupon_details: [{ coupon_code: 'now10' }], order: makeOrder() });
      expect(v.body).to.include({ is_applicable: true, coupon_code: 'NOW10' });
      expect(v.body.coupon_savings.order.total_discount).to.equal(100);
    });

    it('when a campaign has no code and no code type, then 400 "code" is required', async () => {
      const app = await newApp();
      const res = await admin('POST', `/applications/${app.id}/campaigns`, {
        name: 'x',
        discount: { kind: 'discount', type: 'flat', value: 1 },
      });
      expect(res.status).to.equal(400);
      expect(res.body.details).to.equal('"code" is required');
    });
  });

  describe('metadata keys and selectors', () => {
    const campaign = (rules: Record<string, unknown>) => ({
      name: 'meta',
      code: 'META',
      discount: { kind: 'discount', type: 'flat', value: 10 },
      ...rules,
    });
    /** A new application and the answer to creating the campaign `rules` in it. */
    async function create(rules: Record<string, unknown>) {
      const app = await newApp();
      return { app, res: await admin('POST', `/applications/${app.id}/campaigns`, campaign(rules)) };
    }

    it('when a key is declared without a scope, then it reads back as both and is evaluated on the order and on items', async () => {
      const { app, res: created } = await create({
        metadata_keys: [{ key: 'tier', type: 'string' }],
        cart_conditions: [{ field: 'metadata.tier', operator: 'eq', value: 'gold' }],
        product_validations: [{ field: 'metadata.tier', operator: 'neq', value: 'staff' }],
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.body.metadata_keys).to.deep.equal([{ key: 'tier', type: 'string', scope: 'both' }]);
      await settle();
      const validate = (orderTier: string, itemTier: string) => {
        const order = makeOrder({ metadata: { tier: orderTier } });
        order.items[0] = { ...order.items[0]!, metadata: { tier: itemTier } } as (typeof order.items)[number];
        return client(app, 'POST', '/coupons/validate', { coupon_details: [{ coupon_code: 'META' }], order });
      };
      const ok = await validate('gold', 'vip');
      expect(ok.body.is_applicable).to.equal(true);
      expect(ok.body.coupon_savings.order.metadata).to.deep.equal({ tier: 'gold' });
      expect(ok.body.coupon_savings.order.items[0].metadata).to.deep.equal({ tier: 'vip' });
      expect((await validate('silver', 'vip')).body).to.include({ is_applicable: false, message: 'tier should be equal to gold' });
      expect((await validate('gold', 'staff')).body).to.include({
        is_applicable: false,
        message: 'tier should not be equal to staff',
      });
    });

    it('when a key restricted to the order is used on items, then 400 naming the rule', async () => {
      const { res } = await create({
        metadata_keys: [{ key: 'channel', type: 'string', scope: 'order' }],
        product_validations: [{ field: 'metadata.channel', operator: 'eq', value: 'app' }],
      });
      expect(res.status).to.equal(400);
      expect(res.body.details).to.equal('"product_validations" uses undeclared item metadata key metadata.channel');
    });

    for (const [label, property, details] of [
      [
        'eq with two values',
        { property: 'sku', operator: 'eq', values: ['A', 'B'] },
        '"item_selector.properties[0].values" must hold exactly one value for eq and neq',
      ],
      [
        'an unknown operator',
        { property: 'sku', operator: 'like', values: ['A'] },
        '"item_selector.properties[0].operator" must be one of [in, nin, eq, neq]',
      ],
      [
        'nin with no value',
        { property: 'sku', operator: 'nin', values: [] },
        '"item_selector.properties[0].values" must contain at least 1 items',
      ],
    ] as const) {
      it(`when a selector has ${label}, then 400 naming it`, async () => {
        const { res } = await create({
          discount_calculated_on_property: 'selected_items_selling_price_subtotal',
          item_selector: { match: 'OR', properties: [property] },
        });
        expect(res.status).to.equal(400);
        expect(res.body.details).to.equal(details);
      });
    }

    it('when the valid cart excludes "sku not in" a list, then only the listed items carry the discount', async () => {
      const { app, res } = await create({
        discount: { kind: 'discount', type: 'percentage', value: 10 },
        discount_calculated_on_property: 'valid_cart_selling_price_subtotal',
        excluded_items: { match: 'OR', properties: [{ property: 'sku', operator: 'nin', values: ['SKU2'] }] },
      });
      expect(res.status, res.text).to.equal(201);
      await settle();
      const v = await client(app, 'POST', '/coupons/validate', { coupon_details: [{ coupon_code: 'META' }], order: makeOrder() });
      expect(v.body.coupon_savings.order.total_discount).to.equal(40);
      expect(v.body.coupon_savings.order.items.map((i: { discount_value: number }) => i.discount_value)).to.deep.equal([0, 40]);
    });
  });

  describe('one id per code', () => {
    /** A new application with one campaign (`fields` over a flat 5 off). */
    async function appWithCampaign(fields: Record<string, unknown>) {
      const app = await newApp();
      const campaign = await must('POST', `/applications/${app.id}/campaigns`, {
        discount: { kind: 'discount', type: 'flat', value: 5 },
        ...fields,
      });
      return { app, c: campaign as { id: string } };
    }
    it('when a fixed code is listed by the admin, then its id is the coupon_code_id that list and validate show, and validate accepts it', async () => {
      const { app, c } = await appWithCampaign({ name: 'fixed', code: 'ONEID' });
      await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
      const codes = await must('GET', `/applications/${app.id}/campaigns/${c.id}/codes`);
      expect(codes).to.deep.equal({
        codes: [{ id: c.id, code: 'ONEID', kind: 'fixed', used: null, uses_allowed: null }],
        next_cursor: null,
      });
      await settle();
      const list = await client(app, 'POST', '/coupons/list/all', { source_id: 'c1' });
      expect(list.body.map((r: { coupon_code_id: string }) => r.coupon_code_id)).to.deep.equal([c.id]);
      const v = await client(app, 'POST', '/coupons/validate', { coupon_details: [{ coupon_id: c.id, coupon_code: '' }] });
      expect(v.body).to.include({ coupon_code_id: c.id, coupon_code: 'ONEID', is_applicable: true });
      const order = makeOrder();
      const redeem = await client(app, 'POST', '/coupons/apply?type=redeem', {
        source_id: 'c1',
        coupon_details: [{ coupon_id: c.id }],
        order,
      });
      expect(redeem.body).to.include({ status: 'completed', couponId: c.id, coupon_code: 'ONEID' });
    });

    it('when a fixed code was stored under its own id (before this change), then the listing still shows the campaign id', async () => {
      const { app, c } = await appWithCampaign({ name: 'legacy', code: 'LEGACY' });
      await api.services.repos.couponCodes.deleteByCampaign(app.id, c.id);
      await api.services.repos.couponCodes.insertMany(app.id, c.id, 'fixed', ['LEGACY']);
      const row = await api.services.repos.couponCodes.findByCode(app.id, 'LEGACY');
      expect(row!.id).to.not.equal(c.id);
      expect((await must('GET', `/applications/${app.id}/campaigns/${c.id}/codes`)).codes).to.deep.equal([
        { id: c.id, code: 'LEGACY', kind: 'fixed', used: null, uses_allowed: null },
      ]);
      await settle();
      // A storefront that sends the code's own id still finds the coupon.
      const v = await client(app, 'POST', '/coupons/validate', { coupon_details: [{ coupon_id: row!.id }] });
      expect(v.body).to.include({ coupon_code_id: c.id, is_applicable: true });
    });

    it('when a bulk code is listed by the admin, then validate shows the same id and accepts it as coupon_id', async () => {
      const { app, c } = await appWithCampaign({ name: 'bulk', code_type: 'bulk' });
      await must('POST', `/applications/${app.id}/campaigns/${c.id}/codes`, { codes: ['BULK-ONE'] });
      const [code] = (await must('GET', `/applications/${app.id}/campaigns/${c.id}/codes`)).codes;
      await settle();
      const byCode = await client(app, 'POST', '/coupons/validate', { coupon_details: [{ coupon_id: 'bulk', coupon_code: 'bulk-one' }] });
      expect(byCode.body).to.include({ coupon_code_id: code.id, coupon_code: 'BULK-ONE' });
      const byId = await client(app, 'POST', '/coupons/validate', { coupon_details: [{ coupon_id: code.id }] });
      expect(byId.body).to.include({ coupon_code_id: code.id, coupon_code: 'BULK-ONE', is_applicable: true });
    });

    it('when bulk codes are redeemed and one reverted, then the listing says how often each was used and may be', async () => {
      const { app, c } = await appWithCampaign({ name: 'per code', code_type: 'bulk', bulk_code_usage_limit: 3 });
      await must('POST', `/applications/${app.id}/campaigns/${c.id}/codes`, { codes: ['PER-A', 'PER-B', 'PER-C'] });
      await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'c1' }] });
      await settle();
      const orders = [makeOrder(), makeOrder(), makeOrder()];
      for (const [code, order] of [
        ['PER-A', orders[0]],
        ['PER-A', orders[1]],
        ['PER-B', orders[2]],
      ] as const) {
        const res = await client(app, 'POST', '/coupons/apply?type=redeem', {
          source_id: 'c1',
          coupon_details: [{ coupon_id: 'bulk', coupon_code: code }],
          order,
        });
        expect(res.status, res.text).to.equal(200);
      }
      const reverted = await client(app, 'POST', '/coupons/apply?type=revert', {
        source_id: 'c1',
        coupon_details: [{ coupon_id: 'bulk', coupon_code: 'PER-B' }],
        order: orders[2],
      });
      expect(reverted.status, reverted.text).to.equal(200);
      const { codes } = await must('GET', `/applications/${app.id}/campaigns/${c.id}/codes`);
      expect(codes.map((x: { code: string; used: number; uses_allowed: number }) => [x.code, x.used, x.uses_allowed])).to.deep.equal([
        ['PER-A', 2, 3],
        ['PER-B', 0, 3],
        ['PER-C', 0, 3],
      ]);
    });
  });
});
