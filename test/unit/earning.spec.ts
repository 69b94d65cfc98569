import { expect } from 'chai';
import {
  capByPeriods,
  earningPeriodKey,
  pointsEarned,
  releasePeriods,
  type EarnedInPeriod,
  type EarningPeriod,
  type EarningRule,
} from '../../shared/domain/earning.js';
import { parseOrder, type ParsedOrder } from '../../shared/domain/order.js';
import { DISCOUNT_BASES } from '../../shared/domain/contract-lists.generated.js';
import type { DiscountBase, ItemSelector } from '../../shared/domain/types.js';
import { forEachCase, type Rng } from '../fixtures/random-stacks.js';

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

type RawItem = { price: number; qty: number; sku: string; original: number };

function parsed(raw: unknown): ParsedOrder {
  const r = parseOrder(raw);
  if (!r.ok) throw new Error(r.message);
  return r.order;
}

/** A raw order with consistent subtotals (prices in whole cents, whole quantities: lines are exact). */
function rawOrder(items: readonly RawItem[], shipping?: number) {
  return {
    original_price_subtotal: sum(items.map((i) => Math.round(i.original * 100) * i.qty)) / 100,
    selling_price_subtotal: sum(items.map((i) => Math.round(i.price * 100) * i.qty)) / 100,
    ...(shipping !== undefined ? { shipping } : {}),
    items: items.map((i, k) => ({ product_id: `p${k}`, sku: i.sku, original_price: i.original, selling_price: i.price, quantity: i.qty })),
  };
}

const skus = (...values: string[]): ItemSelector => ({ match: 'OR', properties: [{ property: 'sku', values }] });

const rule = (over: Partial<EarningRule> = {}): EarningRule => ({
  earnedOn: 'selling_price_subtotal',
  itemSelector: null,
  excludedItems: null,
  metadataKeys: [],
  pointsHundredths: 100,
  perCents: 1000,
  rounding: 'down',
  unitHundredths: 100,
  minOrderCents: null,
  maxPerOrderHundredths: null,
  ...over,
});

describe('earning: what an order earns under a wallet earning rule', () => {
  const order = parsed(rawOrder([{ price: 123.45, original: 150, qty: 1, sku: 'A' }], 4.99));

  it('when 1 point per 10.00 of a 123.45 order is rounded down, to the nearest and up, then 12, 12 and 13 points', () => {
    expect(pointsEarned(rule({ rounding: 'down' }), order).hundredths).to.equal(1200);
    expect(pointsEarned(rule({ rounding: 'nearest' }), order).hundredths).to.equal(1200);
    expect(pointsEarned(rule({ rounding: 'up' }), order).hundredths).to.equal(1300);
  });

  it('when a tier earns 1.5× (18.5175 points), then 18, 19 and 19 whole points, or 18.51, 18.52 and 18.52 in hundredths', () => {
    const ctx = { tierMultiplier: 150 };
    expect(
      ['down', 'nearest', 'up'].map((r) => pointsEarned(rule({ rounding: r as EarningRule['rounding'] }), order, ctx).hundredths),
    ).to.deep.equal([1800, 1900, 1900]);
    expect(
      ['down', 'nearest', 'up'].map(
        (r) => pointsEarned(rule({ rounding: r as EarningRule['rounding'], unitHundredths: 1 }), order, ctx).hundredths,
      ),
    ).to.deep.equal([1851, 1852, 1852]);
  });

  it('when the tier (2×) and a campaign (1.5×) both multiply, then the product applies once, before one rounding', () => {
    // 123.45 / 10 × 1 × 2 × 1.5 = 37.035 points
    const earned = pointsEarned(rule({ unitHundredths: 1, rounding: 'nearest' }), order, { tierMultiplier: 200, campaignMultiplier: 150 });
    expect(earned.hundredths).to.equal(3704);
    expect(earned.steps.map((s) => s.step)).to.deep.equal(['base', 'rate', 'rounding']);
  });

  it('when the order is below the minimum, then nothing, and the step says so', () => {
    const earned = pointsEarned(rule({ minOrderCents: 12_346 }), order);
    expect(earned.hundredths).to.equal(0);
    expect(earned.steps.at(-1)).to.deep.equal({ step: 'min_order', value: 0, limited: true });
    expect(pointsEarned(rule({ minOrderCents: 12_345 }), order).hundredths).to.equal(1200);
  });

  it('when the per-order cap and then the period cap bite, then each is a step of its own', () => {
    const earned = pointsEarned(rule({ maxPerOrderHundredths: 1000 }), order, { periodLeftHundredths: 250 });
    expect(earned.hundredths).to.equal(250);
    expect(earned.steps.slice(-2)).to.deep.equal([
      { step: 'max_per_order', value: 1000, limited: true },
      { step: 'period_cap', value: 250, limited: true },
    ]);
    expect(pointsEarned(rule(), order, { periodLeftHundredths: -5 }).hundredths, 'a period already past its cap').to.equal(0);
  });

  it('when the base is shipping, the original subtotal, or the chosen items, then the points are on that base', () => {
    const two = parsed(
      rawOrder(
        [
          { price: 40, original: 50, qty: 2, sku: 'A' },
          { price: 15, original: 15, qty: 1, sku: 'B' },
        ],
        9.99,
      ),
    );
    const on = (earnedOn: DiscountBase, over: Partial<EarningRule> = {}) =>
      pointsEarned(rule({ earnedOn, unitHundredths: 1, pointsHundredths: 100, perCents: 100, ...over }), two).hundredths;
    expect(on('shipping')).to.equal(999);
    expect(on('original_price_subtotal')).to.equal(11_500);
    expect(on('selected_items_selling_price_subtotal', { itemSelector: skus('b') })).to.equal(1500); // case-insensitive, as a campaign's
    expect(on('selected_items_original_price_subtotal', { itemSelector: skus('A') })).to.equal(10_000);
    expect(on('valid_cart_selling_price_subtotal', { excludedItems: skus('A') })).to.equal(1500);
    expect(on('selected_items_selling_price_subtotal')).to.equal(0); // no selector: no item earns
  });

  // ---------------------------------------------------------------------------------------------
  // Random orders and rules against a small reference model (plain numbers: every product here is
  // far below 2^53, so exact; the base by its definition, from the raw order, not the engine's).

  const SKUS = ['A', 'B', 'C'];
  const BASES: readonly DiscountBase[] = DISCOUNT_BASES;

  function randomCase(rng: Rng) {
    const items: RawItem[] = Array.from({ length: rng.int(1, 5) }, () => {
      const price = rng.int(1, 20_000) / 100;
      return { price, original: price + rng.int(0, 500) / 100, qty: rng.int(1, 4), sku: rng.pick(SKUS) };
    });
    const shipping = rng.chance(0.7) ? rng.int(0, 2000) / 100 : undefined;
    const r = rule({
      earnedOn: rng.pick(BASES),
      itemSelector: rng.chance(0.8) ? skus(rng.pick(SKUS)) : null,
      excludedItems: rng.chance(0.5) ? skus(rng.pick(SKUS)) : null,
      pointsHundredths: rng.int(1, 1000),
      perCents: rng.pick([1, 100, 999, 1000, 2500]),
      rounding: rng.pick(['down', 'nearest', 'up'] as const),
      unitHundredths: rng.pick([1, 100] as const),
      minOrderCents: rng.chance(0.3) ? rng.int(0, 50_000) : null,
      maxPerOrderHundredths: rng.chance(0.3) ? rng.int(0, 100_000) : null,
    });
    const ctx = {
      tierMultiplier: rng.chance(0.5) ? rng.int(100, 300) : undefined,
      campaignMultiplier: rng.chance(0.3) ? rng.int(100, 500) : undefined,
      periodLeftHundredths: rng.chance(0.3) ? rng.int(-100, 100_000) : null,
    };
    return { items, shipping, r, ctx };
  }

  function model(items: RawItem[], shipping: number | undefined, r: EarningRule, ctx: ReturnType<typeof randomCase>['ctx']) {
    const cents = (x: number) => Math.round(x * 100);
    const line = (i: RawItem, original: boolean) => cents(original ? i.original : i.price) * i.qty;
    const has = (sel: ItemSelector | null, i: RawItem) => !!sel && (sel.properties[0]!.values as string[]).includes(i.sku);
    const original = r.earnedOn.endsWith('original_price_subtotal');
    let base: number;
    if (r.earnedOn === 'shipping') base = shipping === undefined ? 0 : cents(shipping);
    else if (r.earnedOn.startsWith('selected_items_'))
      base = sum(items.filter((i) => has(r.itemSelector, i)).map((i) => line(i, original)));
    else if (r.earnedOn.startsWith('valid_cart_')) base = sum(items.filter((i) => !has(r.excludedItems, i)).map((i) => line(i, original)));
    else base = sum(items.map((i) => line(i, original)));
    const subtotal = sum(items.map((i) => line(i, false)));
    if (r.minOrderCents !== null && subtotal < r.minOrderCents) return { base, hundredths: 0, exact: 0 };
    const num = base * r.pointsHundredths * (ctx.tierMultiplier ?? 100) * (ctx.campaignMultiplier ?? 100);
    const den = r.perCents * 10_000;
    const units = num / (den * r.unitHundredths);
    const whole = Math.floor(units);
    const rest = num - whole * den * r.unitHundredths; // exact: integers
    const rounded =
      rest === 0
        ? whole
        : r.rounding === 'down'
          ? whole
          : r.rounding === 'up'
            ? whole + 1
            : 2 * rest >= den * r.unitHundredths
              ? whole + 1
              : whole;
    let hundredths = rounded * r.unitHundredths;
    if (r.maxPerOrderHundredths !== null) hundredths = Math.min(hundredths, r.maxPerOrderHundredths);
    if (ctx.periodLeftHundredths !== null && ctx.periodLeftHundredths !== undefined)
      hundredths = Math.min(hundredths, Math.max(0, ctx.periodLeftHundredths));
    return { base, hundredths, exact: num / den };
  }

  it('when random orders and rules (3000 cases) are computed, then the engine equals the reference model, never passes a cap, and rounds within one unit in the stated direction', () => {
    forEachCase(3000, 'earning', (rng) => {
      const { items, shipping, r, ctx } = randomCase(rng);
      const got = pointsEarned(r, parsed(rawOrder(items, shipping)), ctx);
      const want = model(items, shipping, r, ctx);
      expect(got.baseCents, 'base').to.equal(want.base);
      expect(got.hundredths, 'points').to.equal(want.hundredths);
      expect(Number.isInteger(got.hundredths) && got.hundredths >= 0).to.equal(true);
      if (r.maxPerOrderHundredths !== null) expect(got.hundredths).to.be.at.most(r.maxPerOrderHundredths);
      if (ctx.periodLeftHundredths != null) expect(got.hundredths).to.be.at.most(Math.max(0, ctx.periodLeftHundredths));
      const rounding = got.steps.find((s) => s.step === 'rounding');
      if (rounding) {
        const diff = rounding.value - want.exact;
        if (r.rounding === 'down') expect(diff).to.be.within(-r.unitHundredths, 1e-6);
        if (r.rounding === 'up') expect(diff).to.be.within(-1e-6, r.unitHundredths);
        if (r.rounding === 'nearest') expect(Math.abs(diff)).to.be.at.most(r.unitHundredths / 2 + 1e-6);
      }
      // A cap is marked as biting exactly when it lowered the figure.
      for (const s of got.steps) if (s.step === 'max_per_order' || s.step === 'period_cap') expect(s.limited).to.equal(true);
    });
  });

  it('when the multiplier grows (random cases without caps), then the points never fall', () => {
    forEachCase(1000, 'earning-monotone', (rng) => {
      const { items, shipping, r } = randomCase(rng);
      const open = { ...r, maxPerOrderHundredths: null, minOrderCents: null };
      const order = parsed(rawOrder(items, shipping));
      const low = rng.int(100, 200);
      const high = low + rng.int(0, 200);
      expect(pointsEarned(open, order, { tierMultiplier: high }).hundredths).to.be.at.least(
        pointsEarned(open, order, { tierMultiplier: low }).hundredths,
      );
    });
  });

  describe('caps per period', () => {
    const cap = (maxHundredths: number, period: EarningPeriod = 'month') => ({ period, maxHundredths });
    it("when instants fall around a period's end, then the key is the wallet's calendar period, not UTC's", () => {
      const ny = 'America/New_York';
      expect(earningPeriodKey('month', new Date('2027-01-01T04:30:00Z'), ny)).to.equal('month:2026-12');
      expect(earningPeriodKey('month', new Date('2027-01-01T05:00:00Z'), ny)).to.equal('month:2027-01');
      expect(earningPeriodKey('year', new Date('2027-01-01T04:59:59Z'), ny)).to.equal('year:2026');
      // ISO week: Sunday 3 January 2027 is in 2026-W53; Monday 4 January starts 2027-W01.
      expect(earningPeriodKey('week', new Date('2027-01-03T12:00:00Z'), 'UTC')).to.equal('week:2026-W53');
      expect(earningPeriodKey('week', new Date('2027-01-04T00:00:00Z'), 'UTC')).to.equal('week:2027-W01');
      // The night clocks go back in New York (1 November 2026, 25 hours): 23:30 local is still the 1st.
      expect(earningPeriodKey('day', new Date('2026-11-02T04:30:00Z'), ny)).to.equal('day:2026-11-01');
      expect(earningPeriodKey('day', new Date('2026-11-02T05:00:00Z'), ny)).to.equal('day:2026-11-02');
    });

    it('when a new period starts, then the counter of the last one is replaced and the cap starts afresh', () => {
      const june = new Date('2026-06-30T12:00:00Z');
      const july = new Date('2026-07-01T12:00:00Z');
      const rules = [{ rule: 'A', hundredths: 1200, cap: cap(2000) }];
      const first = capByPeriods(rules, [], june, 'UTC');
      const second = capByPeriods(rules, first.counters, june, 'UTC');
      expect([first.hundredths, second.hundredths]).to.deep.equal([1200, 800]);
      expect(second.counters).to.deep.equal([{ rule: 'A', period: 'month:2026-06', hundredths: 2000 }]);
      const next = capByPeriods(rules, second.counters, july, 'UTC');
      expect(next.hundredths).to.equal(1200);
      expect(next.counters).to.deep.equal([{ rule: 'A', period: 'month:2026-07', hundredths: 1200 }]);
      // June's return: its counter is gone, nothing is given back to July's.
      expect(releasePeriods(next.counters, second.counted)).to.deep.equal({ counters: next.counters, released: [] });
      expect(releasePeriods(second.counters, second.counted).counters).to.deep.equal([
        { rule: 'A', period: 'month:2026-06', hundredths: 1200 },
      ]);
    });

    it('when random orders and returns run against random caps, then each counter stays within its cap and equals what was counted less what was given back', () => {
      forEachCase(500, 'earning-period-caps', (rng) => {
        const caps = [cap(rng.int(1, 5000), 'day'), cap(rng.int(1, 5000), 'week'), null];
        let counters: EarnedInPeriod[] = [];
        const kept: EarnedInPeriod[][] = [];
        // The model: what was counted less what was given back, per rule and period.
        const model = new Map<string, number>();
        const add = (cs: EarnedInPeriod[], sign: number) =>
          cs.forEach((c) => model.set(`${c.rule} ${c.period}`, (model.get(`${c.rule} ${c.period}`) ?? 0) + sign * c.hundredths));
        let at = Date.parse('2026-10-20T00:00:00Z');
        for (let step = 0; step < 30; step++) {
          at += rng.int(0, 20) * 3_600_000;
          const now = new Date(at);
          if (kept.length > 0 && rng.int(0, 3) === 0) {
            const back = releasePeriods(counters, kept.splice(rng.int(0, kept.length - 1), 1)[0]!);
            counters = back.counters;
            add(back.released, -1);
            continue;
          }
          const rules = caps.map((c, i) => ({ rule: `r${i}`, hundredths: rng.int(0, 3000), cap: c }));
          const got = capByPeriods(rules, counters, now, 'Europe/Paris');
          const uncapped = rules[2]!.hundredths;
          expect(got.hundredths).to.equal(uncapped + got.counted.reduce((n, c) => n + c.hundredths, 0));
          for (const c of got.counted) expect(c.hundredths).to.be.at.most(rules.find((r) => r.rule === c.rule)!.hundredths);
          counters = got.counters;
          kept.push(got.counted);
          add(got.counted, 1);
          for (const c of counters) {
            const max = caps[Number(c.rule.slice(1))]!.maxHundredths;
            expect(c.hundredths).to.be.within(0, max);
            expect(c.hundredths, 'the model').to.equal(model.get(`${c.rule} ${c.period}`));
            expect(c.period).to.equal(earningPeriodKey(caps[Number(c.rule.slice(1))]!.period, now, 'Europe/Paris'));
          }
        }
      });
    });
  });
});
