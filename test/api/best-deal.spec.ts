import { expect } from 'chai';
import type { Campaign } from '../../shared/domain/types.js';
import { DEFAULT_STACKING } from '../../shared/domain/types.js';
import { createCampaign, createCustomers, makeOrder, seedUsage } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

/** POST /coupons/best-deal (docs/best-deal.md), through a running API and worker. */
describe('best deal: the combination of a customer coupons that takes the most off a cart', () => {
  let api: TestApi;
  let app: TestApplication;
  let customerId: string;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });

  /** Opts the application in (before its first request, so no cache holds it yet). */
  const optIn = (maxCoupons: number, automaticPromotions = false) =>
    api.services.repos.applications.update(app.id, { stacking: { maxCoupons, automaticPromotions } } as never);

  beforeEach(async () => {
    api.services.now = () => new Date();
    app = await createTestApplication(api.services);
    const [customer] = await createCustomers(api.services, app.id, ['cust-1', 'cust-2']);
    customerId = customer!.id;
  });

  const post = (path: string, body: unknown) => call(api.url, 'POST', path, { auth: app.auth, body });
  const bestDeal = (order: Record<string, unknown> = makeOrder(), sourceId = 'cust-1') =>
    post('/coupons/best-deal', { source_id: sourceId, order });
  const campaign = (code: string, over: Partial<Campaign> = {}) => createCampaign(api.services, app.id, { code, name: code, ...over });
  const flat = (cents: number, stacking: Partial<Campaign['stacking']> = {}): Partial<Campaign> => ({
    discount: { kind: 'discount', type: 'flat', value: cents, maxCents: null, walletId: null },
    stacking: { ...DEFAULT_STACKING, ...stacking },
  });
  const codes = (body: { coupon_details: { coupon_code: string }[] }) => body.coupon_details.map((d) => d.coupon_code);

  it('when the application has not opted in to stacking, then 400 says best deal needs stacking', async () => {
    await campaign('ONE');
    const res = await bestDeal();
    expect(res.status).to.equal(400);
    expect(res.text).to.equal(
      `{"code":400,"message":"Invalid payload","details":"best deal needs stacking (docs/stacking.md)","request_id":"${res.body.request_id}"}`,
    );
    expect(res.headers.get('coupon-reason')).to.equal('stacking_not_enabled');
  });

  it('when the source_id is missing or unknown, or the order is missing, then the documented 400s', async () => {
    await optIn(3);
    for (const body of [{ order: makeOrder() }, { source_id: 'nobody', order: makeOrder() }]) {
      const res = await post('/coupons/best-deal', body);
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        code: 400,
        message: 'invalid_payload',
        details: 'invalid source_id',
        request_id: res.body.request_id,
      });
      expect(res.headers.get('coupon-reason')).to.equal('unknown_customer');
    }
    const res = await post('/coupons/best-deal', { source_id: 'cust-1' });
    expect(res.status).to.equal(400);
    expect(res.body).to.deep.equal({
      code: 400,
      message: 'Invalid payload',
      details: 'order is required',
      request_id: res.body.request_id,
    });
  });

  /** An exclusive coupon of `bigCents`, and two that combine: A (100, applied first) and B (80). */
  const threeCoupons = async (bigCents: number) => {
    await optIn(3);
    await campaign('BIG', flat(bigCents, { exclusive: true }));
    const a = await campaign('A', flat(10000, { priority: 2 }));
    const b = await campaign('B', flat(8000, { priority: 1 }));
    return { a, b };
  };

  it('when two coupons that combine take more than the exclusive one, then the two are the deal', async () => {
    const { a, b } = await threeCoupons(15000);
    const res = await bestDeal();
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({
      coupon_details: [
        { coupon_id: a.id, coupon_code: 'A' },
        { coupon_id: b.id, coupon_code: 'B' },
      ],
      candidates: 3,
      search: 'exact',
    });
    expect(res.body.stack).to.deep.include({ total_discount: 180, total_cashback: 0, total_amount: 820, shipping_discount: 0 });
    const figures = res.body.stack.coupons.map((c: { coupon_code: string; position: number; discount: number }) => [
      c.coupon_code,
      c.position,
      c.discount,
    ]);
    expect(figures).to.deep.equal([
      ['A', 1, 100],
      ['B', 2, 80],
    ]);
  });

  it('when the exclusive coupon takes more than the two that combine, then it is the deal alone', async () => {
    await threeCoupons(20000);
    const res = await bestDeal();
    expect(codes(res.body)).to.deep.equal(['BIG']);
    expect(res.body.stack.total_discount).to.equal(200);
    expect(res.body.stack.coupons).to.have.length(1);
  });

  it('when a coupon is at its total limit or at this customer limit, then it is never proposed', async () => {
    await optIn(3);
    const used = await campaign('USEDUP', { ...flat(50000), limits: { total: 3 } });
    await seedUsage(api.services, app.id, used.id, 'total', 3);
    const mine = await campaign('MINE', { ...flat(40000), limits: { perCustomer: 1 } });
    await seedUsage(api.services, app.id, mine.id, `customer:${customerId}`, 1);
    await campaign('SMALL', flat(1000));
    const res = await bestDeal();
    expect(codes(res.body)).to.deep.equal(['SMALL']);
    expect(res.body.candidates).to.equal(1);
    // Another customer has not used MINE: it is theirs to take.
    const other = await bestDeal(makeOrder(), 'cust-2');
    expect(codes(other.body)).to.deep.equal(['MINE', 'SMALL']);
  });

  it('when the proposed coupons are validated and redeemed, then both give the best deal total, automatic promotion included', async () => {
    await optIn(2, true);
    await createCampaign(api.services, app.id, { name: 'Weekend sale', code: undefined, trigger: 'automatic', ...flat(3000) });
    await campaign('TENPCT', { stacking: { ...DEFAULT_STACKING, priority: 5 } }); // 10% of what is left
    await campaign('FIFTY', flat(5000, { priority: 1 }));
    await campaign('SOLO', flat(16000, { exclusive: true, priority: 9 }));
    const order = makeOrder();
    const deal = await bestDeal(order);
    expect(deal.status).to.equal(200);
    // TENPCT 100, FIFTY 50, the sale 30: 180 beats SOLO's 160 alone (the sale is left out beside it).
    expect(codes(deal.body)).to.deep.equal(['TENPCT', 'FIFTY']);
    expect(deal.body.stack.total_discount).to.equal(180);
    expect(deal.body.candidates).to.equal(4);
    const body = { source_id: 'cust-1', coupon_details: deal.body.coupon_details, order };
    const validated = await post('/coupons/validate', body);
    expect(validated.body.is_applicable).to.equal(true);
    expect(validated.body.stack).to.deep.equal(deal.body.stack);
    const redeemed = await post('/coupons/apply?type=redeem', body);
    expect(redeemed.status, redeemed.text).to.equal(200);
    const total = redeemed.body.coupons.reduce((a: number, c: { discount: number }) => a + Math.round(c.discount * 100), 0);
    expect(total).to.equal(18000);
    expect(redeemed.body.coupons).to.have.length(3);
  });

  it('when no coupon applies, then the deal is empty', async () => {
    await optIn(3);
    await campaign('BIGCART', { cartConditions: [{ field: 'selling_price_subtotal', operator: 'gt', value: 10000000 }] });
    const res = await bestDeal();
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      coupon_details: [],
      stack: { total_discount: 0, total_cashback: 0, total_amount: 1000, shipping_discount: 0, coupons: [] },
      candidates: 0,
      search: 'exact',
      request_id: res.body.request_id,
    });
  });
});
