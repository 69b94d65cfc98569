/**
 * `npm run bench -- stacking` (docs/stacking.md): what several coupons on one cart cost, as CPU per
 * request of every process together (API, worker, Redis, database), each against a single coupon
 * measured in the same run, ROUNDS times interleaved, medians kept:
 *   - validate of 3 coupons that all combine against validate of the first of them (the same
 *     application, opted in with `max_coupons` 3, the same cart);
 *   - redeem of those 3 against redeem of the first (fresh orders; each phase on an application of
 *     its own);
 *   - the best deal over 20 candidate coupons (categories, combination lists, exclusive ones: the
 *     search has work) against the validate of 1 — when the route exists in this tree.
 * Every phase at {@link CONNECTIONS} connections, throughput and p50/p99 beside the CPU.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { CampaignInput } from '../../shared/data/campaign.repository.js';
import type { Services } from '../../shared/services.js';
import { DEFAULT_STACKING, type Stacking } from '../../shared/domain/types.js';
import { createApplication } from '../../shared/usecases/admin/create-application.usecase.js';
import { benchCampaign, benchOrder } from './dataset.js';
import { log, measure, medianOf, ROUNDS, row, startStack, TABLE_HEAD, type Load, type Result } from './stack.js';

/** Connections of every phase. */
const CONNECTIONS = 64;
const VALIDATE = '/coupons/validate';
const REDEEM = '/coupons/apply?type=redeem';
const BEST_DEAL = '/coupons/best-deal';
/** The best deal is measured only when its route is in this tree. */
const BEST_DEAL_ROUTE = new URL('../../api/routes/best-deal.route.ts', import.meta.url);

/** Limits every coupon carries (a redeem takes a total and a per-customer counter of each), far from reached. */
const LIMITS = { total: 1_000_000_000, perCustomer: 1_000_000 };

const stacking = (over: Partial<Stacking>): Stacking => ({ ...DEFAULT_STACKING, ...over });
const flat = (cents: number) => ({ kind: 'discount' as const, type: 'flat' as const, value: cents, maxCents: null, walletId: null });
const percent = (value: number, maxCents: number | null = null) => ({
  kind: 'discount' as const,
  type: 'percentage' as const,
  value,
  maxCents,
  walletId: null,
});

/** The three coupons validate and redeem stack: a sitewide percentage, a flat loyalty amount, free shipping — each allows all. */
const COMBINING: Partial<CampaignInput>[] = [
  { discount: percent(10), stacking: stacking({ priority: 30, category: 'sitewide' }) },
  { discount: flat(5000), stacking: stacking({ priority: 20, category: 'loyalty' }) },
  { discountCalculatedOn: 'shipping', discount: percent(100), stacking: stacking({ priority: 10, category: 'shipping' }) },
];

/**
 * The 17 other coupons of the best deal's 20, cycling through eight shapes, every one applicable
 * to the bench cart (benchOrder(5): 1,819.00, shipping 40.00): exclusive ones worth less than the
 * best coupon that combines (so the search builds a combination from it), item-level ones, and
 * combination lists that forbid some pairs.
 */
const DEAL_SHAPES: ((k: number) => Partial<CampaignInput>)[] = [
  (k) => ({ discount: percent(10, 15000), stacking: stacking({ priority: 50 + k, exclusive: true }) }),
  (k) => ({
    discount: percent(10 + (k % 4)),
    stacking: stacking({ priority: 25 + k, category: 'sitewide', combinesWith: ['shipping', 'loyalty'] }),
  }),
  (k) => ({
    discount: flat(6000 + 500 * k),
    stacking: stacking({ priority: 15 + k, category: 'loyalty', combinesWith: ['sitewide', 'shipping'] }),
  }),
  (k) => ({
    discountCalculatedOn: 'selected_items_selling_price_subtotal',
    itemSelector: { match: 'OR', properties: [{ property: 'sku', values: [`SKU-${k % 5}`] }] },
    selectedItemsValidations: [{ field: 'selected_items_total_qty', operator: 'gte', value: 1 }],
    discount: percent(30),
    stacking: stacking({ priority: 40 + k, category: 'product' }),
  }),
  (k) => ({
    discountCalculatedOn: 'valid_cart_selling_price_subtotal',
    excludedItems: { match: 'OR', properties: [{ property: 'product_id', values: [`P-${k % 5}`] }] },
    discount: percent(12),
    stacking: stacking({ priority: 5 + k, category: 'brand', combinesWith: ['loyalty', 'shipping'] }),
  }),
  (k) => ({ discountCalculatedOn: 'shipping', discount: flat(2000), stacking: stacking({ priority: 8 + k, category: 'shipping' }) }),
  (k) => ({
    discountCalculatedOn: 'original_price_subtotal',
    discount: percent(8),
    stacking: stacking({ priority: 12 + k, category: 'sitewide' }),
  }),
  (k) => ({ discount: flat(14000), stacking: stacking({ priority: 45 + k, exclusive: true }) }),
];

/**
 * An application opted in to stacking (`max_coupons` 3, no automatic promotions; before its first
 * request, so no cache holds it yet) with 200 customers, the three {@link COMBINING} coupons and,
 * with `deals`, the 17 others of the best deal's candidates: no other coupon.
 */
async function loadStackingApp(services: Services, deals: boolean) {
  const { application, apiKey, secret } = await createApplication(services, {
    name: `bench-stacking-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`,
    timezone: 'Asia/Kolkata',
    currency: 'INR',
  });
  const id = application.id;
  await services.repos.applications.update(id, { stacking: { maxCoupons: 3, automaticPromotions: false } });
  const customers = await services.repos.customers.upsertMany(
    id,
    Array.from({ length: 200 }, (_, i) => ({ sourceId: `bench-cust-${i}` })),
  );
  const create = async (i: number, over: Partial<CampaignInput>) => {
    const c = await services.repos.campaigns.create(id, benchCampaign(i, { code: `STACK${i}`, limits: LIMITS, ...over }));
    await services.repos.couponCodes.insertMany(id, c.id, 'fixed', [c.code!]);
    return c;
  };
  const combining = [];
  for (const [i, over] of COMBINING.entries()) combining.push(await create(i, over));
  if (deals) for (let k = 0; k < 17; k++) await create(COMBINING.length + k, DEAL_SHAPES[k % DEAL_SHAPES.length]!(k));
  await services.repos.applications.bumpConfigVersion(id);
  return {
    auth: `Basic ${Buffer.from(`${apiKey}:${secret}`).toString('base64')}`,
    customers,
    entries: combining.map((c) => ({ coupon_id: c.id, coupon_code: c.code! })),
  };
}

type StackingApp = Awaited<ReturnType<typeof loadStackingApp>>;
const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;
const ORDER = benchOrder(5, 'bench-stacking');

/** A load of `app`: random customers, the bench cart (a fresh order id with `freshOrders`), the entries `entries()` gives. */
const couponLoad = (app: StackingApp, entries: () => unknown[], freshOrders: boolean): Load => ({
  connections: CONNECTIONS,
  auth: app.auth,
  body: () => ({
    source_id: pick(app.customers).sourceId,
    coupon_details: entries(),
    order: freshOrders ? { ...ORDER, order_id: randomUUID() } : ORDER,
  }),
});
/**
 * One coupon: always the first of the three. Single redeems that mix several limited coupons at 64
 * connections stall for seconds (docs/benchmarks.md, "Stacking"): a ratio against them would
 * measure that, not what the stack adds.
 */
const oneOf = (app: StackingApp) => () => [app.entries[0]!];
const allThree = (app: StackingApp) => () => app.entries;

/** One request of a load, checked before it is measured: a benchmark of refusals would measure the wrong path. */
async function checkOne(url: string, path: string, load: Load, ok: (body: Record<string, unknown>) => boolean) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: load.auth, 'content-type': 'application/json' },
    body: JSON.stringify(load.body()),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200 || !ok(body)) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body).slice(0, 600)}`);
  return body;
}

const stackApplied = (b: Record<string, unknown>) => {
  const coupons = (b.stack as { coupons?: { position: number | null }[] } | undefined)?.coupons ?? [];
  return b.is_applicable === true && coupons.length === 3 && coupons.every((c) => c.position !== null);
};
const redeemedThree = (b: Record<string, unknown>) => b.status === 'completed' && (b.coupons as unknown[] | undefined)?.length === 3;

export async function stackingBench(): Promise<string[]> {
  const stack = await startStack({});
  try {
    log('loading the stacking application (200 customers, 20 coupons, 3 of them combining)');
    const shop = await loadStackingApp(stack.services, true);
    log('starting one API and one worker');
    const { url } = await stack.startApi();
    await stack.startWorker();
    const validate1 = couponLoad(shop, oneOf(shop), false);
    const validate3 = couponLoad(shop, allThree(shop), false);
    const bestDealLoad: Load = {
      connections: CONNECTIONS,
      auth: shop.auth,
      body: () => ({ source_id: pick(shop.customers).sourceId, order: ORDER }),
    };
    const redeemApp = () => loadStackingApp(stack.services, false);
    const checkedRedeem = async (three: boolean) => {
      const app = await redeemApp();
      const load = couponLoad(app, three ? allThree(app) : oneOf(app), true);
      await checkOne(url, REDEEM, load, three ? redeemedThree : (b) => b.status === 'completed');
      return load;
    };

    await checkOne(url, VALIDATE, validate1, (b) => b.is_applicable === true && !('stack' in b));
    await checkOne(url, VALIDATE, validate3, stackApplied);
    const withBestDeal = existsSync(BEST_DEAL_ROUTE);
    let deal: { candidates: unknown; search: unknown; chosen: number } | undefined;
    if (withBestDeal) {
      const b = await checkOne(url, BEST_DEAL, bestDealLoad, (x) => Array.isArray(x.coupon_details));
      const chosen = (b.coupon_details as { coupon_code: string }[]).map((c) => c.coupon_code);
      deal = { candidates: b.candidates, search: b.search, chosen: chosen.length };
      log(
        `  best deal: ${String(deal.candidates)} candidates, search ${String(deal.search)}, chosen ${chosen.join(' + ')}, saving ${String((b.stack as { total_discount?: number }).total_discount)}`,
      );
    } else log(`  ${BEST_DEAL_ROUTE.pathname} is not in this tree: the best deal is not measured`);

    // Warm-up (JIT, caches, connection pools) of every path measured, not recorded.
    await measure('warm-up: validate, 1 coupon', `${url}${VALIDATE}`, { ...validate1, connections: 16, amount: 3000 });
    await measure('warm-up: validate, 3 coupons', `${url}${VALIDATE}`, { ...validate3, connections: 16, amount: 3000 });
    await measure('warm-up: redeem, 3 coupons', `${url}${REDEEM}`, { ...(await checkedRedeem(true)), connections: 16, amount: 1000 });
    if (withBestDeal) await measure('warm-up: best deal', `${url}${BEST_DEAL}`, { ...bestDealLoad, connections: 16, amount: 500 });

    const of: Record<'v1' | 'v3' | 'deal' | 'r1' | 'r3', Result[]> = { v1: [], v3: [], deal: [], r1: [], r3: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const round = ` (round ${r + 1}/${ROUNDS})`;
      await stack.drain();
      of.v1.push(await measure(`validate, 1 coupon${round}`, `${url}${VALIDATE}`, validate1));
      of.v3.push(await measure(`validate, 3 coupons${round}`, `${url}${VALIDATE}`, validate3));
      if (withBestDeal) of.deal.push(await measure(`best deal, 20 candidates${round}`, `${url}${BEST_DEAL}`, bestDealLoad));
      // Each redeem phase on an application of its own: every phase meets the same amount of data.
      await stack.drain();
      of.r1.push(await measure(`redeem, 1 coupon${round}`, `${url}${REDEEM}`, await checkedRedeem(false)));
      await stack.drain();
      of.r3.push(await measure(`redeem, 3 coupons${round}`, `${url}${REDEEM}`, await checkedRedeem(true)));
    }
    await stack.drain();

    const at = `@${CONNECTIONS}`;
    const v1 = medianOf(of.v1, `validate, 1 coupon ${at}`);
    const v3 = medianOf(of.v3, `validate, 3 coupons ${at}`);
    const r1 = medianOf(of.r1, `redeem, 1 coupon ${at}`);
    const r3 = medianOf(of.r3, `redeem, 3 coupons ${at}`);
    const dealRow = withBestDeal ? medianOf(of.deal, `best deal, 20 candidates ${at}`) : undefined;
    const lines = [
      ratioLine('validate, 3 coupons / 1 coupon', v3, v1, of.v3, of.v1, 2),
      ratioLine('redeem, 3 coupons / 1 coupon', r3, r1, of.r3, of.r1, 2),
      dealRow
        ? ratioLine(
            `best deal, 20 candidates (${String(deal!.candidates)} counted, ${String(deal!.search)} search, ${deal!.chosen} chosen) / validate, 1 coupon`,
            dealRow,
            v1,
            of.deal,
            of.v1,
            3,
          )
        : `| best deal, 20 candidates / validate, 1 coupon | not measured: no ${BEST_DEAL} route in this tree | <= 3x | | |`,
    ];
    return [
      '',
      ...TABLE_HEAD,
      ...[v1, v3, ...(dealRow ? [dealRow] : []), r1, r3].map(row),
      '',
      '| CPU per request, all processes | medians of rounds | target | | each round, back to back |',
      '|---|---|---|---|---|',
      ...lines,
    ];
  } finally {
    await stack.stop();
  }
}

/**
 * One ratio of CPU per request: of the medians (the runs of median throughput), against `max`; and
 * each round's pair, measured minutes apart at most, free of the drift between rounds.
 */
function ratioLine(name: string, num: Result, den: Result, nums: Result[], dens: Result[], max: number): string {
  const ratio = (num.cpuMs ?? NaN) / (den.cpuMs ?? NaN);
  const pairs = nums.map((n, i) => (n.cpuMs ?? NaN) / (dens[i]!.cpuMs ?? NaN));
  return `| ${name} | ${num.cpuMs?.toFixed(2)} / ${den.cpuMs?.toFixed(2)} ms = ${ratio.toFixed(2)}x | <= ${max}x | ${ratio <= max ? 'met' : 'MISSED'} | ${pairs.map((x) => `${x.toFixed(2)}x`).join(', ')} |`;
}
