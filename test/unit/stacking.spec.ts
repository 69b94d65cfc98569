import { expect } from 'chai';
import { evaluateCoupon } from '../../shared/domain/engine.js';
import { combinable, stackCoupons, type StackCandidate, type StackResult } from '../../shared/domain/stacking.js';
import { DISCOUNT_BASES, type Campaign, type DiscountBase, type UsageCounts } from '../../shared/domain/types.js';
import { makeCampaign } from '../fixtures/campaign.js';
import { forEachCase, randomCampaign, randomOrder, type Rng } from '../fixtures/random-stacks.js';

const NOW = new Date('2026-03-10T06:00:00Z');
const TZ = 'Asia/Kolkata';
const noUsage: UsageCounts = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };
const stack = (order: unknown, campaigns: Campaign[]): StackResult =>
  stackCoupons({
    now: NOW,
    timezone: TZ,
    customerKnown: true,
    order,
    candidates: campaigns.map((campaign): StackCandidate => ({ campaign, usage: noUsage })),
  });
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const cents = (x: number) => Math.round(x * 100);

/** What the cart can lose: every item's selling line and the shipping, in cents. */
function losable(order: ReturnType<typeof randomOrder>) {
  const lines = order.items.map((i) => cents(i.selling_price * i.quantity));
  return { lines, shipping: cents(order.shipping ?? 0) };
}

/** 1 to 6 random campaigns, now and then one of them twice (the same campaign named by two entries). */
function randomCandidates(rng: Rng): Campaign[] {
  const campaigns = Array.from({ length: rng.int(1, 6) }, (_, k) => randomCampaign(rng, `c${k}`));
  if (campaigns.length > 1 && rng.chance(0.15)) campaigns.push(rng.pick(campaigns));
  return campaigns;
}

describe('stacking engine: properties over random carts and campaigns', () => {
  it('when any coupons stack on any cart, then the amounts add up, nothing goes below zero and the combination rules hold', () => {
    forEachCase(3000, 'stacking', (rng) => {
      const order = randomOrder(rng);
      const campaigns = randomCandidates(rng);
      const result = stack(order, campaigns);
      const { lines, shipping } = losable(order);
      const applied = result.coupons.filter((c) => c.position !== null);

      expect(result.totalDiscountCents, 'total within what the cart can lose').to.be.at.most(sum(lines) + shipping);
      expect(result.shippingDiscountCents).to.be.at.most(shipping);
      expect(sum(result.itemDiscountCents) + result.shippingDiscountCents, 'items + shipping = total').to.equal(result.totalDiscountCents);
      // No coupon applied: no order was read, no per-item figures.
      if (applied.length > 0) expect(result.itemDiscountCents).to.have.length(lines.length);
      lines.forEach((line, i) => expect(line - (result.itemDiscountCents[i] ?? 0), `item ${i} final amount`).to.be.at.least(0));
      for (const c of result.coupons) {
        expect(sum(c.itemDiscountCents) + c.shippingDiscountCents, `coupon ${c.candidate}'s shares`).to.equal(c.discountCents);
        for (const d of c.itemDiscountCents) expect(d).to.be.at.least(0);
        if (c.position === null) expect(c.discountCents + c.cashbackCents).to.equal(0);
      }
      const ids = applied.map((c) => campaigns[c.candidate]!.id);
      expect(new Set(ids).size, 'no campaign twice').to.equal(ids.length);
      if (applied.some((c) => campaigns[c.candidate]!.stacking.exclusive)) expect(applied, 'exclusive alone').to.have.length(1);
      for (const a of applied)
        for (const b of applied)
          if (a !== b)
            expect(combinable(campaigns[a.candidate]!.stacking, campaigns[b.candidate]!.stacking), 'combinable pair').to.equal(true);
      expect(
        applied.map((c) => c.position!).sort((x, y) => x - y),
        'positions 1..n',
      ).to.deep.equal(applied.map((_, k) => k + 1));
      // Positions follow the stacking order: priority, higher first.
      const byPosition = [...applied].sort((a, b) => a.position! - b.position!);
      for (let k = 1; k < byPosition.length; k++) {
        const [p, q] = [campaigns[byPosition[k - 1]!.candidate]!, campaigns[byPosition[k]!.candidate]!];
        expect(p.stacking.priority).to.be.at.least(q.stacking.priority);
      }
    });
  });

  it("when one coupon is stacked alone, then its figures are the single-coupon engine's (unless the engine's discount passes the selling lines)", () => {
    let compared = 0;
    forEachCase(3000, 'single', (rng) => {
      const order = randomOrder(rng);
      const campaign = randomCampaign(rng, 'solo');
      const single = evaluateCoupon({ now: NOW, timezone: TZ, campaign, usage: noUsage, customerKnown: true, order });
      const result = stack(order, [campaign]);
      const coupon = result.coupons[0]!;
      if (!single.applicable) {
        expect(coupon.refusal).to.deep.equal(single);
        expect(result.totalDiscountCents).to.equal(0);
        return;
      }
      const { lines } = losable(order);
      const r = single.result;
      // The stack never takes more than an item's selling line: a whole-cart discount above the
      // lines (an original-price base, or a subtotal sent above them), or an original-price item
      // share above its selling line, is where the two may differ, by design.
      const itemLevel = r.itemDiscountCents.every((d) => d !== null);
      const aboveLines = itemLevel
        ? r.itemDiscountCents.some((d, i) => d! > lines[i]!)
        : campaign.discountCalculatedOn !== 'shipping' && r.totalDiscountCents > sum(lines);
      expect(result.totalCashbackCents).to.equal(r.totalCashbackCents);
      if (aboveLines) return;
      compared++;
      expect(result.totalDiscountCents).to.equal(r.totalDiscountCents);
      expect(result.totalAmountCents).to.equal(r.totalAmountCents);
      if (itemLevel) expect(result.itemDiscountCents).to.deep.equal(r.itemDiscountCents);
      if (campaign.discountCalculatedOn === 'shipping') expect(result.shippingDiscountCents).to.equal(r.totalDiscountCents);
    });
    expect(compared, 'most cases compared').to.be.above(2000);
  });

  it('when the random cases are drawn, then every base, type and stacking option occurs', () => {
    const bases = new Set<DiscountBase>();
    const seen = new Set<string>();
    forEachCase(500, 'coverage', (rng) => {
      const c = randomCampaign(rng, 'x');
      bases.add(c.discountCalculatedOn);
      seen.add(c.discount.type).add(c.discount.kind);
      if (c.stacking.exclusive) seen.add('exclusive');
      if (c.stacking.combinesWith !== 'all') seen.add('combinesWith');
      if (c.discount.maxCents) seen.add('cap');
      if (randomOrder(rng).shipping !== undefined) seen.add('shipping');
    });
    expect([...bases].sort()).to.deep.equal([...DISCOUNT_BASES].sort());
    expect([...seen].sort()).to.deep.equal(['cap', 'cashback', 'combinesWith', 'discount', 'exclusive', 'flat', 'percentage', 'shipping']);
  });
});

describe('stacking engine: worked examples', () => {
  /** p1 600 × 1 (sku A), p2 200 × 2 (sku B); subtotals 1200 original / 1000 selling; shipping 50. */
  const order = {
    original_price_subtotal: 1200,
    selling_price_subtotal: 1000,
    shipping: 50,
    items: [
      { product_id: 'p1', sku: 'A', original_price: 700, selling_price: 600, quantity: 1, shipping: 0 },
      { product_id: 'p2', sku: 'B', original_price: 250, selling_price: 200, quantity: 2, shipping: 0 },
    ],
  };
  const c = (id: string, over: Partial<Campaign>) => makeCampaign({ id, code: id, ...over });
  const pct = (value: number, maxCents: number | null = null) => ({
    kind: 'discount' as const,
    type: 'percentage' as const,
    value,
    maxCents,
  });
  const flat = (value: number) => ({ kind: 'discount' as const, type: 'flat' as const, value, maxCents: null });
  const figures = (r: StackResult) => ({
    total: r.totalDiscountCents,
    amount: r.totalAmountCents,
    items: r.itemDiscountCents,
    shipping: r.shippingDiscountCents,
    each: r.coupons.map((x) => [x.position, x.discountCents]),
  });

  it('when 20% on sku B comes before 10% on the cart, then the 10% is of the 920 left', () => {
    const skuB = { match: 'OR' as const, properties: [{ property: 'sku', values: ['B'] }] };
    const r = stack(order, [
      c('cart', { discount: pct(10) }),
      c('skuB', {
        discount: pct(20),
        discountCalculatedOn: 'selected_items_selling_price_subtotal',
        itemSelector: skuB,
        stacking: { priority: 1, category: null, exclusive: false, combinesWith: 'all' },
      }),
    ]);
    // 20% of 400 = 80 on p2; then 10% of 920 = 92, spread 60 / 32 over what is left (600, 320).
    expect(figures(r)).to.deep.equal({
      total: 17200,
      amount: 82800,
      items: [6000, 11200],
      shipping: 0,
      each: [
        [2, 9200],
        [1, 8000],
      ],
    });
  });

  it('when free shipping and a flat 1200 stack, then the flat takes the lines whole and the total is the lines plus the shipping', () => {
    const r = stack(order, [c('ship', { discount: pct(100), discountCalculatedOn: 'shipping' }), c('big', { discount: flat(120000) })]);
    expect(figures(r)).to.deep.equal({
      total: 105000,
      amount: 0,
      items: [60000, 40000],
      shipping: 5000,
      each: [
        [1, 5000],
        [2, 100000],
      ],
    });
  });

  it('when 80% of the original subtotal follows a flat 500, then it is capped at the 500 the lines have left', () => {
    const r = stack(order, [
      c('orig', { discount: pct(80), discountCalculatedOn: 'original_price_subtotal' }),
      c('five', { discount: flat(50000), stacking: { priority: 2, category: null, exclusive: false, combinesWith: 'all' } }),
    ]);
    // The flat 500 takes 300 / 200; the original subtotal left is 700, 80% = 560, above the 500 left.
    expect(figures(r)).to.deep.equal({
      total: 100000,
      amount: 0,
      items: [60000, 40000],
      shipping: 0,
      each: [
        [2, 50000],
        [1, 50000],
      ],
    });
  });

  it('when an exclusive coupon has the higher priority, then the others are left out with its reason', () => {
    const r = stack(order, [
      c('a', { discount: pct(10) }),
      c('solo', { discount: pct(5), stacking: { priority: 3, category: null, exclusive: true, combinesWith: 'all' } }),
    ]);
    expect(figures(r).each).to.deep.equal([
      [null, 0],
      [1, 5000],
    ]);
    expect(r.coupons[0]!.refusal!.reason).to.equal('stacking_exclusive');
  });
});
