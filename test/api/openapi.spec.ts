import { expect } from 'chai';
import { createBulkCodes, createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, TEST_ADMIN_TOKEN, type TestApi, type TestApplication } from '../support/context.js';
import { assertMatchesSpec } from '../support/openapi.js';

describe('openapi.yaml matches real responses', () => {
  let api: TestApi;
  let app: TestApplication;
  before(async () => {
    api = await startTestApi();
    app = await createTestApplication(api.services);
    await createCustomers(api.services, app.id, ['c1']);
    await createWallet(api.services, app.id);
    await createCampaign(api.services, app.id, { code: 'SPEC10' });
    await createCampaign(api.services, app.id, {
      code: 'SPECSEL',
      discountCalculatedOn: 'selected_items_selling_price_subtotal',
      itemSelector: { match: 'OR', properties: [{ property: 'sku', values: ['SKU2'] }] },
    });
    const bulk = await createCampaign(api.services, app.id, { codeType: 'bulk', code: undefined });
    await createBulkCodes(api.services, app.id, bulk.id, ['SPEC-BULK']);
  });
  after(async () => {
    await api.close();
  });

  const cases: [string, string, string, () => { path?: string; body?: unknown; auth?: string | null; headers?: Record<string, string> }][] =
    [
      ['list as a visitor', 'POST', '/coupons/list/all', () => ({})],
      ['list with a customer and an order', 'POST', '/coupons/list/all', () => ({ body: { source_id: 'c1', order: makeOrder() } })],
      ['list with an invalid order', 'POST', '/coupons/list/all', () => ({ body: { order: { items: 3 } } })],
      ['list with an unknown customer', 'POST', '/coupons/list/all', () => ({ body: { source_id: 'ghost' } })],
      ['list without credentials', 'POST', '/coupons/list/all', () => ({ auth: null })],
      [
        'validate applicable',
        'POST',
        '/coupons/validate',
        () => ({
          body: { source_id: 'c1', coupon_details: [{ coupon_code: 'SPEC10' }], order: makeOrder({ shipping: 10, payment_mode: 'UPI' }) },
        }),
      ],
      [
        'validate selected items',
        'POST',
        '/coupons/validate',
        () => ({ body: { coupon_details: [{ coupon_code: 'SPECSEL' }], order: makeOrder() } }),
      ],
      [
        'validate a bulk code',
        'POST',
        '/coupons/validate',
        () => ({ body: { coupon_details: [{ coupon_id: 'bulk', coupon_code: 'spec-bulk' }] } }),
      ],
      [
        'validate not applicable',
        'POST',
        '/coupons/validate',
        () => ({ body: { coupon_details: [{ coupon_code: 'SPEC10' }], order: { selling_price_subtotal: 0 } } }),
      ],
      ['validate unknown coupon', 'POST', '/coupons/validate', () => ({ body: { coupon_details: [{ coupon_code: 'NOPE' }] } })],
      ['validate malformed JSON', 'POST', '/coupons/validate', () => ({ body: '{' })],
      [
        'redeem',
        'POST',
        '/coupons/apply',
        () => ({
          path: '/coupons/apply?type=redeem',
          body: { source_id: 'c1', coupon_details: [{ coupon_code: 'SPEC10' }], order: makeOrder({ order_id: 'spec-order' }) },
        }),
      ],
      [
        'revert',
        'POST',
        '/coupons/apply',
        () => ({
          path: '/coupons/apply?type=revert',
          body: { source_id: 'c1', coupon_details: [{ coupon_code: 'SPEC10' }], order: makeOrder({ order_id: 'spec-order' }) },
        }),
      ],
      ['apply with a bad type', 'POST', '/coupons/apply', () => ({ path: '/coupons/apply?type=x', body: {} })],
      ['wallet read', 'GET', '/wallets/customer/{source_id}', () => ({ path: '/wallets/customer/c1' })],
      ['wallet read of an unknown customer', 'GET', '/wallets/customer/{source_id}', () => ({ path: '/wallets/customer/ghost' })],
      [
        'wallet credit',
        'PUT',
        '/wallets/customer/{source_id}/transactions/{wallet_id}',
        () => ({ path: '/wallets/customer/c1/transactions/loyalty', body: { type: 'credit', points: 5 } }),
      ],
      [
        'wallet update without type',
        'PUT',
        '/wallets/customer/{source_id}/transactions/{wallet_id}',
        () => ({ path: '/wallets/customer/c1/transactions/loyalty', body: { points: 5 } }),
      ],
      [
        'wallet update of an unknown wallet',
        'PUT',
        '/wallets/customer/{source_id}/transactions/{wallet_id}',
        () => ({ path: '/wallets/customer/c1/transactions/none', body: { type: 'credit', points: 5 } }),
      ],
      ['health', 'GET', '/healthz', () => ({ auth: null })],
      ['readiness', 'GET', '/readyz', () => ({ auth: null })],
      ['admin applications', 'GET', '/admin/applications', () => ({ auth: `Bearer ${TEST_ADMIN_TOKEN}` })],
    ];

  for (const [label, method, template, make] of cases) {
    it(`when ${label}, then the response matches the spec`, async () => {
      const c = make();
      const path = c.path ?? template;
      const auth = c.auth === null ? undefined : (c.auth ?? app.auth);
      const res =
        typeof c.body === 'string'
          ? await call(api.url, method, path, { auth, rawBody: c.body })
          : await call(api.url, method, path, { auth, ...(c.body === undefined ? {} : { body: c.body }) });
      expect(res.status).to.be.below(500);
      assertMatchesSpec(method, template, res.status, res.body);
    });
  }

  it('when the docs page is requested, then it serves Swagger UI and the spec offline', async () => {
    const page = await call(api.url, 'GET', '/docs');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('swagger-ui-bundle.js');
    const asset = await fetch(`${api.url}/docs/assets/swagger-ui-bundle.js`);
    expect(asset.status).to.equal(200);
    const spec = await call(api.url, 'GET', '/docs/openapi.json');
    expect(Object.keys(spec.body.paths)).to.include.members([
      '/coupons/list/all',
      '/coupons/validate',
      '/coupons/apply',
      '/wallets/customer/{source_id}',
      '/wallets/customer/{source_id}/transactions/{wallet_id}',
    ]);
  });
});
