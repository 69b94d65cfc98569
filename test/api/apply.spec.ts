import { expect } from 'chai';
import { redemptionKey } from '../../shared/data/redemption-journal.repository.js';
import { createCampaign, createCustomers, createWallet, makeOrder, usageOf } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

describe('POST /coupons/apply', () => {
  let api: TestApi;
  let app: TestApplication;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    api.services.now = () => new Date();
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['cust-1', 'cust-2']);
  });

  const apply = (type: string, body: unknown, headers: Record<string, string> = {}) =>
    call(api.url, 'POST', `/coupons/apply?type=${type}`, { auth: app.auth, body, headers });
  const body = (code: string, order: Record<string, unknown> = makeOrder(), sourceId = 'cust-1') => ({
    source_id: sourceId,
    coupon_details: [{ coupon_id: code, coupon_code: code }],
    order,
  });
  const usage = (campaignId: string, scope: string) => usageOf(api.services, app.id, campaignId, scope);

  it('when a valid redeem is sent, then 200 with the Redeem/revert result object', async () => {
    const c = await createCampaign(api.services, app.id, { code: 'Save10' });
    const order = makeOrder();
    const res = await apply(
      'redeem',
      { source_id: 'cust-1', coupon_details: [{ coupon_id: c.id, coupon_code: 'save10' }], order },
      { 'x-request-id': 'r-1' },
    );
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      status: 'completed',
      couponId: c.id,
      orderId: order.order_id,
      coupon_code: 'Save10',
      request_id: 'r-1',
    });
  });

  it('when the same order is redeemed twice, then both answer completed and it counts once (docs/decisions.md#17)', async () => {
    const c = await createCampaign(api.services, app.id, { code: 'TWICE', limits: { total: 5 } });
    const order = makeOrder();
    const [a, b] = [await apply('redeem', body('TWICE', order)), await apply('redeem', body('TWICE', order))];
    expect(a.body.status).to.equal('completed');
    expect(b.body.status).to.equal('completed');
    expect(await usage(c.id, 'total')).to.equal(1);
  });

  it('when a redeemed order is reverted twice, then both answer reverted and the slot is freed once', async () => {
    const c = await createCampaign(api.services, app.id, { code: 'REV', limits: { total: 5 } });
    const order = makeOrder();
    await apply('redeem', body('REV', order));
    const r1 = await apply('revert', body('REV', order));
    const r2 = await apply('revert', body('REV', order));
    expect(r1.body.status).to.equal('reverted');
    expect(r2.body.status).to.equal('reverted');
    expect(await usage(c.id, 'total')).to.equal(0);
  });

  it('when an order is redeemed again after its revert, then it counts again', async () => {
    const c = await createCampaign(api.services, app.id, { code: 'AGAIN', limits: { total: 5 } });
    const order = makeOrder();
    await apply('redeem', body('AGAIN', order));
    await apply('revert', body('AGAIN', order));
    const again = await apply('redeem', body('AGAIN', order));
    expect(again.body.status).to.equal('completed');
    expect(await usage(c.id, 'total')).to.equal(1);
  });

  it('when orders are redeemed, reverted and redeemed again, then the journal keys each cycle by the campaign, a hash of the order id and the cycle', async () => {
    const c = await createCampaign(api.services, app.id, { code: 'KEYNEW', limits: { total: 5 } });
    const order = makeOrder();
    for (const type of ['redeem', 'redeem', 'revert', 'redeem']) expect((await apply(type, body('KEYNEW', order))).status).to.equal(200);
    const ids = (await api.services.db.models.Redemption.find({ campaign: c.id }).sort({ cycle: 1 }).lean()).map((d) => [d._id, d.state]);
    const digest = redemptionKey(c.id, order.order_id, 1).split(':')[1];
    expect(digest).to.have.length(16);
    expect(ids).to.deep.equal([
      [`${c.id}:${digest}:1`, 'reverted'],
      [`${c.id}:${digest}:2`, 'completed'],
    ]);
  });

  it('when redeem and revert of the same order race, then the final state is consistent with the last one applied', async () => {
    const c = await createCampaign(api.services, app.id, { code: 'RACE', limits: { total: 50 } });
    for (let i = 0; i < 10; i++) {
      const order = makeOrder();
      const [red, rev] = await Promise.all([apply('redeem', body('RACE', order)), apply('revert', body('RACE', order))]);
      expect(red.status).to.equal(200);
      // The revert either came first (nothing to revert) or undid the redemption.
      if (rev.status === 200) expect(rev.body.status).to.equal('reverted');
      else expect(rev.body.details).to.equal('no redemption found for this order and coupon');
    }
    const cycles = await api.services.db.models.Redemption.find({ application: app.id, campaign: c.id }).lean();
    const completed = cycles.filter((x) => x.state === 'completed').length;
    expect(await usage(c.id, 'total')).to.equal(completed);
    expect(cycles.every((x) => x.state === 'completed' || x.state === 'reverted')).to.equal(true);
  });

  it("when a revert happens on a later day, then the original day's counter is freed, not today's", async () => {
    const c = await createCampaign(api.services, app.id, { code: 'DAILY', limits: { perDay: 1 } });
    api.services.now = () => new Date('2026-03-10T06:00:00Z');
    const order = makeOrder();
    expect((await apply('redeem', body('DAILY', order))).status).to.equal(200);
    expect(await usage(c.id, 'day:2026-03-10')).to.equal(1);
    api.services.now = () => new Date('2026-03-11T06:00:00Z');
    expect((await apply('redeem', body('DAILY', makeOrder()))).status).to.equal(200);
    await apply('revert', body('DAILY', order));
    expect(await usage(c.id, 'day:2026-03-10')).to.equal(0);
    expect(await usage(c.id, 'day:2026-03-11')).to.equal(1);
  });

  it('when a cashback coupon with a wallet is redeemed and reverted, then the cashback is credited then debited', async () => {
    await createWallet(api.services, app.id, 'loyalty');
    await createCampaign(api.services, app.id, {
      code: 'CASHBACK',
      discount: { kind: 'cashback', type: 'percentage', value: 5, maxCents: null, walletId: 'loyalty' },
    });
    const order = makeOrder(); // selling subtotal 1000 → 5% = 50
    const balance = async () => (await call(api.url, 'GET', '/wallets/customer/cust-1', { auth: app.auth })).body[0].loyalty_points;
    await apply('redeem', body('CASHBACK', order));
    expect(await balance()).to.equal(50);
    await apply('redeem', body('CASHBACK', order)); // idempotent: no second credit
    expect(await balance()).to.equal(50);
    await apply('revert', body('CASHBACK', order));
    expect(await balance()).to.equal(0);
  });

  it('when a limit is exhausted, then 400 coupon validation failed with the limit text (docs/decisions.md#20a)', async () => {
    await createCampaign(api.services, app.id, { code: 'ONCE', limits: { total: 1 } });
    await apply('redeem', body('ONCE'));
    const res = await apply('redeem', body('ONCE', makeOrder(), 'cust-2'));
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({
      code: 400,
      message: 'coupon validation failed',
      details: 'coupon code redemption total_limit exceeded',
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('when a cart rule fails, then 400 coupon validation failed with the rule text', async () => {
    await createCampaign(api.services, app.id, {
      code: 'MIN2000',
      cartConditions: [{ field: 'selling_price_subtotal', operator: 'gt', value: 200000 }],
    });
    const res = await apply('redeem', body('MIN2000'));
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ message: 'coupon validation failed', details: 'selling_price_subtotal should be greater than 2000.00' });
  });

  it('when no item has the selected properties, then 400 with the coupon tray message', async () => {
    await createCampaign(api.services, app.id, {
      code: 'SHOES',
      discountCalculatedOn: 'selected_items_selling_price_subtotal',
      itemSelector: { match: 'OR', properties: [{ property: 'sku', values: ['SHOE-1'] }] },
    });
    const res = await apply('redeem', body('SHOES'));
    expect(res.status).to.equal(400);
    expect(res.body.message).to.equal('Discount validation is failed, please check terms and condition in the coupon tray');
  });

  const order = () => makeOrder();
  const errorRows: [string, string, () => unknown, string, string][] = [
    ['type is wrong', 'gift', () => body('X'), 'Invalid query param', 'type should be redeem or revert'],
    ['type is missing', '', () => body('X'), 'Invalid query param', 'type should be redeem or revert'],
    [
      'source_id is missing',
      'redeem',
      () => ({ coupon_details: [{ coupon_id: 'X', coupon_code: 'X' }], order: order() }),
      'Invalid payload',
      'Invalid source_id',
    ],
    ['source_id is unknown', 'redeem', () => body('SAVE', order(), 'ghost'), 'Invalid payload', 'Invalid source_id'],
    [
      'coupon_details is missing',
      'redeem',
      () => ({ source_id: 'cust-1', order: order() }),
      'coupon_code or coupon_id is missing',
      'coupon id or coupon code is required',
    ],
    [
      'coupon_details is empty',
      'redeem',
      () => ({ source_id: 'cust-1', coupon_details: [], order: order() }),
      'coupon_code or coupon_id is missing',
      'coupon id or coupon code is required',
    ],
    [
      'coupon id and code are blank',
      'redeem',
      () => ({ source_id: 'cust-1', coupon_details: [{ coupon_id: '', coupon_code: '' }], order: order() }),
      'coupon_code or coupon_id is missing',
      'coupon id or coupon code is required',
    ],
    [
      'two coupons are sent',
      'redeem',
      () => ({ source_id: 'cust-1', coupon_details: [{ coupon_code: 'A' }, { coupon_code: 'B' }], order: order() }),
      'Invalid payload',
      'only one coupon can be applied per request',
    ],
    [
      'the coupon is unknown',
      'redeem',
      () => body('NOPE'),
      'Invalid coupon code or coupon id',
      'coupon not found, invalid coupon code or coupon id',
    ],
    ['order_id is missing', 'redeem', () => body('SAVE', { ...order(), order_id: undefined }), 'Invalid payload', 'order_id is required'],
    [
      'order_id is longer than 256 characters',
      'redeem',
      () => body('SAVE', { ...order(), order_id: 'o'.repeat(257) }),
      'Invalid payload',
      'order_id should be at most 256 characters',
    ],
    [
      'selling_price_subtotal is missing',
      'redeem',
      () => body('SAVE', { ...order(), selling_price_subtotal: undefined }),
      'Invalid payload',
      'selling_price_subtotal is required',
    ],
    [
      'original_price_subtotal is missing',
      'redeem',
      () => body('SAVE', { ...order(), original_price_subtotal: undefined }),
      'Invalid payload',
      'original_price_subtotal is required',
    ],
    ['status is missing', 'redeem', () => body('SAVE', { ...order(), status: undefined }), 'Invalid payload', 'status is required'],
    [
      'status is reverted on redeem',
      'redeem',
      () => body('SAVE', { ...order(), status: 'reverted' }),
      'Invalid payload',
      'status should be pending or completed',
    ],
    ['items are missing', 'redeem', () => body('SAVE', { ...order(), items: undefined }), 'Invalid payload', 'items is required'],
    [
      'an item lacks selling_price',
      'redeem',
      () => body('SAVE', { ...order(), items: [{ product_id: 'p', original_price: 1, shipping: 0 }] }),
      'Invalid payload',
      'selling_price is required',
    ],
    [
      'an item lacks product_id',
      'redeem',
      () => body('SAVE', { ...order(), items: [{ original_price: 1, selling_price: 1, shipping: 0 }] }),
      'Invalid payload',
      'product_id is required',
    ],
    [
      'an item lacks the shipping field',
      'redeem',
      () => body('SAVE', { ...order(), items: [{ product_id: 'p', original_price: 1, selling_price: 1 }] }),
      'Invalid payload',
      'shipping is required',
    ],
    [
      'a revert names an order never redeemed',
      'revert',
      () => body('SAVE'),
      'Invalid payload',
      'no redemption found for this order and coupon',
    ],
  ];
  for (const [label, type, make, message, details] of errorRows) {
    it(`when ${label}, then 400 ${message} / ${details}`, async () => {
      await createCampaign(api.services, app.id, { code: 'SAVE' });
      const res = await apply(type, make());
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({ code: 400, message, details, request_id: res.headers.get('x-request-id') });
    });
  }

  it("when another application's coupon or customer is named, then it is not found (docs/decisions.md#25)", async () => {
    const other = await createTestApplication(api.services);
    await createCustomers(api.services, other.id, ['cust-1']);
    const c = await createCampaign(api.services, other.id, { code: 'THEIRS' });
    const res = await apply('redeem', {
      source_id: 'cust-1',
      coupon_details: [{ coupon_id: c.id, coupon_code: 'THEIRS' }],
      order: makeOrder(),
    });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.equal('Invalid coupon code or coupon id');
  });

  it('when an apply is repeated with the same Idempotency-Key, then the first response is replayed', async () => {
    await createCampaign(api.services, app.id, { code: 'IDEM', limits: { total: 1 } });
    const b = body('IDEM');
    const first = await apply('redeem', b, { 'idempotency-key': 'apply-1' });
    const second = await apply('redeem', b, { 'idempotency-key': 'apply-1' });
    expect(second.body).to.deep.equal(first.body);
    const conflict = await apply('redeem', body('IDEM'), { 'idempotency-key': 'apply-1' });
    expect(conflict.status).to.equal(409);
  });

  it('when a refused apply is repeated with its Idempotency-Key, then the replay is the first refusal byte for byte, request_id included', async () => {
    await createCampaign(api.services, app.id, { code: 'ONCE', limits: { total: 1 } });
    expect((await apply('redeem', body('ONCE'))).status).to.equal(200);
    const b = body('ONCE');
    const first = await apply('redeem', b, { 'idempotency-key': 'refused-1', 'x-request-id': 'first-request' });
    expect(first.status).to.equal(400);
    expect(first.body).to.include({ message: 'coupon validation failed', request_id: 'first-request' });
    const replay = await apply('redeem', b, { 'idempotency-key': 'refused-1', 'x-request-id': 'second-request' });
    expect(replay.status).to.equal(400);
    expect(replay.text).to.equal(first.text);
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.headers.get('x-request-id')).to.equal('second-request');
  });
});
