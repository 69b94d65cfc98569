/**
 * Machine-readable reasons (docs/reasons.md): every reason of shared/reasons.ts is produced by a
 * real request here and arrives in `Coupon-Reason` (or, on a list, `Coupon-Reasons`), while the
 * body stays the contract's. The catalogue, openapi.yaml's `Reason` and docs/reasons.md name the
 * same reasons.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { LIST_HEADER_BUDGET } from '../../api/reason-headers.js';
import { REASONS, type Reason } from '../../shared/reasons.js';
import { createBulkCodes, createCampaign, createCustomers, createWallet, makeOrder } from '../fixtures/records.js';
import { settle } from '../support/admin.js';
import {
  call,
  createTestApplication,
  startTestApi,
  TEST_ADMIN_TOKEN,
  TEST_QUEUE_PREFIX,
  useTestApi,
  type TestApi,
  type TestApplication,
} from '../support/context.js';
import { spec } from '../support/openapi.js';
import { changeGiftCard, issueGiftCard } from '../../shared/usecases/admin/gift-cards.usecase.js';

interface Case {
  label: string;
  /** Sends the request that should be refused (or found not applicable) with `reason`. */
  send: () => Promise<Awaited<ReturnType<typeof call>>>;
  status: number;
}

describe('reasons: why a coupon is not applicable or a request was refused, beside the body', function () {
  const api = useTestApi();
  let app: TestApplication;
  let stalled: TestApi;
  /** An application that stacks (docs/stacking.md): three coupons per request. */
  let stacking: TestApplication;
  const stackBody = (codes: string[]) => ({ source_id: 'c1', coupon_details: codes.map((c) => ({ coupon_code: c })), order: makeOrder() });
  const stacked = (type: 'validate' | 'redeem', codes: string[]) =>
    type === 'validate'
      ? call(api().url, 'POST', '/coupons/validate', { auth: stacking.auth, body: stackBody(codes) })
      : call(api().url, 'POST', '/coupons/apply?type=redeem', { auth: stacking.auth, body: stackBody(codes) });
  const detail = (code: string) => ({ coupon_details: [{ coupon_code: code }] });
  const validate = (body: unknown) => call(api().url, 'POST', '/coupons/validate', { auth: app.auth, body });
  const apply = (type: string, body: unknown, headers: Record<string, string> = {}) =>
    call(api().url, 'POST', `/coupons/apply?type=${type}`, { auth: app.auth, body, headers });
  const wallet = (sourceId: string, walletId: string, body: unknown, headers: Record<string, string> = {}) =>
    call(api().url, 'PUT', `/wallets/customer/${sourceId}/transactions/${walletId}`, { auth: app.auth, body, headers });
  const redeemed = async (code: string, sourceId: string, order = makeOrder()) => {
    const res = await apply('redeem', { source_id: sourceId, ...detail(code), order });
    expect(res.status, res.text).to.equal(200);
    return order;
  };

  const redeemedCard = async (code: string) => {
    const res = await apply('redeem', { source_id: 'c1', ...detail(code), order: makeOrder() });
    expect(res.status, res.text).to.equal(200);
  };
  const cardRefusal = (code: string): Case[] => [
    notApplicable(code),
    { label: `redeem ${code}`, status: 400, send: () => apply('redeem', { source_id: 'c1', ...detail(code), order: makeOrder() }) },
  ];

  before(async () => {
    const s = api().services;
    app = await createTestApplication(s);
    await createCustomers(s, app.id, ['c1', 'c2']);
    const [gone] = await createCustomers(s, app.id, ['gone']);
    await s.repos.customers.setArchived(app.id, gone!.id, new Date());
    await createWallet(s, app.id, 'loyalty');
    const limit = (code: string, limits: object) => createCampaign(s, app.id, { code, limits });
    await createCampaign(s, app.id, { code: 'GONE', validUntil: new Date('2021-01-01T00:00:00Z') });
    await limit('TOTAL0', { total: 0 });
    await limit('ONCE', { perCustomer: 1 });
    await limit('DAY0', { perDay: 0 });
    await limit('WEEK0', { perWeek: 0 });
    await limit('MONTH0', { perMonth: 0 });
    await createCampaign(s, app.id, {
      code: 'BIGCART',
      cartConditions: [{ field: 'selling_price_subtotal', operator: 'gt', value: 200000 }],
    });
    await createCampaign(s, app.id, { code: 'PRICEY', productValidations: [{ field: 'selling_price', operator: 'gt', value: 50000 }] });
    await createCampaign(s, app.id, { code: 'SKUZ', itemSelector: { match: 'OR', properties: [{ property: 'sku', values: ['Z'] }] } });
    await createCampaign(s, app.id, { code: 'MEMBERS', assignment: 'assigned_users', assignedCustomerIds: [] });
    // A campaign for Gold members of the club's tiers (docs/wallets.md "Tiers"): c1 earned nothing, so is a Member.
    await s.repos.wallets.create(app.id, {
      walletId: 'club',
      name: 'Club',
      currency: 'INR',
      singularUnitName: 'point',
      pluralUnitName: 'points',
      timezone: 'Asia/Kolkata',
      tiers: {
        basis: { kind: 'calendar', period: 'year' },
        levels: [
          { name: 'Member', minHundredths: 0, multiplier: 100 },
          { name: 'Gold', minHundredths: 100_000, multiplier: 100 },
        ],
      },
    });
    await createCampaign(s, app.id, { code: 'GOLDONLY', tierRequirement: { walletId: 'club', levels: ['Gold'] } });
    // Gift cards at checkout (docs/gift-cards.md): a disabled card, an expired one, an empty one.
    await s.repos.applications.update(app.id, { giftCardsAtCheckout: true });
    const off = await issueGiftCard(s, app.id, { amount: 5, code: 'CARD-OFF' });
    await changeGiftCard(s, app.id, off.id, { status: 'disabled' }, 'reasons-off');
    await issueGiftCard(s, app.id, { amount: 5, code: 'CARD-OLD', expires_at: '2021-01-01T00:00:00Z' });
    const empty = await issueGiftCard(s, app.id, { amount: 0.01, code: 'CARD-EMPTY' });
    await redeemedCard(empty.code!);
    await createCampaign(s, app.id, { code: 'OPEN' });
    const budget = {
      totalCents: null,
      perDayCents: null,
      perWeekCents: null,
      perMonthCents: null,
      perCustomerCents: null,
      whenExceeded: 'refuse' as const,
      notifyAt: [],
    };
    await createCampaign(s, app.id, { code: 'BUDGET5', budget: { ...budget, totalCents: 500 } });
    await createCampaign(s, app.id, { code: 'MYBUDGET5', budget: { ...budget, perCustomerCents: 500 } });
    const gift = { productId: 'case', sku: null, name: 'Case', quantity: 2, valueCents: 0, maxGifts: 1 };
    await createCampaign(s, app.id, { code: 'GIFTS1', discount: { kind: 'discount', type: 'free_gift', value: 0, gift } });
    const bulk = await createCampaign(s, app.id, { codeType: 'bulk', code: undefined, bulkCodeUsageLimit: 1 });
    await createBulkCodes(s, app.id, bulk.id, ['BULK-1']);
    stacking = await createTestApplication(s);
    await s.repos.applications.update(stacking.id, { stacking: { maxCoupons: 3, automaticPromotions: false } } as never);
    await createCustomers(s, stacking.id, ['c1']);
    const stackable = (code: string, over: object) =>
      createCampaign(s, stacking.id, { code, stacking: { priority: 0, category: null, exclusive: false, combinesWith: 'all', ...over } });
    await stackable('ALONE', { exclusive: true, priority: 5 });
    await stackable('SALE', { category: 'sale', combinesWith: ['shipping'] });
    await stackable('LOYAL', { category: 'loyalty' });
    await settle();
    // Its own queue prefix and no worker: its jobs wait, so the API answers 503 after 100 ms.
    stalled = await startTestApi({ QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-reasons`, JOB_WAIT_TIMEOUT_MS: '100' }, { inProcessWorker: false });
  });
  after(async () => {
    await Promise.all(stalled?.jobs.partitionQueues.map((q) => q.obliterate({ force: true })) ?? []);
    await stalled?.close();
  });

  const notApplicable = (code: string, sourceId?: string): Case => ({
    label: `validate ${code}`,
    status: 200,
    send: () => validate({ ...(sourceId ? { source_id: sourceId } : {}), ...detail(code), order: makeOrder() }),
  });
  const cases: Record<Reason, Case[]> = {
    not_available: [notApplicable('GONE')],
    total_limit: [
      notApplicable('TOTAL0'),
      { label: 'redeem TOTAL0', status: 400, send: () => apply('redeem', { source_id: 'c1', ...detail('TOTAL0'), order: makeOrder() }) },
    ],
    per_user_limit: [
      {
        label: 'validate ONCE after a redeem',
        status: 200,
        send: async () => {
          await redeemed('ONCE', 'c1');
          return validate({ source_id: 'c1', ...detail('ONCE'), order: makeOrder() });
        },
      },
    ],
    per_day_limit: [
      notApplicable('DAY0'),
      { label: 'redeem DAY0', status: 400, send: () => apply('redeem', { source_id: 'c1', ...detail('DAY0'), order: makeOrder() }) },
    ],
    per_week_limit: [notApplicable('WEEK0')],
    per_month_limit: [notApplicable('MONTH0')],
    bulk_code_used: [
      {
        label: 'validate BULK-1 after a redeem',
        status: 200,
        send: async () => {
          await redeemed('BULK-1', 'c1');
          return validate({ source_id: 'c2', ...detail('BULK-1'), order: makeOrder() });
        },
      },
    ],
    budget_exhausted: [
      notApplicable('BUDGET5'),
      { label: 'redeem BUDGET5', status: 400, send: () => apply('redeem', { source_id: 'c1', ...detail('BUDGET5'), order: makeOrder() }) },
    ],
    per_user_budget: [
      notApplicable('MYBUDGET5', 'c1'),
      {
        label: 'redeem MYBUDGET5',
        status: 400,
        send: () => apply('redeem', { source_id: 'c1', ...detail('MYBUDGET5'), order: makeOrder() }),
      },
    ],
    gifts_given_out: [
      notApplicable('GIFTS1'),
      { label: 'redeem GIFTS1', status: 400, send: () => apply('redeem', { source_id: 'c1', ...detail('GIFTS1'), order: makeOrder() }) },
    ],
    tier_rule: [
      notApplicable('GOLDONLY', 'c1'),
      {
        label: 'redeem GOLDONLY',
        status: 400,
        send: () => apply('redeem', { source_id: 'c1', ...detail('GOLDONLY'), order: makeOrder() }),
      },
    ],
    cart_rule: [
      notApplicable('BIGCART'),
      { label: 'redeem BIGCART', status: 400, send: () => apply('redeem', { source_id: 'c1', ...detail('BIGCART'), order: makeOrder() }) },
    ],
    product_rule: [notApplicable('PRICEY')],
    stacking_exclusive: [
      { label: 'validate LOYAL with ALONE', status: 200, send: () => stacked('validate', ['LOYAL', 'ALONE']) },
      { label: 'redeem LOYAL with ALONE', status: 400, send: () => stacked('redeem', ['LOYAL', 'ALONE']) },
    ],
    stacking_conflict: [
      { label: 'validate SALE with LOYAL', status: 200, send: () => stacked('validate', ['SALE', 'LOYAL']) },
      { label: 'redeem SALE with LOYAL', status: 400, send: () => stacked('redeem', ['SALE', 'LOYAL']) },
    ],
    stacking_duplicate: [{ label: 'validate LOYAL twice', status: 200, send: () => stacked('validate', ['LOYAL', 'loyal']) }],
    stacking_not_enabled: [
      {
        label: 'best deal for an application that does not stack',
        status: 400,
        send: () => call(api().url, 'POST', '/coupons/best-deal', { auth: app.auth, body: { source_id: 'c1', order: makeOrder() } }),
      },
    ],
    selection: [
      notApplicable('SKUZ'),
      { label: 'redeem SKUZ', status: 400, send: () => apply('redeem', { source_id: 'c1', ...detail('SKUZ'), order: makeOrder() }) },
    ],
    invalid_payload: [
      { label: 'validate with an order without subtotals', status: 200, send: () => validate({ ...detail('OPEN'), order: { items: [] } }) },
      {
        label: 'redeem without order_id',
        status: 400,
        send: () => apply('redeem', { source_id: 'c1', ...detail('OPEN'), order: makeOrder({ order_id: '' }) }),
      },
      {
        label: 'malformed JSON',
        status: 400,
        send: () => call(api().url, 'POST', '/coupons/validate', { auth: app.auth, rawBody: '{"a":' }),
      },
      { label: 'points with 3 decimals', status: 400, send: () => wallet('c1', 'loyalty', { type: 'credit', points: 1.001 }) },
    ],
    invalid_type: [
      { label: 'apply?type=apply', status: 400, send: () => apply('apply', { source_id: 'c1', ...detail('OPEN'), order: makeOrder() }) },
    ],
    coupon_missing: [
      { label: 'validate without coupon_details', status: 400, send: () => validate({ coupon_details: [] }) },
      {
        label: 'redeem without coupon_details',
        status: 400,
        send: () => apply('redeem', { source_id: 'c1', coupon_details: [], order: makeOrder() }),
      },
    ],
    only_one_coupon: [
      {
        label: 'validate two coupons',
        status: 400,
        send: () => validate({ coupon_details: [{ coupon_code: 'OPEN' }, { coupon_code: 'GONE' }] }),
      },
    ],
    coupon_not_found: [
      { label: 'validate NOPE', status: 400, send: () => validate(detail('NOPE')) },
      { label: 'redeem NOPE', status: 400, send: () => apply('redeem', { source_id: 'c1', ...detail('NOPE'), order: makeOrder() }) },
      {
        label: 'validate MEMBERS as a customer it is not assigned to',
        status: 400,
        send: () => validate({ source_id: 'c1', ...detail('MEMBERS') }),
      },
    ],
    unknown_customer: [
      { label: 'validate for nobody', status: 400, send: () => validate({ source_id: 'nobody', ...detail('OPEN') }) },
      {
        label: 'list for nobody',
        status: 400,
        send: () => call(api().url, 'POST', '/coupons/list/all', { auth: app.auth, body: { source_id: 'nobody' } }),
      },
      {
        label: 'redeem for nobody',
        status: 400,
        send: () => apply('redeem', { source_id: 'nobody', ...detail('OPEN'), order: makeOrder() }),
      },
    ],
    login_required: [{ label: 'validate MEMBERS as a visitor', status: 400, send: () => validate(detail('MEMBERS')) }],
    no_redemption: [
      {
        label: 'revert an order never redeemed',
        status: 400,
        send: () => apply('revert', { source_id: 'c1', ...detail('OPEN'), order: makeOrder() }),
      },
    ],
    order_of_another_customer: [
      {
        label: "redeem c1's order for c2",
        status: 400,
        send: async () => apply('redeem', { source_id: 'c2', ...detail('OPEN'), order: await redeemed('OPEN', 'c1') }),
      },
    ],
    customer_not_found: [
      { label: 'credit nobody', status: 404, send: () => wallet('nobody', 'loyalty', { type: 'credit', points: 1 }) },
      {
        label: "read nobody's store credit",
        status: 404,
        send: () => call(api().url, 'GET', '/customers/nobody/store-credit', { auth: app.auth }),
      },
    ],
    customer_archived: [
      {
        label: 'upsert an archived customer',
        status: 409,
        send: () => call(api().url, 'PUT', '/customers/gone', { auth: app.auth, body: { name: 'Back again' } }),
      },
    ],
    gift_card_disabled: cardRefusal('CARD-OFF'),
    gift_card_expired: cardRefusal('CARD-OLD'),
    gift_card_empty: cardRefusal('CARD-EMPTY'),
    gift_card_not_found: [
      { label: 'read an unknown gift card', status: 404, send: () => call(api().url, 'GET', '/gift-cards/NO-SUCH', { auth: app.auth }) },
    ],
    store_credit_not_found: [
      {
        label: 'read the store credit of a customer who has none',
        status: 404,
        send: () => call(api().url, 'GET', '/customers/c1/store-credit', { auth: app.auth }),
      },
    ],
    wallet_not_found: [{ label: 'credit an unknown wallet', status: 404, send: () => wallet('c1', 'nope', { type: 'credit', points: 1 }) }],
    type_missing: [{ label: 'update without type', status: 400, send: () => wallet('c1', 'loyalty', { points: 1 }) }],
    insufficient_points: [
      { label: 'debit more than the balance', status: 400, send: () => wallet('c2', 'loyalty', { type: 'debit', points: 5 }) },
    ],
    invalid_credentials: [
      {
        label: 'validate with a wrong secret',
        status: 401,
        send: () => call(api().url, 'POST', '/coupons/validate', { auth: 'Basic eDp5', body: {} }),
      },
      { label: 'wallet read without credentials', status: 401, send: () => call(api().url, 'GET', '/wallets/customer/c1') },
    ],
    idempotency_conflict: [
      {
        label: 'one key, two bodies',
        status: 409,
        send: async () => {
          const key = { 'Idempotency-Key': `reasons-${Date.now()}` };
          expect((await wallet('c1', 'loyalty', { type: 'credit', points: 1 }, key)).status).to.equal(200);
          return wallet('c1', 'loyalty', { type: 'credit', points: 2 }, key);
        },
      },
    ],
    body_too_large: [{ label: 'a 2 MB body', status: 413, send: () => validate({ pad: 'x'.repeat(2 * 1024 * 1024) }) }],
    rate_limited: [
      {
        label: 'the second request of an application limited to one',
        status: 429,
        send: async () => {
          const limited = await createTestApplication(api().services);
          await api().services.repos.applications.update(limited.id, { rateLimit: { requests: 1, windowSeconds: 3600 } });
          const once = () => call(api().url, 'POST', '/coupons/validate', { auth: limited.auth, body: detail('OPEN') });
          expect((await once()).status, 'the first is let through (and refused on its own account: no such coupon)').to.equal(400);
          return once();
        },
      },
    ],
    unavailable: [
      {
        label: 'a credit no worker takes',
        status: 503,
        send: () =>
          call(stalled.url, 'PUT', '/wallets/customer/c1/transactions/loyalty', { auth: app.auth, body: { type: 'credit', points: 1 } }),
      },
    ],
  };

  for (const [reason, list] of Object.entries(cases) as [Reason, Case[]][]) {
    it(`when a request is refused or not applicable for ${reason}, then Coupon-Reason says ${reason} and the body has no new field`, async () => {
      for (const c of list) {
        const res = await c.send();
        expect(res.status, `${c.label}: ${res.text}`).to.equal(c.status);
        expect(res.headers.get('coupon-reason'), c.label).to.equal(reason);
        expect(res.text, c.label).not.to.include(`"${reason}"`);
        if (c.status === 200) expect(res.body.is_applicable, c.label).to.equal(false);
      }
    });
  }

  it("when the admin API refuses a request, then it sends no Coupon-Reason (the catalogue is the client routes')", async () => {
    const headers = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    const missing = await call(api().url, 'GET', '/admin/applications/6b03e8cebf2cbb4ef5f12d1f', { headers });
    expect(missing.status).to.equal(404);
    expect(missing.headers.get('coupon-reason')).to.equal(null);
    const conflict = await call(api().url, 'DELETE', `/admin/applications/${app.id}`, { headers });
    expect(conflict.status).to.equal(409);
    expect(conflict.headers.get('coupon-reason')).to.equal(null);
  });

  it('when a coupon is applicable, or a request succeeds, then no Coupon-Reason is sent', async () => {
    const ok = await validate({ source_id: 'c1', ...detail('OPEN'), order: makeOrder() });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body.is_applicable).to.equal(true);
    expect(ok.headers.get('coupon-reason')).to.equal(null);
    const credit = await wallet('c1', 'loyalty', { type: 'credit', points: 1 });
    expect(credit.status).to.equal(200);
    expect(credit.headers.get('coupon-reason')).to.equal(null);
  });

  it('when a cart is listed, then Coupon-Reasons names each coupon that is not applicable by its id, in the order of the body', async () => {
    const res = await call(api().url, 'POST', '/coupons/list/all', { auth: app.auth, body: { source_id: 'c2', order: makeOrder() } });
    expect(res.status, res.text).to.equal(200);
    const listed = res.body as { coupon_code: string; coupon_code_id: string; is_applicable: boolean }[];
    const header = res.headers.get('coupon-reasons')!;
    const entries = header.split(', ').map((e) => e.split('='));
    expect(entries.map(([id]) => id)).to.deep.equal(listed.filter((c) => !c.is_applicable).map((c) => c.coupon_code_id));
    const byCode = new Map(listed.map((c) => [c.coupon_code, entries.find(([id]) => id === c.coupon_code_id)?.[1] ?? null]));
    expect(Object.fromEntries(byCode)).to.deep.include({
      TOTAL0: 'total_limit',
      DAY0: 'per_day_limit',
      WEEK0: 'per_week_limit',
      MONTH0: 'per_month_limit',
      BIGCART: 'cart_rule',
      GOLDONLY: 'tier_rule',
      PRICEY: 'product_rule',
      SKUZ: 'selection',
      OPEN: null,
    });
    expect(res.headers.get('coupon-reasons-truncated')).to.equal(null);
  });

  it('when more coupons are not applicable than the header holds, then it stops under its budget at a whole entry and says it is truncated', async () => {
    const s = api().services;
    const crowded = await createTestApplication(s);
    for (let i = 0; i < 200; i++) await createCampaign(s, crowded.id, { code: `FULL${i}`, limits: { total: 0 } });
    await settle();
    const res = await call(api().url, 'POST', '/coupons/list/all', { auth: crowded.auth, body: {} });
    expect(res.status).to.equal(200);
    const listed = res.body as { coupon_code_id: string }[];
    expect(listed).to.have.length(200);
    const header = res.headers.get('coupon-reasons')!;
    expect(Buffer.byteLength(header)).to.be.at.most(LIST_HEADER_BUDGET);
    const ids = header.split(', ').map((e) => e.split('=')[0]);
    expect(ids.length).to.be.below(200);
    expect(ids).to.deep.equal(listed.slice(0, ids.length).map((c) => c.coupon_code_id));
    expect(header.split(', ').every((e) => e.endsWith('=total_limit'))).to.equal(true);
    expect(res.headers.get('coupon-reasons-truncated')).to.equal('?1');
  });

  it('when the catalogue is read, then openapi.yaml and docs/reasons.md name exactly its reasons', () => {
    const names = Object.keys(REASONS).sort();
    expect([...(spec.components.schemas.Reason.enum as string[])].sort()).to.deep.equal(names);
    const doc = readFileSync(new URL('../../docs/reasons.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]).sort();
    expect(documented).to.deep.equal(names);
  });
});
