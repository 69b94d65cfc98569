import { expect } from 'chai';
import { findBestDeal, searchFor, type BestDeal } from '../../shared/domain/best-deal.js';
import { evaluateCoupon } from '../../shared/domain/engine.js';
import { parseOrder, type ParsedOrder } from '../../shared/domain/order.js';
import { stackCoupons, stackingOrder, type EvaluatedCandidate, type StackResult } from '../../shared/domain/stacking.js';
import { DEFAULT_STACKING, type Campaign, type UsageCounts } from '../../shared/domain/types.js';
import { makeCampaign } from '../fixtures/campaign.js';
import { forEachCase, randomCampaign, randomOrder, type Rng } from '../fixtures/random-stacks.js';

const NOW = new Date('2026-03-10T06:00:00Z');
const TZ = 'Asia/Kolkata';
const noUsage: UsageCounts = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };

const parsed = (order: unknown): ParsedOrder => {
  const result = parseOrder(order);
  if (!result.ok) throw new Error(result.message);
  return result.order;
};
const evaluated = (order: unknown, campaigns: Campaign[]): EvaluatedCandidate[] =>
  campaigns.map((campaign) => ({
    campaign,
    evaluation: evaluateCoupon({ now: NOW, timezone: TZ, campaign, usage: noUsage, customerKnown: true, order }),
  }));

/** The stack validate and redeem compute for these coupons and the automatic promotions, by the engine itself. */
const stackOf = (order: unknown, coupons: Campaign[], automatic: Campaign[]): StackResult =>
  stackCoupons({
    now: NOW,
    timezone: TZ,
    customerKnown: true,
    order,
    candidates: [...coupons, ...automatic].map((campaign) => ({ campaign, usage: noUsage })),
  });

interface Combination {
  set: number[];
  stack: StackResult;
}

/** Every allowed combination by brute force: every subset of 1..max coupons whose coupons all join the stack. */
function allowedCombinations(order: unknown, coupons: Campaign[], automatic: Campaign[], max: number): Combination[] {
  const out: Combination[] = [];
  for (let mask = 1; mask < 1 << coupons.length; mask++) {
    const set = coupons.map((_, i) => i).filter((i) => mask & (1 << i));
    if (set.length > max) continue;
    const stack = stackOf(
      order,
      set.map((i) => coupons[i]!),
      automatic,
    );
    if (set.every((_, k) => stack.coupons[k]!.position !== null)) out.push({ set, stack });
  }
  return out;
}

/** The documented order of deals, independent of the module's: discount, cashback, fewer coupons, then stacking order. */
function compare(a: Combination, b: Combination, rank: number[]): number {
  const d = b.stack.totalDiscountCents - a.stack.totalDiscountCents || b.stack.totalCashbackCents - a.stack.totalCashbackCents;
  if (d || a.set.length !== b.set.length) return d || a.set.length - b.set.length;
  const [ra, rb] = [a.set.map((i) => rank[i]!).sort((x, y) => x - y), b.set.map((i) => rank[i]!).sort((x, y) => x - y)];
  for (let k = 0; k < ra.length; k++) if (ra[k] !== rb[k]) return ra[k]! - rb[k]!;
  return 0;
}

/** Coupons (some of them failing their own rules) and 0-2 automatic promotions. */
function randomCase(rng: Rng, coupons: number) {
  const order = randomOrder(rng);
  const codes = Array.from({ length: coupons }, (_, k) => {
    const c = randomCampaign(rng, `c${k}`);
    // Now and then one whose own rules fail on this cart: never a candidate.
    return rng.chance(0.1) ? { ...c, cartConditions: [{ field: 'selling_price_subtotal', operator: 'gt' as const, value: 1e9 }] } : c;
  });
  const automatic = Array.from({ length: rng.int(0, 2) }, (_, k) => ({
    ...randomCampaign(rng, `auto${k}`),
    trigger: 'automatic' as const,
  }));
  return { order, codes, automatic, max: rng.int(1, 4) };
}

/** The deal's figures are the engine's own stack of its coupons with the automatic promotions: what validate and redeem answer. */
function expectRedeemable(deal: BestDeal, order: unknown, codes: Campaign[], automatic: Campaign[]) {
  const again = stackOf(
    order,
    deal.chosen.map((i) => codes[i]!),
    automatic,
  );
  expect(deal.stack).to.deep.equal(again);
  for (let k = 0; k < deal.chosen.length; k++) expect(again.coupons[k]!.position, 'every chosen coupon joins').to.not.equal(null);
}

describe('best deal: the search', () => {
  it('when up to 8 coupons are searched, then the deal is the best of every allowed combination (brute force)', () => {
    forEachCase(600, 'best-deal-exact', (rng) => {
      const { order, codes, automatic, max } = randomCase(rng, rng.int(1, 8));
      const deal = findBestDeal({
        order: parsed(order),
        maxCoupons: max,
        coupons: evaluated(order, codes),
        automatic: evaluated(order, automatic),
      });
      expect(deal.search).to.equal('exact');
      const all = allowedCombinations(order, codes, automatic, max);
      if (all.length === 0) {
        expect(deal.chosen).to.deep.equal([]);
        return;
      }
      const rank: number[] = [];
      stackingOrder(codes.map((campaign) => ({ campaign }))).forEach((i, place) => (rank[i] = place));
      const best = [...all].sort((a, b) => compare(a, b, rank))[0]!;
      for (const c of all) expect(deal.stack.totalDiscountCents, `at least ${c.set.join(',')}`).to.be.at.least(c.stack.totalDiscountCents);
      expect(deal.chosen).to.deep.equal(best.set);
      expect(deal.chosen.length).to.be.at.most(max);
      expectRedeemable(deal, order, codes, automatic);
    });
  });

  it('when more coupons than the exact limit are searched, then the heuristic is never worse than the best single coupon', () => {
    let searched = 0;
    forEachCase(250, 'best-deal-heuristic', (rng) => {
      const { order, codes, automatic } = randomCase(rng, rng.int(14, 22));
      const max = rng.int(4, 10);
      const coupons = evaluated(order, codes);
      const deal = findBestDeal({ order: parsed(order), maxCoupons: max, coupons, automatic: evaluated(order, automatic) });
      if (searchFor(coupons.filter((c) => c.evaluation.applicable).length, max) === 'exact') return; // too few pass their own rules
      expect(deal.search).to.equal('heuristic');
      searched++;
      const singles = codes.map((_, i) => stackOf(order, [codes[i]!], automatic)).filter((s) => s.coupons[0]!.position !== null);
      const bestSingle = Math.max(0, ...singles.map((s) => s.totalDiscountCents));
      expect(deal.stack.totalDiscountCents).to.be.at.least(bestSingle);
      expect(deal.chosen.length).to.be.at.most(max);
      if (singles.length > 0) expectRedeemable(deal, order, codes, automatic);
    });
    expect(searched, 'cases the heuristic searched').to.be.above(100);
  });

  it('when the best single coupon applies only on its own and a combination beats it, then the heuristic finds the combination', () => {
    const order = {
      original_price_subtotal: 1000,
      selling_price_subtotal: 1000,
      items: [{ product_id: 'p1', original_price: 1000, selling_price: 1000, quantity: 1 }],
    };
    const flat = (id: string, cents: number, over: Partial<Campaign> = {}) =>
      makeCampaign({ id, code: id, discount: { kind: 'discount', type: 'flat', value: cents, maxCents: null, walletId: null }, ...over });
    // 25 candidates with max_coupons 10: far above the exact limit. The exclusive one saves 250; two others 200 each, together 400.
    const coupons = [
      flat('ALONE', 25000, { stacking: { ...DEFAULT_STACKING, exclusive: true } }),
      flat('PAIR1', 20000),
      flat('PAIR2', 20000),
      ...Array.from({ length: 22 }, (_, i) => flat(`SMALL${i}`, 100 + i, { stacking: { ...DEFAULT_STACKING, exclusive: true } })),
    ];
    const deal = findBestDeal({ order: parsed(order), maxCoupons: 10, coupons: evaluated(order, coupons), automatic: [] });
    expect(deal.search).to.equal('heuristic');
    expect(deal.chosen.map((i) => coupons[i]!.code)).to.deep.equal(['PAIR1', 'PAIR2']);
    expect(deal.stack.totalDiscountCents).to.equal(40000);
  });

  it('when the search is chosen, then exact up to the stated sizes and the heuristic above', () => {
    const largestExact = (max: number) =>
      Array.from({ length: 60 }, (_, n) => n)
        .filter((n) => searchFor(n, max) === 'exact')
        .at(-1);
    expect([10, 6, 5, 4, 3, 2].map(largestExact)).to.deep.equal([10, 10, 11, 12, 18, 44]);
    expect(searchFor(1000, 1)).to.equal('exact');
  });

  it('when two coupons that combine take more than the exclusive one, then they are the deal, and the exclusive one when it takes more', () => {
    const order = {
      original_price_subtotal: 1000,
      selling_price_subtotal: 1000,
      items: [{ product_id: 'p1', original_price: 1000, selling_price: 1000, quantity: 1, shipping: 0 }],
    };
    const flat = (id: string, cents: number, exclusive = false) =>
      makeCampaign({
        id,
        code: id,
        discount: { kind: 'discount', type: 'flat', value: cents, maxCents: null, walletId: null },
        stacking: { ...DEFAULT_STACKING, exclusive },
      });
    const deal = (codes: Campaign[]) =>
      findBestDeal({ order: parsed(order), maxCoupons: 3, coupons: evaluated(order, codes), automatic: [] });
    const pair = deal([flat('BIG', 15000, true), flat('A', 10000), flat('B', 8000)]);
    expect([pair.chosen, pair.stack.totalDiscountCents, pair.search, pair.candidates]).to.deep.equal([[1, 2], 18000, 'exact', 3]);
    const alone = deal([flat('BIG', 20000, true), flat('A', 10000), flat('B', 8000)]);
    expect([alone.chosen, alone.stack.totalDiscountCents]).to.deep.equal([[0], 20000]);
    // A tie: the fewer coupons.
    const tie = deal([flat('BIG', 18000, true), flat('A', 10000), flat('B', 8000)]);
    expect(tie.chosen).to.deep.equal([0]);
  });

  it('when no coupon applies, then the deal is empty and shows what the automatic promotions give', () => {
    const order = {
      original_price_subtotal: 100,
      selling_price_subtotal: 100,
      items: [{ product_id: 'p1', original_price: 100, selling_price: 100, quantity: 1, shipping: 0 }],
    };
    const never = makeCampaign({ id: 'x', cartConditions: [{ field: 'selling_price_subtotal', operator: 'gt', value: 1e9 }] });
    const auto = makeCampaign({ id: 'auto', trigger: 'automatic' });
    const deal = findBestDeal({
      order: parsed(order),
      maxCoupons: 2,
      coupons: evaluated(order, [never]),
      automatic: evaluated(order, [auto]),
    });
    expect([deal.chosen, deal.stack.totalDiscountCents, deal.candidates, deal.computed]).to.deep.equal([[], 1000, 1, 0]);
  });
});
