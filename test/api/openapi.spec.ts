/**
 * openapi.yaml is the one source of truth: real responses of the running API — every documented
 * status of the five client routes, the admin API, the probes — are validated against the schema
 * the spec gives for (method, route template, status), with ajv's 2020-12 dialect. The spec's own
 * examples must satisfy its schemas, and the spec and the Express routes must name the same routes.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { buildApp } from '../../api/app.js';
import { routeTemplateOf } from '../../api/ops/route-template.js';
import { createLogger } from '../../shared/logger.js';
import { createBulkCodes, createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { call, createTestApplication, startTestApi, TEST_ADMIN_TOKEN, TEST_QUEUE_PREFIX, type TestApi } from '../support/context.js';
import { parse } from 'yaml';
import { ajv, assertMatchesSpec, errorsText, escapePointer, spec, SPEC_ID } from '../support/openapi.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

// ---- the cases ---------------------------------------------------------------------------------

interface Fixture {
  api: TestApi;
  /** `Basic …` of the application with customers, a wallet and campaigns. */
  auth: string;
  appId: string;
  /** `Basic …` of an application with nothing configured. */
  bareAuth: string;
  /** `Basic …` of an application whose rate limit (1 per hour) is used up. */
  limitedAuth: string;
  campaignId: string;
  bulkCampaignId: string;
  /** A receiver on 127.0.0.1 (loopback is allowed in this API) and the fixture application's endpoint for it. */
  receiver: WebhookReceiver;
  webhookId: string;
  /** An API whose jobs are never consumed (answers 503 after its short wait). */
  stalled: TestApi;
  /** `Basic …` of an application that stacks (docs/stacking.md): three coupons per request, automatic promotions. */
  stackAuth: string;
  /** An application that takes gift cards at checkout (docs/gift-cards.md), its customers c1 (with store credit) and c2 (without), and a card of 1,000.00. */
  giftAuth: string;
  giftAppId: string;
  giftCode: string;
  giftCardId: string;
}
interface Request {
  path?: string;
  body?: unknown;
  raw?: string;
  /** Default: the fixture application's Basic credentials; null sends none. */
  auth?: string | null;
  headers?: Record<string, string>;
  api?: TestApi;
}
type Case = [label: string, method: string, template: string, status: number, request: (f: Fixture) => Request | Promise<Request>];

const ADMIN = `Bearer ${TEST_ADMIN_TOKEN}`;
const BAD_BASIC = `Basic ${Buffer.from('ak_nope:sk_nope').toString('base64')}`;
const LIST = '/coupons/list/all';
const VALIDATE = '/coupons/validate';
const APPLY = '/coupons/apply';
const BEST_DEAL = '/coupons/best-deal';
const WALLET = '/wallets/customer/{source_id}';
const OWN_CUSTOMER = '/customers/{source_id}';
const WALLET_TX = '/wallets/customer/{source_id}/transactions/{wallet_id}';
const ORDER_REPORT = '/wallets/customer/{source_id}/orders/{wallet_id}';
const APPS = '/admin/applications';
const APP = `${APPS}/{app}`;
const GIFT_CARD = '/gift-cards/{code}';
const STORE_CREDIT = '/customers/{source_id}/store-credit';
const GIFT_ADMIN = `${APP}/gift-cards`;
const HUGE = JSON.stringify({ source_id: 'c1', padding: 'x'.repeat(1_100_000) });

/** The `next_cursor` of an admin listing's page, which must not be its last. */
async function nextCursor(f: Fixture, path: string): Promise<string> {
  const res = await call(f.api.url, 'GET', path, { auth: ADMIN });
  expect(res.status, `prerequisite GET ${path}: ${res.text}`).to.equal(200);
  expect(res.body.next_cursor, `${path} has a next page`).to.be.a('string');
  return res.body.next_cursor as string;
}
/** An order reported completed (the fixture's wallet has no earning rules: it earns 0, and the answer says so). */
const reportedOrder = (order_id: string) => ({ ...makeOrder({ order_id }), status: 'completed' });
const applyBody = (code: string, order = makeOrder()) => ({ source_id: 'c1', coupon_details: [{ coupon_code: code }], order });
/** Sends a request first (a prerequisite of the case), failing loudly if it does not succeed. */
async function prerequisite(f: Fixture, method: string, path: string, body: unknown, auth = f.auth) {
  const res = await call(f.api.url, method, path, { auth, body });
  expect(res.status, `prerequisite ${method} ${path}: ${res.text}`).to.be.below(300);
  return res.body;
}

const clientCases: Case[] = [
  ['read a gift card', 'GET', GIFT_CARD, 200, (f) => ({ path: `/gift-cards/${f.giftCode}`, auth: f.giftAuth })],
  ['read an unknown gift card', 'GET', GIFT_CARD, 404, (f) => ({ path: '/gift-cards/NO-SUCH-CARD', auth: f.giftAuth })],
  ['read a gift card without credentials', 'GET', GIFT_CARD, 401, (f) => ({ path: `/gift-cards/${f.giftCode}`, auth: null })],
  ['read a gift card over the rate limit', 'GET', GIFT_CARD, 429, (f) => ({ path: '/gift-cards/ANY-CODE', auth: f.limitedAuth })],
  ["read a customer's store credit", 'GET', STORE_CREDIT, 200, (f) => ({ path: '/customers/c1/store-credit', auth: f.giftAuth })],
  [
    'read the store credit of a customer who has none',
    'GET',
    STORE_CREDIT,
    404,
    (f) => ({ path: '/customers/c2/store-credit', auth: f.giftAuth }),
  ],
  [
    'read the store credit of an unknown customer',
    'GET',
    STORE_CREDIT,
    404,
    (f) => ({ path: '/customers/nobody/store-credit', auth: f.giftAuth }),
  ],
  ['read store credit without credentials', 'GET', STORE_CREDIT, 401, () => ({ path: '/customers/c1/store-credit', auth: null })],
  ['read store credit over the rate limit', 'GET', STORE_CREDIT, 429, (f) => ({ path: '/customers/c1/store-credit', auth: f.limitedAuth })],
  [
    'validate a gift card',
    'POST',
    VALIDATE,
    200,
    (f) => ({ auth: f.giftAuth, body: { source_id: 'c1', coupon_details: [{ coupon_code: f.giftCode }], order: makeOrder() } }),
  ],
  [
    'redeem a gift card',
    'POST',
    APPLY,
    200,
    (f) => ({
      path: `${APPLY}?type=redeem`,
      auth: f.giftAuth,
      body: { source_id: 'c1', coupon_details: [{ coupon_code: f.giftCode }], order: makeOrder() },
    }),
  ],
  ['list as a visitor', 'POST', LIST, 200, () => ({})],
  ['list for a customer', 'POST', LIST, 200, () => ({ body: { source_id: 'c1' } })],
  ['list for a customer with an order', 'POST', LIST, 200, () => ({ body: { source_id: 'c1', order: makeOrder() } })],
  [
    'list of an application that takes automatic promotions',
    'POST',
    LIST,
    200,
    (f) => ({ auth: f.stackAuth, body: { source_id: 'c1', order: makeOrder() } }),
  ],
  ['list with an invalid order', 'POST', LIST, 200, () => ({ body: { order: { items: 3 } } })],
  ['list for an unknown customer', 'POST', LIST, 400, () => ({ body: { source_id: 'ghost' } })],
  ['list with malformed JSON', 'POST', LIST, 400, () => ({ raw: '{' })],
  ['list without credentials', 'POST', LIST, 401, () => ({ auth: null })],
  ['list with wrong credentials', 'POST', LIST, 401, () => ({ auth: BAD_BASIC })],
  ['list with a body over the limit', 'POST', LIST, 413, () => ({ raw: HUGE })],

  [
    'validate an applicable coupon',
    'POST',
    VALIDATE,
    200,
    () => ({
      body: { source_id: 'c1', coupon_details: [{ coupon_code: 'SPEC10' }], order: makeOrder({ shipping: 10, payment_mode: 'UPI' }) },
    }),
  ],
  [
    'validate a selected-items coupon',
    'POST',
    VALIDATE,
    200,
    () => ({ body: { coupon_details: [{ coupon_code: 'SPECSEL' }], order: makeOrder() } }),
  ],
  ['validate a bulk code', 'POST', VALIDATE, 200, () => ({ body: { coupon_details: [{ coupon_id: 'bulk', coupon_code: 'spec-bulk' }] } })],
  [
    'validate a coupon that does not apply',
    'POST',
    VALIDATE,
    200,
    () => ({ body: { coupon_details: [{ coupon_code: 'SPEC10' }], order: { selling_price_subtotal: 0 } } }),
  ],
  ['validate an unknown coupon', 'POST', VALIDATE, 400, () => ({ body: { coupon_details: [{ coupon_code: 'NOPE' }] } })],
  [
    'validate an assigned coupon without a customer',
    'POST',
    VALIDATE,
    400,
    () => ({ body: { coupon_details: [{ coupon_code: 'SPECMINE' }] } }),
  ],
  [
    'validate two coupons at once',
    'POST',
    VALIDATE,
    400,
    () => ({ body: { coupon_details: [{ coupon_code: 'SPEC10' }, { coupon_code: 'SPECSEL' }] } }),
  ],
  ['validate with malformed JSON', 'POST', VALIDATE, 400, () => ({ raw: '{"coupon_details": [' })],
  ['validate without credentials', 'POST', VALIDATE, 401, () => ({ auth: null, body: {} })],
  ['validate with a body over the limit', 'POST', VALIDATE, 413, () => ({ raw: HUGE })],
  [
    'validate two coupons of an application that stacks',
    'POST',
    VALIDATE,
    200,
    (f) => ({
      auth: f.stackAuth,
      body: { source_id: 'c1', coupon_details: [{ coupon_code: 'STK1' }, { coupon_code: 'STK2' }], order: makeOrder() },
    }),
  ],
  [
    'redeem two coupons of an application that stacks',
    'POST',
    APPLY,
    200,
    (f) => ({
      path: `${APPLY}?type=redeem`,
      auth: f.stackAuth,
      body: { source_id: 'c1', coupon_details: [{ coupon_code: 'STK1' }, { coupon_code: 'STK2' }], order: makeOrder() },
    }),
  ],
  ['best deal of a customer', 'POST', BEST_DEAL, 200, (f) => ({ auth: f.stackAuth, body: { source_id: 'c1', order: makeOrder() } })],
  ['best deal of an application that does not stack', 'POST', BEST_DEAL, 400, () => ({ body: { source_id: 'c1', order: makeOrder() } })],
  ['best deal without credentials', 'POST', BEST_DEAL, 401, () => ({ auth: null, body: {} })],
  ['best deal with a body over the limit', 'POST', BEST_DEAL, 413, (f) => ({ auth: f.stackAuth, raw: HUGE })],
  ['best deal over the rate limit', 'POST', BEST_DEAL, 429, (f) => ({ auth: f.limitedAuth, body: {} })],

  ['redeem', 'POST', APPLY, 200, () => ({ path: `${APPLY}?type=redeem`, body: applyBody('SPEC10') })],
  [
    'revert',
    'POST',
    APPLY,
    200,
    async (f) => {
      const body = applyBody('SPEC10');
      await prerequisite(f, 'POST', `${APPLY}?type=redeem`, body);
      return { path: `${APPLY}?type=revert`, body };
    },
  ],
  [
    'redeem refused by a limit',
    'POST',
    APPLY,
    400,
    async (f) => {
      await prerequisite(f, 'POST', `${APPLY}?type=redeem`, applyBody('SPECONCE'));
      return { path: `${APPLY}?type=redeem`, body: applyBody('SPECONCE') };
    },
  ],
  ['revert of an order never redeemed', 'POST', APPLY, 400, () => ({ path: `${APPLY}?type=revert`, body: applyBody('SPEC10') })],
  ['apply with a wrong type', 'POST', APPLY, 400, () => ({ path: `${APPLY}?type=x`, body: {} })],
  [
    'redeem with an item field missing',
    'POST',
    APPLY,
    400,
    () => ({
      path: `${APPLY}?type=redeem`,
      body: applyBody('SPEC10', makeOrder({ items: [{ product_id: 'p1', original_price: 5, shipping: 0 }] })),
    }),
  ],
  ['apply without credentials', 'POST', APPLY, 401, () => ({ path: `${APPLY}?type=redeem`, auth: null, body: {} })],
  [
    'apply reusing an Idempotency-Key with another body',
    'POST',
    APPLY,
    409,
    async (f) => {
      const key = `spec-${Math.random()}`;
      const first = await call(f.api.url, 'POST', `${APPLY}?type=redeem`, {
        auth: f.auth,
        body: applyBody('SPEC10'),
        headers: { 'idempotency-key': key },
      });
      expect(first.status).to.equal(200);
      return { path: `${APPLY}?type=redeem`, body: applyBody('SPEC10'), headers: { 'idempotency-key': key } };
    },
  ],
  ['apply with a body over the limit', 'POST', APPLY, 413, () => ({ path: `${APPLY}?type=redeem`, raw: HUGE })],
  ['redeem not answered in time', 'POST', APPLY, 503, (f) => ({ api: f.stalled, path: `${APPLY}?type=redeem`, body: applyBody('SPEC10') })],

  [
    'customer upsert of a new customer',
    'PUT',
    OWN_CUSTOMER,
    201,
    () => ({ path: `/customers/spec-${randomUUID()}`, body: { name: 'New' } }),
  ],
  [
    'customer upsert of an existing customer',
    'PUT',
    OWN_CUSTOMER,
    200,
    () => ({ path: '/customers/c1', body: { email: 'c1@example.com' } }),
  ],
  ['customer upsert with an unknown field', 'PUT', OWN_CUSTOMER, 400, () => ({ path: '/customers/c1', body: { age: 3 } })],
  ['customer upsert without credentials', 'PUT', OWN_CUSTOMER, 401, () => ({ path: '/customers/c1', auth: null, body: {} })],
  [
    'customer upsert of an archived customer',
    'PUT',
    OWN_CUSTOMER,
    409,
    async (f) => {
      const id = `spec-archived-${randomUUID()}`;
      await prerequisite(f, 'POST', `${APPS}/${f.appId}/customers`, { customers: [{ source_id: id }] }, ADMIN);
      await prerequisite(f, 'POST', `${APPS}/${f.appId}/customers/${id}/archive`, {}, ADMIN);
      return { path: `/customers/${id}`, body: {} };
    },
  ],
  ['customer upsert with a body over the limit', 'PUT', OWN_CUSTOMER, 413, () => ({ path: '/customers/c1', raw: HUGE })],
  ['list over the rate limit', 'POST', LIST, 429, (f) => ({ auth: f.limitedAuth })],
  ['validate over the rate limit', 'POST', VALIDATE, 429, (f) => ({ auth: f.limitedAuth, body: {} })],
  ['apply over the rate limit', 'POST', APPLY, 429, (f) => ({ path: `${APPLY}?type=redeem`, auth: f.limitedAuth, body: {} })],
  ['wallet read over the rate limit', 'GET', WALLET, 429, (f) => ({ path: '/wallets/customer/c1', auth: f.limitedAuth })],
  [
    'wallet update over the rate limit',
    'PUT',
    WALLET_TX,
    429,
    (f) => ({ path: '/wallets/customer/c1/transactions/loyalty', auth: f.limitedAuth, body: { type: 'credit', points: 1 } }),
  ],
  ['customer upsert over the rate limit', 'PUT', OWN_CUSTOMER, 429, (f) => ({ path: '/customers/c1', auth: f.limitedAuth, body: {} })],
  ['wallet read', 'GET', WALLET, 200, () => ({ path: '/wallets/customer/c1' })],
  ['wallet read of an application without wallets', 'GET', WALLET, 200, (f) => ({ path: '/wallets/customer/c1', auth: f.bareAuth })],
  ['wallet read of an unknown customer', 'GET', WALLET, 404, () => ({ path: '/wallets/customer/ghost' })],
  ['wallet read without credentials', 'GET', WALLET, 401, () => ({ path: '/wallets/customer/c1', auth: null })],

  [
    'wallet credit',
    'PUT',
    WALLET_TX,
    200,
    () => ({ path: '/wallets/customer/c1/transactions/loyalty', body: { type: 'credit', points: 5, description: 'spec' } }),
  ],
  [
    'wallet debit',
    'PUT',
    WALLET_TX,
    200,
    async (f) => {
      await prerequisite(f, 'PUT', '/wallets/customer/c2/transactions/loyalty', { type: 'credit', points: 10 });
      return { path: '/wallets/customer/c2/transactions/loyalty', body: { type: 'debit', points: 2.5 } };
    },
  ],
  [
    'wallet debit over the balance',
    'PUT',
    WALLET_TX,
    400,
    () => ({ path: '/wallets/customer/c3/transactions/loyalty', body: { type: 'debit', points: 1 } }),
  ],
  ['wallet update without type', 'PUT', WALLET_TX, 400, () => ({ path: '/wallets/customer/c1/transactions/loyalty', body: { points: 5 } })],
  [
    'wallet update without points',
    'PUT',
    WALLET_TX,
    400,
    () => ({ path: '/wallets/customer/c1/transactions/loyalty', body: { type: 'credit' } }),
  ],
  [
    'wallet update with 3-decimal points',
    'PUT',
    WALLET_TX,
    400,
    () => ({ path: '/wallets/customer/c1/transactions/loyalty', body: { type: 'credit', points: 1.234 } }),
  ],
  [
    'wallet update of an unknown wallet',
    'PUT',
    WALLET_TX,
    404,
    () => ({ path: '/wallets/customer/c1/transactions/none', body: { type: 'credit', points: 5 } }),
  ],
  [
    'wallet update of an unknown customer',
    'PUT',
    WALLET_TX,
    404,
    () => ({ path: '/wallets/customer/ghost/transactions/loyalty', body: { type: 'credit', points: 5 } }),
  ],
  [
    'wallet update without credentials',
    'PUT',
    WALLET_TX,
    401,
    () => ({ path: '/wallets/customer/c1/transactions/loyalty', auth: null, body: {} }),
  ],
  [
    'wallet update reusing an Idempotency-Key with another body',
    'PUT',
    WALLET_TX,
    409,
    async (f) => {
      const key = `spec-${Math.random()}`;
      const path = '/wallets/customer/c1/transactions/loyalty';
      const first = await call(f.api.url, 'PUT', path, {
        auth: f.auth,
        body: { type: 'credit', points: 1 },
        headers: { 'idempotency-key': key },
      });
      expect(first.status).to.equal(200);
      return { path, body: { type: 'credit', points: 2 }, headers: { 'idempotency-key': key } };
    },
  ],
  [
    'wallet update with a body over the limit',
    'PUT',
    WALLET_TX,
    413,
    () => ({ path: '/wallets/customer/c1/transactions/loyalty', raw: HUGE }),
  ],
  [
    'wallet update not answered in time',
    'PUT',
    WALLET_TX,
    503,
    (f) => ({ api: f.stalled, path: '/wallets/customer/c1/transactions/loyalty', body: { type: 'credit', points: 1 } }),
  ],
  [
    'order reported completed',
    'POST',
    ORDER_REPORT,
    200,
    () => ({ path: '/wallets/customer/c1/orders/loyalty', body: { order: reportedOrder('spec-order') } }),
  ],
  [
    'order reported returned',
    'POST',
    ORDER_REPORT,
    200,
    () => ({ path: '/wallets/customer/c1/orders/loyalty', body: { order: { order_id: 'spec-order-returned', status: 'returned' } } }),
  ],
  [
    'order reported with another status',
    'POST',
    ORDER_REPORT,
    400,
    () => ({ path: '/wallets/customer/c1/orders/loyalty', body: { order: { order_id: 'x', status: 'shipped' } } }),
  ],
  [
    'order reported to an unknown wallet',
    'POST',
    ORDER_REPORT,
    404,
    () => ({ path: '/wallets/customer/c1/orders/none', body: { order: reportedOrder('x') } }),
  ],
  [
    'order reported without credentials',
    'POST',
    ORDER_REPORT,
    401,
    () => ({ path: '/wallets/customer/c1/orders/loyalty', auth: null, body: {} }),
  ],
  [
    'order reported reusing an Idempotency-Key with another body',
    'POST',
    ORDER_REPORT,
    409,
    async (f) => {
      const key = `spec-${Math.random()}`;
      const path = '/wallets/customer/c1/orders/loyalty';
      const first = await call(f.api.url, 'POST', path, {
        auth: f.auth,
        body: { order: reportedOrder('k1') },
        headers: { 'idempotency-key': key },
      });
      expect(first.status).to.equal(200);
      return { path, body: { order: reportedOrder('k2') }, headers: { 'idempotency-key': key } };
    },
  ],
  [
    'order reported with a body over the limit',
    'POST',
    ORDER_REPORT,
    413,
    () => ({ path: '/wallets/customer/c1/orders/loyalty', raw: HUGE }),
  ],
  [
    'order reported over the rate limit',
    'POST',
    ORDER_REPORT,
    429,
    (f) => ({ path: '/wallets/customer/c1/orders/loyalty', auth: f.limitedAuth, body: { order: reportedOrder('x') } }),
  ],
  [
    'order reported not answered in time',
    'POST',
    ORDER_REPORT,
    503,
    (f) => ({ api: f.stalled, path: '/wallets/customer/c1/orders/loyalty', body: { order: reportedOrder('slow') } }),
  ],
];

const CAMPAIGN = {
  name: 'Spec campaign',
  code_type: 'fixed',
  code: 'SPECADMIN',
  valid_from: '2026-01-01T00:00',
  discount: { kind: 'discount', type: 'flat', value: 50 },
  discount_calculated_on_property: 'selling_price_subtotal',
};
const adminCases: Case[] = [
  [
    'admin issues a gift card',
    'POST',
    GIFT_ADMIN,
    201,
    (f) => ({ path: `${APPS}/${f.giftAppId}/gift-cards`, auth: ADMIN, body: { amount: 25 } }),
  ],
  [
    'admin issues a gift card of no amount',
    'POST',
    GIFT_ADMIN,
    400,
    (f) => ({ path: `${APPS}/${f.giftAppId}/gift-cards`, auth: ADMIN, body: { amount: 0 } }),
  ],
  [
    'admin issues a gift card with a code taken',
    'POST',
    GIFT_ADMIN,
    409,
    (f) => ({ path: `${APPS}/${f.giftAppId}/gift-cards`, auth: ADMIN, body: { amount: 5, code: f.giftCode } }),
  ],
  [
    'admin credits store credit',
    'POST',
    `${APP}/customers/{customer}/store-credit`,
    200,
    (f) => ({ path: `${APPS}/${f.giftAppId}/customers/c1/store-credit`, auth: ADMIN, body: { amount: 30 } }),
  ],
  ['admin lists gift cards', 'GET', GIFT_ADMIN, 200, (f) => ({ path: `${APPS}/${f.giftAppId}/gift-cards`, auth: ADMIN })],
  [
    'admin issues gift cards in bulk',
    'POST',
    `${GIFT_ADMIN}/bulk`,
    201,
    (f) => ({ path: `${APPS}/${f.giftAppId}/gift-cards/bulk`, auth: ADMIN, body: { count: 2, amount: 5 } }),
  ],
  [
    'admin imports gift cards',
    'POST',
    `${GIFT_ADMIN}/import`,
    201,
    (f) => ({ path: `${APPS}/${f.giftAppId}/gift-cards/import`, auth: ADMIN, body: { csv: `code,amount\nSPEC-IMP-${process.pid},5` } }),
  ],
  [
    'admin imports a gift card file with a bad row',
    'POST',
    `${GIFT_ADMIN}/import`,
    400,
    (f) => ({ path: `${APPS}/${f.giftAppId}/gift-cards/import`, auth: ADMIN, body: { csv: 'code,amount\nSPEC-BAD-1,none' } }),
  ],
  [
    'admin reads a gift card',
    'GET',
    `${GIFT_ADMIN}/{card}`,
    200,
    (f) => ({ path: `${APPS}/${f.giftAppId}/gift-cards/${f.giftCardId}`, auth: ADMIN }),
  ],
  [
    'admin reads an unknown gift card',
    'GET',
    `${GIFT_ADMIN}/{card}`,
    404,
    (f) => ({ path: `${APPS}/${f.giftAppId}/gift-cards/${'0'.repeat(24)}`, auth: ADMIN }),
  ],
  [
    'admin changes a gift card expiry',
    'PATCH',
    `${GIFT_ADMIN}/{card}`,
    200,
    (f) => ({ path: `${APPS}/${f.giftAppId}/gift-cards/${f.giftCardId}`, auth: ADMIN, body: { expires_at: '2099-01-01T00:00:00Z' } }),
  ],
  [
    'admin tops up a gift card',
    'POST',
    `${GIFT_ADMIN}/{card}/top-up`,
    200,
    (f) => ({ path: `${APPS}/${f.giftAppId}/gift-cards/${f.giftCardId}/top-up`, auth: ADMIN, body: { amount: 5 } }),
  ],
  [
    'admin creates an application',
    'POST',
    APPS,
    201,
    () => ({ auth: ADMIN, body: { name: 'Spec store', timezone: 'Asia/Kolkata', currency: 'INR' } }),
  ],
  ['admin sends an invalid application', 'POST', APPS, 400, () => ({ auth: ADMIN, body: { name: 3 } })],
  ['admin lists applications', 'GET', APPS, 200, () => ({ auth: ADMIN })],
  ['admin verifies an application', 'GET', `${APP}/verify`, 200, (f) => ({ path: `${APPS}/${f.appId}/verify?recheck_ms=0`, auth: ADMIN })],
  [
    'admin verifies with an unknown parameter',
    'GET',
    `${APP}/verify`,
    400,
    (f) => ({ path: `${APPS}/${f.appId}/verify?nope=1`, auth: ADMIN }),
  ],
  ['admin without the token', 'GET', APPS, 401, () => ({ auth: null })],
  ['admin updates an application', 'PATCH', APP, 200, (f) => ({ path: `${APPS}/${f.appId}`, auth: ADMIN, body: { name: 'Spec store 2' } })],
  [
    'admin updates an unknown application',
    'PATCH',
    APP,
    404,
    () => ({ path: `${APPS}/000000000000000000000000`, auth: ADMIN, body: { name: 'x' } }),
  ],
  [
    'admin rotates a secret',
    'POST',
    `${APP}/rotate-secret`,
    200,
    async (f) => {
      const created = await prerequisite(f, 'POST', APPS, { name: 'Rotated', timezone: 'UTC', currency: 'EUR' }, ADMIN);
      return { path: `${APPS}/${created.id}/rotate-secret`, auth: ADMIN };
    },
  ],
  [
    'admin upserts customers',
    'POST',
    `${APP}/customers`,
    200,
    (f) => ({
      path: `${APPS}/${f.appId}/customers`,
      auth: ADMIN,
      body: { customers: [{ source_id: 'c9', name: 'Nine', email: 'nine@example.com' }] },
    }),
  ],
  [
    'admin sends invalid customers',
    'POST',
    `${APP}/customers`,
    400,
    (f) => ({ path: `${APPS}/${f.appId}/customers`, auth: ADMIN, body: { customers: 'c9' } }),
  ],
  ['admin lists customers', 'GET', `${APP}/customers`, 200, (f) => ({ path: `${APPS}/${f.appId}/customers?limit=5`, auth: ADMIN })],
  [
    'admin reads a ledger',
    'GET',
    `${APP}/customers/{customer}/wallets/{wallet_id}/ledger`,
    200,
    async (f) => {
      await prerequisite(f, 'PUT', '/wallets/customer/c4/transactions/loyalty', { type: 'credit', points: 7, description: 'ledger' });
      return { path: `${APPS}/${f.appId}/customers/c4/wallets/loyalty/ledger`, auth: ADMIN };
    },
  ],
  [
    'admin reads the ledger of an unknown customer',
    'GET',
    `${APP}/customers/{customer}/wallets/{wallet_id}/ledger`,
    404,
    (f) => ({ path: `${APPS}/${f.appId}/customers/ghost/wallets/loyalty/ledger`, auth: ADMIN }),
  ],
  [
    'admin creates a wallet',
    'POST',
    `${APP}/wallets`,
    201,
    (f) => ({
      path: `${APPS}/${f.appId}/wallets`,
      auth: ADMIN,
      body: {
        wallet_id: 'stars',
        wallet_name: 'Stars',
        currency: 'INR',
        singular_unit_name: 'star',
        plural_unit_name: 'stars',
        timezone: 'Asia/Kolkata',
      },
    }),
  ],
  [
    'admin sends an invalid wallet',
    'POST',
    `${APP}/wallets`,
    400,
    (f) => ({ path: `${APPS}/${f.appId}/wallets`, auth: ADMIN, body: { wallet_id: 3 } }),
  ],
  ['admin lists wallets', 'GET', `${APP}/wallets`, 200, (f) => ({ path: `${APPS}/${f.appId}/wallets`, auth: ADMIN })],
  [
    'admin creates a campaign',
    'POST',
    `${APP}/campaigns`,
    201,
    (f) => ({ path: `${APPS}/${f.appId}/campaigns`, auth: ADMIN, body: CAMPAIGN }),
  ],
  [
    'admin sends an invalid campaign',
    'POST',
    `${APP}/campaigns`,
    400,
    (f) => ({ path: `${APPS}/${f.appId}/campaigns`, auth: ADMIN, body: { name: 'x' } }),
  ],
  ['admin lists campaigns', 'GET', `${APP}/campaigns`, 200, (f) => ({ path: `${APPS}/${f.appId}/campaigns`, auth: ADMIN })],
  [
    'admin reads a campaign',
    'GET',
    `${APP}/campaigns/{campaign}`,
    200,
    (f) => ({ path: `${APPS}/${f.appId}/campaigns/${f.campaignId}`, auth: ADMIN }),
  ],
  [
    'admin reads an unknown campaign',
    'GET',
    `${APP}/campaigns/{campaign}`,
    404,
    (f) => ({ path: `${APPS}/${f.appId}/campaigns/000000000000000000000000`, auth: ADMIN }),
  ],
  [
    'admin updates a campaign',
    'PATCH',
    `${APP}/campaigns/{campaign}`,
    200,
    (f) => ({ path: `${APPS}/${f.appId}/campaigns/${f.campaignId}`, auth: ADMIN, body: { description: 'updated by the spec test' } }),
  ],
  [
    'admin adds bulk codes',
    'POST',
    `${APP}/campaigns/{campaign}/codes`,
    200,
    (f) => ({
      path: `${APPS}/${f.appId}/campaigns/${f.bulkCampaignId}/codes`,
      auth: ADMIN,
      body: { generate: { count: 3, prefix: 'SPEC-' } },
    }),
  ],
  [
    'admin lists codes',
    'GET',
    `${APP}/campaigns/{campaign}/codes`,
    200,
    (f) => ({ path: `${APPS}/${f.appId}/campaigns/${f.bulkCampaignId}/codes`, auth: ADMIN }),
  ],
  [
    'admin lists redemptions',
    'GET',
    `${APP}/redemptions`,
    200,
    async (f) => {
      await prerequisite(f, 'POST', `${APPLY}?type=redeem`, applyBody('SPEC10'));
      return { path: `${APPS}/${f.appId}/redemptions?customer=c1`, auth: ADMIN };
    },
  ],
  [
    'admin registers a webhook endpoint',
    'POST',
    `${APP}/webhooks`,
    201,
    (f) => ({ path: `${APPS}/${f.appId}/webhooks`, auth: ADMIN, body: { url: f.receiver.url, description: 'spec' } }),
  ],
  [
    'admin registers a webhook to a private address',
    'POST',
    `${APP}/webhooks`,
    400,
    (f) => ({ path: `${APPS}/${f.appId}/webhooks`, auth: ADMIN, body: { url: 'http://10.0.0.1/hooks' } }),
  ],
  ['admin lists webhook endpoints', 'GET', `${APP}/webhooks`, 200, (f) => ({ path: `${APPS}/${f.appId}/webhooks`, auth: ADMIN })],
  [
    'admin lists webhook endpoints page by page',
    'GET',
    `${APP}/webhooks`,
    200,
    async (f) => {
      await prerequisite(f, 'POST', `${APPS}/${f.appId}/webhooks`, { url: f.receiver.url, event_types: ['redemption.refused'] }, ADMIN);
      return {
        path: `${APPS}/${f.appId}/webhooks?limit=1&cursor=${await nextCursor(f, `${APPS}/${f.appId}/webhooks?limit=1`)}`,
        auth: ADMIN,
      };
    },
  ],
  [
    'admin lists webhook endpoints with an unknown parameter',
    'GET',
    `${APP}/webhooks`,
    400,
    (f) => ({ path: `${APPS}/${f.appId}/webhooks?page=2`, auth: ADMIN }),
  ],
  [
    'admin disables a webhook endpoint',
    'PATCH',
    `${APP}/webhooks/{webhook}`,
    200,
    (f) => ({ path: `${APPS}/${f.appId}/webhooks/${f.webhookId}`, auth: ADMIN, body: { status: 'disabled', description: 'paused' } }),
  ],
  [
    'admin updates an unknown webhook endpoint',
    'PATCH',
    `${APP}/webhooks/{webhook}`,
    404,
    (f) => ({ path: `${APPS}/${f.appId}/webhooks/000000000000000000000000`, auth: ADMIN, body: { status: 'active' } }),
  ],
  [
    'admin rotates a webhook secret',
    'POST',
    `${APP}/webhooks/{webhook}/rotate-secret`,
    200,
    (f) => ({ path: `${APPS}/${f.appId}/webhooks/${f.webhookId}/rotate-secret`, auth: ADMIN, body: { previous_secret_expires_in: 60 } }),
  ],
  [
    'admin lists deliveries',
    'GET',
    `${APP}/webhooks/{webhook}/deliveries`,
    200,
    (f) => ({ path: `${APPS}/${f.appId}/webhooks/${f.webhookId}/deliveries?status=pending&limit=5`, auth: ADMIN }),
  ],
  [
    'admin lists deliveries with an unknown status',
    'GET',
    `${APP}/webhooks/{webhook}/deliveries`,
    400,
    (f) => ({ path: `${APPS}/${f.appId}/webhooks/${f.webhookId}/deliveries?status=lost`, auth: ADMIN }),
  ],
  [
    'admin lists deliveries with a bad cursor',
    'GET',
    `${APP}/webhooks/{webhook}/deliveries`,
    400,
    (f) => ({ path: `${APPS}/${f.appId}/webhooks/${f.webhookId}/deliveries?cursor=nope`, auth: ADMIN }),
  ],
  [
    'admin redelivers a time range',
    'POST',
    `${APP}/webhooks/{webhook}/redeliver`,
    202,
    async (f) => {
      await prerequisite(f, 'PATCH', `${APPS}/${f.appId}/webhooks/${f.webhookId}`, { status: 'active' }, ADMIN);
      return {
        path: `${APPS}/${f.appId}/webhooks/${f.webhookId}/redeliver`,
        auth: ADMIN,
        body: { from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' },
      };
    },
  ],
  [
    'admin pings an endpoint',
    'POST',
    `${APP}/webhooks/{webhook}/ping`,
    202,
    async (f) => {
      await prerequisite(f, 'PATCH', `${APPS}/${f.appId}/webhooks/${f.webhookId}`, { status: 'active' }, ADMIN);
      return { path: `${APPS}/${f.appId}/webhooks/${f.webhookId}/ping`, auth: ADMIN };
    },
  ],
  [
    'admin pings an unknown endpoint',
    'POST',
    `${APP}/webhooks/{webhook}/ping`,
    404,
    (f) => ({ path: `${APPS}/${f.appId}/webhooks/6b03e8cebf2cbb4ef5f12d40/ping`, auth: ADMIN }),
  ],
  [
    'admin redelivers an unknown event',
    'POST',
    `${APP}/webhooks/{webhook}/redeliver`,
    404,
    (f) => ({ path: `${APPS}/${f.appId}/webhooks/${f.webhookId}/redeliver`, auth: ADMIN, body: { event_id: 'evt_nope' } }),
  ],
  [
    'admin lists events',
    'GET',
    `${APP}/events`,
    200,
    async (f) => {
      await prerequisite(f, 'PUT', '/wallets/customer/c3/transactions/loyalty', { type: 'credit', points: 3 });
      return { path: `${APPS}/${f.appId}/events?customer=c3&type=wallet.transaction.completed`, auth: ADMIN };
    },
  ],
  [
    'admin lists events of an unknown type',
    'GET',
    `${APP}/events`,
    400,
    (f) => ({ path: `${APPS}/${f.appId}/events?type=x`, auth: ADMIN }),
  ],
  [
    'admin lists events page by page',
    'GET',
    `${APP}/events`,
    200,
    async (f) => {
      for (const points of [1, 2]) await prerequisite(f, 'PUT', '/wallets/customer/c1/transactions/loyalty', { type: 'credit', points });
      return { path: `${APPS}/${f.appId}/events?limit=1&cursor=${await nextCursor(f, `${APPS}/${f.appId}/events?limit=1`)}`, auth: ADMIN };
    },
  ],
  [
    'admin lists events with an unknown parameter',
    'GET',
    `${APP}/events`,
    400,
    (f) => ({ path: `${APPS}/${f.appId}/events?since=2026-01-01`, auth: ADMIN }),
  ],
];

const CUSTOMER = `${APP}/customers/{customer}`;
const WALLET_ADMIN = `${APP}/wallets/{wallet_id}`;
const CAMPAIGN_ADMIN = `${APP}/campaigns/{campaign}`;
const NONE = '000000000000000000000000';
let tags = 0;
/** A name, id or code no other case uses. */
const tag = () => `spec-${++tags}`;
/** Sends an admin request first, failing loudly if it does not succeed; returns the body. */
const adminPrerequisite = (f: Fixture, method: string, path: string, body?: unknown) => prerequisite(f, method, path, body, ADMIN);

/** Each resource that archives and deletes: its route, a fresh one's path, an unknown one's path. */
const RESOURCES: { name: string; template: string; fresh: (f: Fixture) => Promise<string>; unknown: (f: Fixture) => string }[] = [
  {
    name: 'an application',
    template: APP,
    fresh: async (f) => `${APPS}/${(await adminPrerequisite(f, 'POST', APPS, { name: tag() })).id}`,
    unknown: () => `${APPS}/${NONE}`,
  },
  {
    name: 'a customer',
    template: CUSTOMER,
    fresh: async (f) => {
      const sourceId = tag();
      await adminPrerequisite(f, 'POST', `${APPS}/${f.appId}/customers`, { customers: [{ source_id: sourceId }] });
      return `${APPS}/${f.appId}/customers/${sourceId}`;
    },
    unknown: (f) => `${APPS}/${f.appId}/customers/ghost`,
  },
  {
    name: 'a wallet',
    template: WALLET_ADMIN,
    fresh: async (f) => `${APPS}/${f.appId}/wallets/${(await adminPrerequisite(f, 'POST', `${APPS}/${f.appId}/wallets`, {})).wallet_id}`,
    unknown: (f) => `${APPS}/${f.appId}/wallets/none`,
  },
  {
    name: 'a campaign',
    template: CAMPAIGN_ADMIN,
    fresh: async (f) =>
      `${APPS}/${f.appId}/campaigns/${(await adminPrerequisite(f, 'POST', `${APPS}/${f.appId}/campaigns`, { ...CAMPAIGN, code: tag() })).id}`,
    unknown: (f) => `${APPS}/${f.appId}/campaigns/${NONE}`,
  },
];

/** Archive, unarchive and delete of each resource: fresh (200) and unknown (404). */
const lifecycleCases: Case[] = RESOURCES.flatMap(({ name, template, fresh, unknown }): Case[] => [
  [`admin archives ${name}`, 'POST', `${template}/archive`, 200, async (f) => ({ path: `${await fresh(f)}/archive`, auth: ADMIN })],
  [
    `admin unarchives ${name}`,
    'POST',
    `${template}/unarchive`,
    200,
    async (f) => {
      const path = await fresh(f);
      await adminPrerequisite(f, 'POST', `${path}/archive`);
      return { path: `${path}/unarchive`, auth: ADMIN };
    },
  ],
  [`admin deletes ${name} without history`, 'DELETE', template, 200, async (f) => ({ path: await fresh(f), auth: ADMIN })],
  [
    `admin archives ${name} that does not exist`,
    'POST',
    `${template}/archive`,
    404,
    (f) => ({ path: `${unknown(f)}/archive`, auth: ADMIN }),
  ],
  [
    `admin unarchives ${name} that does not exist`,
    'POST',
    `${template}/unarchive`,
    404,
    (f) => ({ path: `${unknown(f)}/unarchive`, auth: ADMIN }),
  ],
  [`admin deletes ${name} that does not exist`, 'DELETE', template, 404, (f) => ({ path: unknown(f), auth: ADMIN })],
]);

/** A cashback campaign crediting a fresh wallet; returns both. */
async function cashbackSetup(f: Fixture) {
  const walletId = (await adminPrerequisite(f, 'POST', `${APPS}/${f.appId}/wallets`, {})).wallet_id as string;
  const cashback = { kind: 'cashback', type: 'flat', value: 1, wallet_id: walletId };
  const campaign = await adminPrerequisite(f, 'POST', `${APPS}/${f.appId}/campaigns`, { ...CAMPAIGN, code: tag(), discount: cashback });
  return { walletId, campaignId: campaign.id as string };
}

/** An admin request to `${APPS}/<fixture app><suffix>`, with `body` when given. */
const adminAt =
  (suffix: string, body?: unknown) =>
  (f: Fixture): Request => ({ path: `${APPS}/${f.appId}${suffix}`, auth: ADMIN, ...(body === undefined ? {} : { body }) });
/** `adminAt(suffix)` once the customer `sourceId` has a wallet transaction (history). */
const afterCredit =
  (sourceId: string, suffix: string) =>
  async (f: Fixture): Promise<Request> => {
    await prerequisite(f, 'PUT', `/wallets/customer/${sourceId}/transactions/loyalty`, { type: 'credit', points: 1 });
    return adminAt(suffix)(f);
  };

/** What the admin API refuses (409 and 400) around archive and delete, defaults and paging. */
const refusalCases: Case[] = [
  ['admin creates an application with only a name', 'POST', APPS, 201, () => ({ auth: ADMIN, body: { name: 'Named only' } })],
  ['admin lists applications with a bad cursor', 'GET', APPS, 400, () => ({ path: `${APPS}?cursor=nope`, auth: ADMIN })],
  ['admin deletes an application that has customers', 'DELETE', APP, 409, adminAt('')],
  ['admin lists customers with a bad limit', 'GET', `${APP}/customers`, 400, adminAt('/customers?limit=0')],
  ['admin deletes a customer with history', 'DELETE', CUSTOMER, 409, afterCredit('c3', '/customers/c3')],
  [
    'admin reads a ledger with a bad cursor',
    'GET',
    `${CUSTOMER}/wallets/{wallet_id}/ledger`,
    400,
    adminAt('/customers/c1/wallets/loyalty/ledger?cursor=x'),
  ],
  ['admin creates a wallet with defaults', 'POST', `${APP}/wallets`, 201, adminAt('/wallets', {})],
  ['admin creates a wallet whose id is taken', 'POST', `${APP}/wallets`, 409, adminAt('/wallets', { wallet_id: 'loyalty' })],
  ['admin lists wallets with an unknown parameter', 'GET', `${APP}/wallets`, 400, adminAt('/wallets?page=2')],
  [
    'admin archives the cashback wallet of a live campaign',
    'POST',
    `${WALLET_ADMIN}/archive`,
    409,
    async (f) => adminAt(`/wallets/${(await cashbackSetup(f)).walletId}/archive`)(f),
  ],
  ['admin deletes a wallet with transactions', 'DELETE', WALLET_ADMIN, 409, afterCredit('c2', '/wallets/loyalty')],
  ['admin creates a campaign whose code is taken', 'POST', `${APP}/campaigns`, 409, adminAt('/campaigns', { ...CAMPAIGN, code: 'SPEC10' })],
  ['admin lists archived campaigns too', 'GET', `${APP}/campaigns`, 200, adminAt('/campaigns?include_archived=true&limit=2')],
  ['admin lists campaigns with a bad flag', 'GET', `${APP}/campaigns`, 400, adminAt('/campaigns?include_archived=1x')],
  [
    'admin unarchives a campaign whose cashback wallet is archived',
    'POST',
    `${CAMPAIGN_ADMIN}/unarchive`,
    400,
    async (f) => {
      const { walletId, campaignId } = await cashbackSetup(f);
      await adminPrerequisite(f, 'POST', `${APPS}/${f.appId}/campaigns/${campaignId}/archive`);
      await adminPrerequisite(f, 'POST', `${APPS}/${f.appId}/wallets/${walletId}/archive`);
      return adminAt(`/campaigns/${campaignId}/unarchive`)(f);
    },
  ],
  [
    'admin deletes a redeemed campaign',
    'DELETE',
    CAMPAIGN_ADMIN,
    409,
    async (f) => {
      await prerequisite(f, 'POST', `${APPLY}?type=redeem`, applyBody('SPEC10'));
      return adminAt(`/campaigns/${f.campaignId}`)(f);
    },
  ],
  [
    'admin lists codes with skip and a cursor',
    'GET',
    `${CAMPAIGN_ADMIN}/codes`,
    200,
    async (f) => {
      const first = await call(f.api.url, 'GET', `${APPS}/${f.appId}/campaigns/${f.bulkCampaignId}/codes?limit=1`, { auth: ADMIN });
      expect(first.body.next_cursor).to.be.a('string');
      return adminAt(`/campaigns/${f.bulkCampaignId}/codes?limit=1&skip=0&cursor=${first.body.next_cursor}`)(f);
    },
  ],
  [
    'admin lists codes with a bad skip',
    'GET',
    `${CAMPAIGN_ADMIN}/codes`,
    400,
    (f) => adminAt(`/campaigns/${f.bulkCampaignId}/codes?skip=-1`)(f),
  ],
  [
    'admin lists redemptions of a campaign',
    'GET',
    `${APP}/redemptions`,
    200,
    (f) => adminAt(`/redemptions?campaign=${f.campaignId}&limit=1`)(f),
  ],
  ['admin lists redemptions with a bad cursor', 'GET', `${APP}/redemptions`, 400, adminAt('/redemptions?cursor=x')],
  [
    'admin searches redemptions by order, state and time',
    'GET',
    `${APP}/redemptions`,
    200,
    (f) => adminAt(`/redemptions?order_id=order-1&state=completed&from=2020-01-01T00:00:00Z&to=2099-01-01T00:00:00Z`)(f),
  ],
  ['admin searches redemptions with an unknown state', 'GET', `${APP}/redemptions`, 400, adminAt('/redemptions?state=lost')],
  ['admin reads a campaign usage', 'GET', `${CAMPAIGN_ADMIN}/usage`, 200, (f) => adminAt(`/campaigns/${f.campaignId}/usage`)(f)],
  ["admin reads a campaign's results", 'GET', `${CAMPAIGN_ADMIN}/results`, 200, (f) => adminAt(`/campaigns/${f.campaignId}/results`)(f)],
  [
    "admin reads a campaign's results with a range backwards",
    'GET',
    `${CAMPAIGN_ADMIN}/results`,
    400,
    (f) => adminAt(`/campaigns/${f.campaignId}/results?from=2026-05-02&to=2026-05-01`)(f),
  ],
  ["admin reads the application's results", 'GET', `${APP}/results`, 200, (f) => adminAt('/results')(f)],
  [
    'admin reads the usage of an unknown campaign',
    'GET',
    `${CAMPAIGN_ADMIN}/usage`,
    404,
    (f) => adminAt('/campaigns/6b03e8cebf2cbb4ef5f12d1f/usage')(f),
  ],
];

const probeCases: Case[] = [
  ['health', 'GET', '/healthz', 200, () => ({ auth: null })],
  ['readiness', 'GET', '/readyz', 200, () => ({ auth: null })],
];

// ---- the tests ---------------------------------------------------------------------------------

describe('openapi.yaml matches real responses', function () {
  this.timeout(60_000);
  const f = {} as Fixture;
  before(async () => {
    f.api = await startTestApi({ METRICS_TOKEN: 'metrics-token-0123456789', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
    const app = await createTestApplication(f.api.services);
    f.auth = app.auth;
    f.appId = app.id;
    const bare = await createTestApplication(f.api.services);
    f.bareAuth = bare.auth;
    const limited = await createTestApplication(f.api.services);
    await f.api.services.repos.applications.update(limited.id, { rateLimit: { requests: 1, windowSeconds: 3600 } });
    await createCustomers(f.api.services, limited.id, ['c1']);
    f.limitedAuth = limited.auth;
    expect((await call(f.api.url, 'GET', '/wallets/customer/c1', { auth: limited.auth })).status, 'the one request of the hour').to.equal(
      200,
    );
    await createCustomers(f.api.services, bare.id, ['c1']);
    const [c1] = await createCustomers(f.api.services, app.id, ['c1', 'c2', 'c3', 'c4']);
    await createWallet(f.api.services, app.id);
    f.campaignId = (await createCampaign(f.api.services, app.id, { code: 'SPEC10' })).id;
    await createCampaign(f.api.services, app.id, { code: 'SPECONCE', limits: { total: 1 } });
    await createCampaign(f.api.services, app.id, { code: 'SPECMINE', assignment: 'assigned_users', assignedCustomerIds: [c1!.id] });
    await createCampaign(f.api.services, app.id, {
      code: 'SPECSEL',
      discountCalculatedOn: 'selected_items_selling_price_subtotal',
      itemSelector: { match: 'OR', properties: [{ property: 'sku', values: ['SKU2'] }] },
    });
    const bulk = await createCampaign(f.api.services, app.id, { codeType: 'bulk', code: undefined });
    f.bulkCampaignId = bulk.id;
    await createBulkCodes(f.api.services, app.id, bulk.id, ['SPEC-BULK']);
    const stacking = await createTestApplication(f.api.services);
    await f.api.services.repos.applications.update(stacking.id, { stacking: { maxCoupons: 3, automaticPromotions: true } });
    await createCustomers(f.api.services, stacking.id, ['c1']);
    await createCampaign(f.api.services, stacking.id, { code: 'STK1' });
    await createCampaign(f.api.services, stacking.id, { code: 'STK2', discountCalculatedOn: 'shipping' });
    await createCampaign(f.api.services, stacking.id, { name: 'Automatic', code: undefined, trigger: 'automatic' });
    f.stackAuth = stacking.auth;
    const gifts = await createTestApplication(f.api.services);
    await f.api.services.repos.applications.update(gifts.id, { giftCardsAtCheckout: true });
    await createCustomers(f.api.services, gifts.id, ['c1', 'c2']);
    const card = await prerequisite(f, 'POST', `${APPS}/${gifts.id}/gift-cards`, { amount: 1000 }, ADMIN);
    await prerequisite(f, 'POST', `${APPS}/${gifts.id}/customers/c1/store-credit`, { amount: 20 }, ADMIN);
    Object.assign(f, { giftAuth: gifts.auth, giftAppId: gifts.id, giftCode: card.code, giftCardId: card.id });
    f.receiver = await new WebhookReceiver().up();
    f.webhookId = (await prerequisite(f, 'POST', `${APPS}/${app.id}/webhooks`, { url: f.receiver.url }, ADMIN)).id;
    // Its own queue prefix and no worker: its jobs wait forever, so the API answers 503 after 100 ms.
    f.stalled = await startTestApi(
      { QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-stalled`, JOB_WAIT_TIMEOUT_MS: '100' },
      { inProcessWorker: false },
    );
  });
  after(async () => {
    if (f.stalled) {
      await Promise.all(f.stalled.jobs.partitionQueues.map((q) => q.obliterate({ force: true })));
      await f.stalled.close();
    }
    await f.api?.close();
    await f.receiver?.close();
  });

  for (const [label, method, template, status, make] of [
    ...clientCases,
    ...adminCases,
    ...lifecycleCases,
    ...refusalCases,
    ...probeCases,
  ]) {
    it(`when ${label}, then ${status} and the body matches the spec`, async () => {
      const r = await make(f);
      const api = r.api ?? f.api;
      const auth = r.auth === null ? undefined : (r.auth ?? f.auth);
      const res = await call(api.url, method, r.path ?? template, {
        ...(auth ? { auth } : {}),
        ...(r.headers ? { headers: r.headers } : {}),
        ...(r.raw !== undefined ? { rawBody: r.raw } : r.body !== undefined ? { body: r.body } : {}),
      });
      expect(res.status, res.text.slice(0, 300)).to.equal(status);
      assertMatchesSpec(method, template, res.status, res.body, res.headers.get('content-type'));
    });
  }

  it('when the cases are listed, then every status documented for a client route is exercised', () => {
    const documented = Object.entries(spec.paths as Record<string, Record<string, { responses: object }>>)
      .filter(
        ([path]) =>
          path.startsWith('/coupons/') || path.startsWith('/wallets/') || path.startsWith('/customers/') || path.startsWith('/gift-cards/'),
      )
      .flatMap(([path, ops]) =>
        METHODS.filter((m) => ops[m]).flatMap((m) => Object.keys(ops[m]!.responses).map((s) => `${m.toUpperCase()} ${path} ${s}`)),
      );
    const exercised = new Set(clientCases.map(([, method, template, status]) => `${method} ${template} ${status}`));
    expect(documented.filter((d) => !exercised.has(d))).to.deep.equal([]);
    expect([...exercised].filter((e) => !documented.includes(e))).to.deep.equal([]);
  });

  it('when the spec is read, then every example satisfies the schema it illustrates', () => {
    const failures: string[] = [];
    const check = (pointer: string, example: unknown, name = 'example') => {
      const validate = ajv.getSchema(`${SPEC_ID}${pointer}`)!;
      if (!validate(example)) failures.push(`${pointer} (${name}): ${errorsText(validate.errors)}`);
    };
    /** Every media type object with an example: a response body or a request body. */
    const visitContent = (
      base: string,
      content: Record<string, { schema?: unknown; example?: unknown; examples?: Record<string, { value: unknown }> }>,
    ) => {
      for (const [type, media] of Object.entries(content ?? {})) {
        if (!media.schema) continue;
        const schema = `${base}/content/${escapePointer(type)}/schema`;
        if (media.example !== undefined) check(schema, media.example);
        for (const [name, ex] of Object.entries(media.examples ?? {})) check(schema, ex.value, name);
      }
    };
    for (const [path, ops] of Object.entries(spec.paths as Record<string, Record<string, any>>)) {
      for (const m of METHODS.filter((x) => ops[x])) {
        const op = `#/paths/${escapePointer(path)}/${m}`;
        if (ops[m].requestBody?.content) visitContent(`${op}/requestBody`, ops[m].requestBody.content);
        for (const [status, response] of Object.entries(ops[m].responses as Record<string, any>))
          if (!response.$ref) visitContent(`${op}/responses/${status}`, response.content);
      }
    }
    for (const [name, response] of Object.entries(spec.components.responses as Record<string, any>))
      visitContent(`#/components/responses/${name}`, response.content);
    // The webhook events' examples, and the envelope docs/events.md shows (one truth).
    for (const [type, hook] of Object.entries(spec.webhooks as Record<string, any>))
      visitContent(`#/webhooks/${escapePointer(type)}/post/requestBody`, hook.post.requestBody.content);
    const docs = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
    const envelopes = [...docs.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!)).filter((j) => j.object === 'event');
    expect(envelopes.length, 'docs/events.md shows an event envelope').to.be.above(0);
    for (const e of envelopes) check('#/components/schemas/WebhookEvent', e, `docs/events.md ${e.type}`);
    expect(envelopes[0], 'docs/events.md shows the example of openapi.yaml').to.deep.equal(
      spec.webhooks[envelopes[0].type].post.requestBody.content['application/json'].example,
    );
    expect(failures).to.deep.equal([]);
  });

  it('when the spec and the Express routes are compared, then each names the same routes', async () => {
    const services = f.api.services;
    const app = buildApp({ services, logger: createLogger(services.config, 'spec'), jobs: f.api.jobs, metrics: f.api.metrics });
    const sample = (template: string) => template.replace(/\{[^}]+\}/g, 'x');
    const shape = (template: string) => template.replace(/\{[^}]+\}|:[A-Za-z]+/g, '{}');
    const documented = Object.entries(spec.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      METHODS.filter((m) => ops[m]).map((m) => ({ method: m.toUpperCase(), path })),
    );
    const unrouted = documented.filter(({ method, path }) => routeTemplateOf(app.router, method, sample(path)) === undefined);
    expect(unrouted, 'documented but not routed').to.deep.equal([]);
    const routed = documented.map(({ method, path }) => `${method} ${shape(routeTemplateOf(app.router, method, sample(path))!)}`);
    expect(routed).to.deep.equal(documented.map(({ method, path }) => `${method} ${shape(path)}`));
    // The other way round: every client and admin route of the app is documented.
    const listed: string[] = [];
    const walk = (router: any, base: string) => {
      for (const e of router.listRoutes?.() ?? []) {
        if (typeof e.path !== 'string') continue;
        if (e.router) walk(e.router, base + (e.path === '/' ? '' : e.path));
        else for (const m of e.methods ?? []) if (m !== 'HEAD') listed.push(`${m} ${shape(base + e.path)}`);
      }
    };
    walk(app.router, '');
    // Pages, not API: the docs and the console's static files (docs/console.md).
    const page = (r: string) => r.includes(' /docs') || r.includes(' /console');
    const undocumented = listed.filter((r) => !page(r) && !documented.some((d) => `${d.method} ${shape(d.path)}` === r));
    expect(undocumented, 'routed but not documented').to.deep.equal([]);
  });

  it('when the docs page is requested, then it serves Swagger UI from local files and the spec as JSON and YAML', async () => {
    const page = await call(f.api.url, 'GET', '/docs');
    expect(page.status).to.equal(200);
    expect(page.text)
      .to.include('/docs/assets/swagger-ui-bundle.js')
      .and.not.match(/https?:\/\//);
    for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css'])
      expect((await fetch(`${f.api.url}/docs/assets/${asset}`)).status).to.equal(200);
    const json = await call(f.api.url, 'GET', '/docs/openapi.json');
    expect(json.body).to.deep.equal(spec);
    const yaml = await call(f.api.url, 'GET', '/docs/openapi.yaml');
    expect(parse(yaml.text)).to.deep.equal(spec);
  });
});
