/**
 * The benchmark's fixed data sets: an application with 200 customers (some with usage), a wallet,
 * 200 fixed coupons of mixed rules, and one unlimited-ish coupon used by the redeem benchmark.
 */
import { randomUUID } from 'node:crypto';
import type { CampaignInput } from '../../shared/data/campaign.repository.js';
import { campaignCounterId, customerCounterId } from '../../shared/data/limit-counter.repository.js';
import { CAMPAIGN_DEFAULTS } from '../../shared/domain/campaign-defaults.js';
import type { Campaign } from '../../shared/domain/types.js';
import type { Services } from '../../shared/services.js';
import { createApplication } from '../../shared/usecases/admin/create-application.usecase.js';
import { createWebhook } from '../../shared/usecases/admin/webhooks.usecase.js';

/** A fixed coupon `BENCH<i>` of the benchmark: 10% of the selling subtotal, no limits, unless `over` says otherwise. */
export const benchCampaign = (i: number, over: Partial<CampaignInput>): CampaignInput => ({
  ...CAMPAIGN_DEFAULTS,
  name: `Bench coupon ${i}`,
  description: `Coupon ${i} for the benchmark`,
  termsAndConditions: ['Valid once per order'],
  codeType: 'fixed',
  code: `BENCH${String(i).padStart(3, '0')}`,
  validFrom: new Date('2020-01-01T00:00:00Z'),
  discount: { kind: 'discount', type: 'percentage', value: 10, maxCents: null, walletId: null },
  discountCalculatedOn: 'selling_price_subtotal',
  ...over,
});

/** Twelve rule shapes, cycled over the 200 coupons. */
const shapes: ((i: number) => Partial<CampaignInput>)[] = [
  () => ({}),
  () => ({ cartConditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 50000 }] }),
  () => ({ discount: { kind: 'discount', type: 'flat', value: 5000, maxCents: null, walletId: null } }),
  () => ({
    discount: { kind: 'discount', type: 'percentage', value: 20, maxCents: 10000, walletId: null },
    limits: { total: 100000, perCustomer: 5 },
  }),
  () => ({ discountCalculatedOn: 'original_price_subtotal', limits: { perDay: 10000 } }),
  () => ({
    discountCalculatedOn: 'shipping',
    discount: { kind: 'discount', type: 'percentage', value: 100, maxCents: null, walletId: null },
  }),
  (i) => ({
    discountCalculatedOn: 'selected_items_selling_price_subtotal',
    itemSelector: { match: 'OR', properties: [{ property: 'sku', values: [`SKU-${i % 50}`, `SKU-${(i + 7) % 50}`] }] },
    selectedItemsValidations: [{ field: 'selected_items_total_qty', operator: 'gte', value: 1 }],
  }),
  (i) => ({
    discountCalculatedOn: 'valid_cart_selling_price_subtotal',
    excludedItems: { match: 'OR', properties: [{ property: 'product_id', values: [`P-${i % 50}`] }] },
  }),
  () => ({
    productValidations: [
      { field: 'selling_price', operator: 'gt', value: 100 },
      { field: 'cart_qty', operator: 'lte', value: 10 },
    ],
  }),
  () => ({ cartConditions: [{ field: 'payment_mode', operator: 'in', value: ['UPI', 'CARD'] }] }),
  () => ({ discount: { kind: 'cashback', type: 'percentage', value: 5, maxCents: 20000, walletId: 'loyalty' } }),
  () => ({
    schedule: { daysOfWeek: [1, 2, 3, 4, 5, 6, 7], hours: [{ from: '00:00', to: '24:00' }] },
    limits: { perWeek: 100000, perMonth: 100000 },
  }),
];

/**
 * An application with 200 customers, the wallet `loyalty` and the coupon `BENCHREDEEM` (cashback
 * into that wallet, a total limit far away): what redeem and wallet credit measure against.
 */
export async function loadRedeemApp(services: Services, log: (line: string) => void) {
  const { application, apiKey, secret } = await createApplication(services, {
    name: `bench-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`,
    timezone: 'Asia/Kolkata',
    currency: 'INR',
  });
  const customers = await services.repos.customers.upsertMany(
    application.id,
    Array.from({ length: 200 }, (_, i) => ({ sourceId: `bench-cust-${i}` })),
  );
  log('  200 customers');
  await services.repos.wallets.create(application.id, {
    walletId: 'loyalty',
    name: 'Loyalty',
    currency: 'INR',
    singularUnitName: 'point',
    pluralUnitName: 'points',
    timezone: 'Asia/Kolkata',
  });
  const redeemCoupon = await services.repos.campaigns.create(
    application.id,
    benchCampaign(999, {
      code: 'BENCHREDEEM',
      limits: { total: 1_000_000_000 },
      discount: { kind: 'cashback', type: 'flat', value: 100, maxCents: null, walletId: 'loyalty' },
    }),
  );
  await services.repos.couponCodes.insertMany(application.id, redeemCoupon.id, 'fixed', ['BENCHREDEEM']);
  await services.repos.applications.bumpConfigVersion(application.id);
  const auth = `Basic ${Buffer.from(`${apiKey}:${secret}`).toString('base64')}`;
  return { application, apiKey, secret, auth, customers, redeemCoupon };
}

/** {@link loadRedeemApp} plus 200 fixed coupons cycling through twelve rule shapes, some with usage. */
export async function loadBenchData(services: Services, log: (line: string) => void) {
  const app = await loadRedeemApp(services, log);
  const { application, customers } = app;
  const campaigns: Campaign[] = [];
  for (let i = 0; i < 200; i++) {
    const c = await services.repos.campaigns.create(application.id, benchCampaign(i, shapes[i % shapes.length]!(i)));
    await services.repos.couponCodes.insertMany(application.id, c.id, 'fixed', [c.code!]);
    campaigns.push(c);
    if ((i + 1) % 50 === 0) log(`  ${i + 1}/200 coupons`);
  }
  // Usage: some customers have used some limited coupons.
  for (let i = 0; i < 40; i++) {
    const c = campaigns[(i * 12 + 3) % campaigns.length]!;
    const base = { applicationId: application.id, campaignId: c.id };
    if (c.limits.perCustomer)
      await services.repos.limitCounters.seed({ ...base, id: customerCounterId(c.id, customers[i]!.id), kind: 'customer' }, { total: 1 });
    if (c.limits.total) await services.repos.limitCounters.seed({ ...base, id: campaignCounterId(c.id), kind: 'campaign' }, { total: 1 });
  }
  await services.repos.applications.bumpConfigVersion(application.id);
  log('  usage counters');
  return { ...app, campaigns };
}

/** An order of `n` items with consistent subtotals. */
export function benchOrder(n: number, orderId: string) {
  const items = Array.from({ length: n }, (_, i) => ({
    product_id: `P-${i}`,
    sku: `SKU-${i}`,
    name: `Item ${i}`,
    original_price: 250 + i,
    selling_price: 200 + i,
    quantity: 1 + (i % 3),
    shipping: 0,
  }));
  const sum = (f: (x: (typeof items)[number]) => number) => Math.round(items.reduce((s, x) => s + f(x) * x.quantity, 0) * 100) / 100;
  return {
    order_id: orderId,
    original_price_subtotal: sum((x) => x.original_price),
    selling_price_subtotal: sum((x) => x.selling_price),
    status: 'completed',
    shipping: 40,
    payment_mode: 'UPI',
    items,
  };
}

type RedeemApp = Awaited<ReturnType<typeof loadRedeemApp>>;
const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;

/** The loads that redeem `BENCHREDEEM` and credit `loyalty` for random customers of `app`, 64 connections. */
export function queueLoads(app: RedeemApp) {
  const order = benchOrder(5, 'bench');
  return {
    redeem: {
      connections: 64,
      auth: app.auth,
      body: () => ({
        source_id: pick(app.customers).sourceId,
        coupon_details: [{ coupon_id: app.redeemCoupon.id, coupon_code: 'BENCHREDEEM' }],
        order: { ...order, order_id: randomUUID() },
      }),
    },
    credit: {
      connections: 64,
      auth: app.auth,
      method: 'PUT' as const,
      body: () => ({ type: 'credit', points: 1 }),
      path: () => `/wallets/customer/${pick(app.customers).sourceId}/transactions/loyalty`,
    },
    noop: { connections: 64, auth: app.auth, body: () => ({}) },
  };
}

/**
 * The queue loads of an application of its own, freshly loaded (each redeem and credit phase runs
 * on one: the test database's unique-index check grows with an application's ledger, so a phase
 * run after others would pay for their entries); `webhookUrl`: with one webhook endpoint there.
 */
export async function freshQueueLoads(services: Services, webhookUrl?: string) {
  const app = await loadRedeemApp(services, () => undefined);
  if (webhookUrl) await createWebhook(services, app.application.id, { url: webhookUrl });
  return queueLoads(app);
}
