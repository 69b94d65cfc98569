import { expect } from 'chai';
import type { Campaign } from '../../shared/domain/types.js';
import { DEFAULT_STACKING } from '../../shared/domain/types.js';
import { createCampaign, createCustomers, createWallet, makeOrder, usageOf } from '../fixtures/records.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { call, createTestApplication, startTestApi, type TestApi, type TestApplication } from '../support/context.js';

/** Several promotions on one cart (docs/stacking.md), through the client routes of a running API and worker. */
describe('stacking: several coupons on one order', () => {
  let api: TestApi;
  let app: TestApplication;
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
    await createCustomers(api.services, app.id, ['cust-1', 'cust-2']);
  });

  const post = (path: string, body: unknown) => call(api.url, 'POST', path, { auth: app.auth, body });
  const validate = (codes: string[], order: Record<string, unknown> = makeOrder(), sourceId = 'cust-1') =>
    post('/coupons/validate', { source_id: sourceId, coupon_details: codes.map((c) => ({ coupon_code: c })), order });
  const apply = (type: 'redeem' | 'revert', codes: string[], order: Record<string, unknown>, sourceId = 'cust-1') =>
    post(`/coupons/apply?type=${type}`, { source_id: sourceId, coupon_details: codes.map((c) => ({ coupon_code: c })), order });
  const usage = (campaignId: string, scope = 'total') => usageOf(api.services, app.id, campaignId, scope);
  const campaign = (code: string, over: Partial<Campaign> = {}) => createCampaign(api.services, app.id, { code, name: code, ...over });
  const stacking = (over: Partial<Campaign['stacking']>) => ({ stacking: { ...DEFAULT_STACKING, ...over } });
  const flat = (cents: number): Partial<Campaign> => ({
    discount: { kind: 'discount', type: 'flat', value: cents, maxCents: null, walletId: null },
  });

  describe('an application that has not opted in', () => {
    it('when two entries are sent, then validate and redeem answer decision 14 byte for byte', async () => {
      await campaign('ONE');
      await campaign('TWO');
      const order = makeOrder();
      for (const res of [await validate(['ONE', 'TWO'], order), await apply('redeem', ['ONE', 'TWO'], order)]) {
        expect(res.status).to.equal(400);
        expect(res.text).to.equal(
          `{"code":400,"message":"Invalid payload","details":"only one coupon can be applied per request","request_id":"${res.body.request_id}"}`,
        );
      }
    });
  });

  describe('validate', () => {
    it('when more entries than max_coupons are sent, then 400 names the maximum', async () => {
      await optIn(2);
      const res = await validate(['A', 'B', 'C']);
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        code: 400,
        message: 'Invalid payload',
        details: 'at most 2 coupons can be applied per request',
        request_id: res.body.request_id,
      });
      expect(res.headers.get('coupon-reason')).to.equal('only_one_coupon');
    });

    it('when one entry is sent to an application that stacks, then the answer is the single coupon answer, unchanged', async () => {
      await campaign('SOLO');
      const order = makeOrder();
      const before = await validate(['SOLO'], order);
      await optIn(3);
      const appAfter = app;
      const after = await validate(['SOLO'], order);
      expect(appAfter).to.equal(app);
      expect({ ...after.body, request_id: '' }).to.deep.equal({ ...before.body, request_id: '' });
      expect(after.body).to.not.have.property('stack');
    });

    it('when two coupons stack, then the second is computed on what the first left and the per-item shares sum to the total', async () => {
      await optIn(3);
      // 10% of 1000 = 100 first (priority 5), then flat 50 on the 900 left.
      await campaign('TENPCT', stacking({ priority: 5 }));
      await campaign('FIFTY', { ...flat(5000), ...stacking({ priority: 1 }) });
      const res = await validate(['FIFTY', 'TENPCT']);
      expect(res.status).to.equal(200);
      expect(res.body.is_applicable).to.equal(true);
      expect(res.body.coupon_code).to.equal('FIFTY'); // the first entry names the answer
      const stack = res.body.stack;
      expect(stack.coupons.map((c: { coupon_code: string; position: number }) => [c.coupon_code, c.position])).to.deep.equal([
        ['TENPCT', 1],
        ['FIFTY', 2],
      ]);
      expect(stack.coupons[0].discount).to.equal(100);
      expect(stack.coupons[1].discount).to.equal(50);
      expect(stack.total_discount).to.equal(150);
      expect(stack.total_amount).to.equal(850);
      const order = res.body.coupon_savings.order;
      expect(order.total_discount).to.equal(150);
      expect(order.total_amount).to.equal(850);
      const cents = (n: number) => Math.round(n * 100);
      const items = order.items as { discount_value: number; final_amount: number }[];
      expect(items.reduce((a, i) => a + cents(i.discount_value), 0)).to.equal(15000);
      for (const c of stack.coupons as { discount: number; items: { discount_value: number }[] }[])
        expect(c.items.reduce((a, i) => a + cents(i.discount_value), 0)).to.equal(cents(c.discount));
    });

    it('when discounts add up past the cart, then nothing goes below zero', async () => {
      await optIn(3);
      await campaign('BIG1', { ...flat(80000), ...stacking({ priority: 2 }) });
      await campaign('BIG2', { ...flat(80000), ...stacking({ priority: 1 }) });
      const res = await validate(['BIG1', 'BIG2']);
      expect(res.body.stack.total_discount).to.equal(1000);
      expect(res.body.stack.coupons[1].discount).to.equal(200);
      expect(res.body.coupon_savings.order.total_amount).to.equal(0);
      for (const item of res.body.coupon_savings.order.items) expect(item.final_amount).to.equal(0);
    });

    it('when an exclusive coupon comes with another, then the later one is refused with stacking_exclusive', async () => {
      await optIn(3);
      await campaign('ALONE', stacking({ exclusive: true, priority: 9 }));
      await campaign('OTHER');
      const res = await validate(['OTHER', 'ALONE']);
      expect(res.status).to.equal(200);
      expect(res.body.is_applicable).to.equal(false);
      expect(res.body.message).to.equal('coupon can only be used on its own');
      expect(res.headers.get('coupon-reason')).to.equal('stacking_exclusive');
      const other = res.body.stack.coupons.find((c: { coupon_code: string }) => c.coupon_code === 'OTHER');
      expect(other).to.include({ is_applicable: false, position: null, message: 'coupon can only be used on its own' });
      // Reasons travel beside the body (docs/reasons.md): every coupon left out, in stack order.
      expect(res.text).to.not.include('"stacking_exclusive"');
      expect(res.headers.get('coupon-reasons')).to.equal(`${other.coupon_code_id}=stacking_exclusive`);
    });

    it('when two campaigns do not allow each other, then the later one is refused with stacking_conflict', async () => {
      await optIn(3);
      await campaign('SALE', stacking({ category: 'sitewide', combinesWith: ['shipping'], priority: 2 }));
      await campaign('LOYAL', stacking({ category: 'loyalty', priority: 1 }));
      const res = await validate(['SALE', 'LOYAL']);
      expect(res.body.is_applicable).to.equal(false);
      expect(res.headers.get('coupon-reason')).to.equal('stacking_conflict');
    });

    it('when the same coupon is named twice, then the second is refused with stacking_duplicate', async () => {
      await optIn(3);
      await campaign('TWICE');
      const res = await validate(['TWICE', 'twice']);
      expect(res.body.is_applicable).to.equal(false);
      expect(res.headers.get('coupon-reason')).to.equal('stacking_duplicate');
      expect(res.body.stack.total_discount).to.equal(100);
    });

    it('when an entry names no coupon, then the documented not-found answer', async () => {
      await optIn(3);
      await campaign('REAL');
      const res = await validate(['REAL', 'NOPE']);
      expect(res.status).to.equal(400);
      expect(res.body.details).to.equal('coupon not found, invalid coupon code or coupon id');
    });
  });

  describe('redeem and revert', () => {
    it('when two coupons are redeemed together, then both count; a revert naming one gives both back', async () => {
      await optIn(3);
      const a = await campaign('RA', { limits: { total: 5 } });
      const b = await campaign('RB', { limits: { total: 5 }, ...stacking({ priority: 1 }) });
      const order = makeOrder();
      const res = await apply('redeem', ['RA', 'RB'], order);
      expect(res.status).to.equal(200);
      // The first entry names the answer, as for one coupon (coupon_code sent: couponId is the coupon's id).
      expect(res.body).to.include({ status: 'completed', couponId: a.id, coupon_code: 'RA', orderId: order.order_id });
      expect(res.body.coupons.map((c: { coupon_code: string }) => c.coupon_code)).to.deep.equal(['RB', 'RA']);
      expect([await usage(a.id), await usage(b.id)]).to.deep.equal([1, 1]);
      const again = await apply('redeem', ['RA', 'RB'], order);
      expect(again.body.status).to.equal('completed');
      expect([await usage(a.id), await usage(b.id)]).to.deep.equal([1, 1]);
      const revert = await apply('revert', ['RB'], order);
      expect(revert.status).to.equal(200);
      expect(revert.body.status).to.equal('reverted');
      expect([await usage(a.id), await usage(b.id)]).to.deep.equal([0, 0]);
      const repeat = await apply('revert', ['RA'], order);
      expect(repeat.body.status).to.equal('reverted');
      expect([await usage(a.id), await usage(b.id)]).to.deep.equal([0, 0]);
    });

    it('when one coupon of three is at its limit, then the redeem is refused and none of them counts', async () => {
      await optIn(3);
      const a = await campaign('LA', { limits: { total: 5 } });
      const b = await campaign('LB', { limits: { total: 1 } });
      const c = await campaign('LC', { limits: { total: 5 } });
      expect((await apply('redeem', ['LB'], makeOrder())).status).to.equal(200);
      const res = await apply('redeem', ['LA', 'LB', 'LC'], makeOrder());
      expect(res.status).to.equal(400);
      expect(res.body.details).to.equal('coupon code redemption total_limit exceeded');
      expect(res.headers.get('coupon-reason')).to.equal('total_limit');
      expect([await usage(a.id), await usage(b.id), await usage(c.id)]).to.deep.equal([0, 1, 0]);
    });

    it('when a redeem names a coupon the order was already redeemed with alone, then it is refused with stacking_duplicate', async () => {
      await optIn(3);
      await campaign('FIRST');
      await campaign('SECOND');
      const order = makeOrder();
      expect((await apply('redeem', ['FIRST'], order)).status).to.equal(200);
      const res = await apply('redeem', ['FIRST', 'SECOND'], order);
      expect(res.status).to.equal(400);
      expect(res.headers.get('coupon-reason')).to.equal('stacking_duplicate');
    });

    it('when a stacked coupon gives cashback, then it is credited once and taken back by the revert', async () => {
      await optIn(3);
      const wallet = await createWallet(api.services, app.id, 'cashback');
      await campaign('CASH', { discount: { kind: 'cashback', type: 'flat', value: 2500, maxCents: null, walletId: wallet.walletId } });
      await campaign('OFF');
      const order = makeOrder();
      expect((await apply('redeem', ['CASH', 'OFF'], order)).status).to.equal(200);
      const points = async () => (await call(api.url, 'GET', '/wallets/customer/cust-1', { auth: app.auth })).body[0].loyalty_points;
      expect(await points()).to.equal(25);
      expect((await apply('revert', ['CASH', 'OFF'], order)).status).to.equal(200);
      expect(await points()).to.equal(0);
    });
  });

  describe('Try a cart (admin explain) with several codes', () => {
    const explain = (body: unknown) => call(api.url, 'POST', `/admin/applications/${app.id}/explain`, { body, headers: ADMIN_HEADERS });

    it('when several codes are tried, then explain shows the order, each one figures, why one was left out, and the totals validate gives', async () => {
      await optIn(3);
      await campaign('SALE10', stacking({ priority: 10, category: 'sitewide', combinesWith: ['shipping'] }));
      await campaign('LOYAL50', { ...flat(5000), ...stacking({ priority: 5, category: 'loyalty' }) });
      const order = makeOrder();
      const res = await explain({ source_id: 'cust-1', codes: ['LOYAL50', 'SALE10'], order });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.results.map((r: { code: string; position: number | null }) => [r.code, r.position])).to.deep.equal([
        ['SALE10', 1],
        ['LOYAL50', null],
      ]);
      const left = res.body.results[1];
      expect(left).to.include({ applicable: false, reason: 'stacking_conflict', discount_amount: 0 });
      expect(left.checks.at(-1)).to.deep.include({ rule: 'stacking', passed: false });
      expect(res.body.stack).to.deep.include({ total_discount_amount: 100, total_amount: 900, applicable: false });
      const validated = await validate(['LOYAL50', 'SALE10'], order);
      expect(validated.body.stack.total_discount).to.equal(res.body.stack.total_discount_amount);
      assertMatchesSpec('POST', '/admin/applications/{app}/explain', 200, res.body);
      assertMatchesSpec('POST', '/coupons/validate', 200, validated.body);
    });

    it('when more codes are tried than the application takes, then the answer validate would give', async () => {
      await campaign('X1');
      await campaign('X2');
      const res = await explain({ codes: ['X1', 'X2'], order: makeOrder() });
      expect(res.status).to.equal(400);
      expect(res.body.details).to.equal('only one coupon can be applied per request');
    });
  });

  describe('automatic promotions', () => {
    it('when the application takes them, then validate and redeem apply a qualifying promotion without a code', async () => {
      await optIn(2, true);
      const auto = await createCampaign(api.services, app.id, {
        name: 'Weekend sale',
        code: undefined,
        trigger: 'automatic',
        ...flat(3000),
        limits: { total: 10 },
      });
      const coupon = await campaign('PLUS');
      const order = makeOrder();
      const v = await validate(['PLUS'], order);
      expect(v.body.is_applicable).to.equal(true);
      const names = v.body.stack.coupons.map((c: { coupon_name: string; trigger: string }) => [c.coupon_name, c.trigger]);
      expect(names).to.deep.equal([
        ['PLUS', 'code'],
        ['Weekend sale', 'automatic'],
      ]);
      expect(v.body.stack.total_discount).to.equal(100 + 30);
      const r = await apply('redeem', ['PLUS'], order);
      expect(r.status).to.equal(200);
      expect(await usage(auto.id)).to.equal(1);
      expect(r.body.coupons).to.have.length(2);
      expect(coupon.id).to.be.a('string');
    });

    it('when the application takes them, then list shows them after the coupons, with no code and trigger automatic', async () => {
      await optIn(1, true);
      await campaign('CODED');
      const auto = await createCampaign(api.services, app.id, { name: 'Free socks week', code: undefined, trigger: 'automatic' });
      const list = await post('/coupons/list/all', { source_id: 'cust-1', order: makeOrder() });
      expect(list.status).to.equal(200);
      expect(list.body.map((c: { coupon_name: string }) => c.coupon_name)).to.deep.equal(['CODED', 'Free socks week']);
      expect(list.body[0]).to.not.have.property('trigger');
      expect(list.body[1]).to.include({ coupon_code: '', coupon_code_id: auto.id, trigger: 'automatic', is_applicable: true });
    });

    it('when the application does not take them, then an automatic promotion never applies and list never shows it', async () => {
      await createCampaign(api.services, app.id, { name: 'Hidden', code: undefined, trigger: 'automatic' });
      await campaign('SHOWN');
      const list = await post('/coupons/list/all', { source_id: 'cust-1' });
      expect(list.body.map((c: { coupon_name: string }) => c.coupon_name)).to.deep.equal(['SHOWN']);
      const v = await validate(['SHOWN']);
      expect(v.body).to.not.have.property('stack');
    });
  });
});
