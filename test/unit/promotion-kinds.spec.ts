import { expect } from 'chai';
import { computeDiscount, type DiscountResult } from '../../shared/domain/discount.js';
import { campaignRuleTexts, evaluateCoupon, explainCoupon, selectionOf, type Evaluation } from '../../shared/domain/engine.js';
import * as M from '../../shared/domain/messages.js';
import { percentOf, roundHalfAway, spreadLargestRemainder } from '../../shared/domain/money.js';
import { parseOrder, type ParsedOrder } from '../../shared/domain/order.js';
import { planBundle, planBuyXGetY } from '../../shared/domain/promotion-kinds.js';
import { stackCoupons } from '../../shared/domain/stacking.js';
import type { Bundle, BuyXGetY, Campaign, Discount, DiscountBase, ItemSelector, Tiered, UsageCounts } from '../../shared/domain/types.js';
import { makeCampaign } from '../fixtures/campaign.js';
import { forEachCase, type Rng } from '../fixtures/random-stacks.js';

const NOW = new Date('2026-03-10T06:00:00Z');
const TZ = 'Asia/Kolkata';
const noUsage: UsageCounts = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** An item of a raw order: price in currency units, quantity, sku. */
type RawItem = { price: number; qty: number; sku: string };

/** A raw order (as a request sends it) with consistent subtotals. */
function rawOrder(items: readonly RawItem[], shipping?: number) {
  const lines = items.map((i) => roundHalfAway(Math.round(i.price * 100) * i.qty));
  return {
    original_price_subtotal: sum(lines) / 100,
    selling_price_subtotal: sum(lines) / 100,
    ...(shipping !== undefined ? { shipping } : {}),
    items: items.map((i, k) => ({
      product_id: `p${k}`,
      sku: i.sku,
      name: `item ${k}`,
      original_price: i.price,
      selling_price: i.price,
      quantity: i.qty,
    })),
  };
}

function parsed(raw: unknown): ParsedOrder {
  const r = parseOrder(raw);
  if (!r.ok) throw new Error(r.message);
  return r.order;
}

const skus = (...values: string[]): ItemSelector => ({ match: 'OR', properties: [{ property: 'sku', values }] });
const promo = (discount: Partial<Discount> & Pick<Discount, 'type'>, over: Partial<Campaign> = {}): Campaign =>
  makeCampaign({ discount: { kind: 'discount', value: 0, maxCents: null, walletId: null, ...discount }, ...over });
const compute = (campaign: Campaign, order: ParsedOrder): DiscountResult => computeDiscount(campaign, order, selectionOf(campaign, order));
const evaluate = (campaign: Campaign, order: unknown): Evaluation =>
  evaluateCoupon({ now: NOW, timezone: TZ, campaign, usage: noUsage, customerKnown: true, order });

// ---------------------------------------------------------------------------------------------
// Random carts and rules (small, so that the references can enumerate units)

const SKUS = ['A', 'B', 'C'];
/** Few distinct prices, so that ties between items occur. */
const PRICES = [0.99, 2.5, 3, 7, 10, 10, 12.34];

function randomItems(rng: Rng): RawItem[] {
  return Array.from({ length: rng.int(1, 4) }, () => ({
    price: rng.chance(0.7) ? rng.pick(PRICES) : rng.int(1, 5000) / 100,
    // Now and then a fractional quantity: its whole units count.
    qty: rng.chance(0.1) ? rng.int(2, 7) / 2 : rng.int(1, 3),
    sku: rng.pick(SKUS),
  }));
}

const randomSelector = (rng: Rng): ItemSelector =>
  skus(...SKUS.filter(() => rng.chance(0.5)).concat(rng.chance(0.3) ? [] : [rng.pick(SKUS)]));
const randomCap = (rng: Rng): number | null => (rng.chance(0.3) ? rng.int(1, 3000) : null);

/** One whole unit of an item, as the references see the cart. */
interface Unit {
  item: number;
  price: number;
}

/** The whole units of a parsed order, cheapest first, ties by item order. */
function unitsOf(order: ParsedOrder): Unit[] {
  return order.items
    .flatMap((item, i) =>
      Array.from({ length: Math.floor(item.quantity) }, () => ({ item: i, price: item.sellingLineCents / item.quantity })),
    )
    .sort((a, b) => a.price - b.price || a.item - b.item);
}

/** Every k-subset of `xs` (k small). */
function* subsets<T>(xs: readonly T[], k: number, from = 0): Generator<T[]> {
  if (k === 0) return yield [];
  for (let i = from; i <= xs.length - k; i++) for (const rest of subsets(xs, k - 1, i + 1)) yield [xs[i]!, ...rest];
}

const matchesSku = (sel: ItemSelector | null, sku: string | undefined): boolean =>
  sel === null || sel.properties[0]!.values.some((v) => String(v).toLowerCase() === (sku ?? '').toLowerCase());

/**
 * Reference for buy X get Y, by brute force over unit assignments: the largest r ≤ K for which
 * some r·M get-eligible units leave r·N buy-eligible units, and the least value those r·M can have.
 */
function referenceBuyXGetY(rule: BuyXGetY, order: ParsedOrder): { repeats: number; weight: number } {
  const units = unitsOf(order);
  const buys = (u: Unit) => matchesSku(rule.buySelector, order.items[u.item]!.sku);
  const gets = (u: Unit) => matchesSku(rule.getSelector ?? rule.buySelector, order.items[u.item]!.sku);
  const indexes = units.map((_, k) => k);
  const getEligible = indexes.filter((k) => gets(units[k]!));
  for (let r = rule.maxRepeats; r > 0; r--) {
    let best = Infinity;
    for (const chosen of subsets(getEligible, r * rule.getQuantity)) {
      const taken = new Set(chosen);
      const buyable = indexes.filter((k) => !taken.has(k) && buys(units[k]!)).length;
      if (buyable >= r * rule.buyQuantity) best = Math.min(best, sum(chosen.map((k) => units[k]!.price)));
    }
    if (best < Infinity) return { repeats: r, weight: best };
  }
  return { repeats: 0, weight: 0 };
}

/**
 * Reference for a bundle, on a list of units: for b = K, K-1, …, each component in order takes the
 * b·q cheapest matching units left; per set k, the k-th q units of each component; per set,
 * max(0, value − price) spread over its items by value. Per item, the sum over sets.
 */
function referenceBundle(bundle: Bundle, order: ParsedOrder): { sets: number; itemCents: number[] } {
  const units = unitsOf(order);
  const matches = (c: number, u: Unit) => matchesSku(bundle.components[c]!.selector, order.items[u.item]!.sku);
  for (let b = bundle.maxRepeats; b > 0; b--) {
    const free = units.map(() => true);
    const taken: Unit[][] = [];
    for (let c = 0; c < bundle.components.length; c++) {
      const picked: number[] = [];
      for (let k = 0; k < units.length && picked.length < b * bundle.components[c]!.quantity; k++)
        if (free[k] && matches(c, units[k]!)) picked.push(k);
      if (picked.length < b * bundle.components[c]!.quantity) break;
      picked.forEach((k) => (free[k] = false));
      taken.push(picked.map((k) => units[k]!));
    }
    if (taken.length < bundle.components.length) continue;
    const itemCents = order.items.map(() => 0);
    for (let s = 0; s < b; s++) {
      const byItem = new Map<number, number>();
      taken.forEach((list, c) => {
        const q = bundle.components[c]!.quantity;
        for (const u of list.slice(s * q, (s + 1) * q)) byItem.set(u.item, (byItem.get(u.item) ?? 0) + 1);
      });
      // n units of an item are worth line × n ÷ quantity.
      const parts = [...byItem].map(([item, n]): [number, number] => [
        item,
        (order.items[item]!.sellingLineCents * n) / order.items[item]!.quantity,
      ]);
      const discount = Math.max(0, roundHalfAway(sum(parts.map(([, v]) => v)) - bundle.priceCents));
      const shares = spreadLargestRemainder(
        discount,
        parts.map(([, v]) => v),
      );
      parts.forEach(([item], k) => (itemCents[item]! += shares[k]!));
    }
    return { sets: b, itemCents: itemCents.map((c, i) => Math.min(c, order.items[i]!.sellingLineCents)) };
  }
  return { sets: 0, itemCents: order.items.map(() => 0) };
}

/** The invariants every item-level result keeps: per-item amounts within the lines, summing to the total, under the cap. */
function expectItemLevel(result: DiscountResult, order: ParsedOrder, uncapped: readonly number[], maxCents: number | null) {
  const items = result.itemDiscountCents as number[];
  expect(
    items.every((d) => d !== null && Number.isInteger(d) && d >= 0),
    'integer cents, per item',
  ).to.equal(true);
  expect(sum(items), 'per-item amounts sum to the total').to.equal(result.totalDiscountCents);
  items.forEach((d, i) => expect(d, `item ${i} within its line`).to.be.at.most(order.items[i]!.sellingLineCents));
  items.forEach((d, i) => expect(d, `item ${i} never above its uncapped amount`).to.be.at.most(uncapped[i]!));
  const expected = maxCents === null ? sum(uncapped) : Math.min(sum(uncapped), maxCents);
  expect(result.totalDiscountCents, 'the total, capped at maxCents').to.equal(expected);
  expect(result.totalAmountCents).to.equal(Math.max(0, order.sellingSubtotalCents - result.totalDiscountCents));
}

// ---------------------------------------------------------------------------------------------

describe('promotion kinds: buy X get Y against a brute-force reference', () => {
  it('when any small cart meets a buy X get Y, then repetitions, the cheapest choice and the amounts match the reference', () => {
    let applied = 0;
    forEachCase(1500, 'bxgy', (rng) => {
      const rule: BuyXGetY = {
        buyQuantity: rng.int(1, 3),
        buySelector: rng.chance(0.3) ? null : randomSelector(rng),
        getQuantity: rng.int(1, 2),
        getSelector: rng.chance(0.4) ? null : randomSelector(rng),
        percentOff: rng.chance(0.5) ? 100 : rng.int(1, 99),
        maxRepeats: rng.int(1, 3),
      };
      const maxCents = randomCap(rng);
      const campaign = promo({ type: 'buy_x_get_y', buyXGetY: rule, maxCents });
      const raw = rawOrder(randomItems(rng));
      const order = parsed(raw);
      const plan = planBuyXGetY(rule, campaign, order.items);
      const ref = referenceBuyXGetY(rule, order);

      expect(plan.repeats, 'repetitions').to.equal(ref.repeats);
      expect(plan.repeats).to.be.at.most(rule.maxRepeats);
      expect(sum(plan.getTaken), 'r·M reduced units').to.equal(plan.repeats * rule.getQuantity);
      expect(sum(plan.buyTaken), 'r·N bought units').to.equal(plan.repeats * rule.buyQuantity);
      const price = (i: number) => order.items[i]!.sellingLineCents / order.items[i]!.quantity;
      const weight = sum(plan.getTaken.map((n, i) => n * price(i)));
      expect(weight, 'the cheapest choice the disjointness allows').to.be.closeTo(ref.weight, 1e-6);
      order.items.forEach((item, i) => {
        const units = Math.floor(item.quantity);
        expect(plan.getTaken[i]! + plan.buyTaken[i]!, `item ${i}: units used once`).to.be.at.most(units);
        if (plan.getTaken[i]! > 0) expect(matchesSku(rule.getSelector ?? rule.buySelector, item.sku)).to.equal(true);
        if (plan.buyTaken[i]! > 0) expect(matchesSku(rule.buySelector, item.sku)).to.equal(true);
      });
      // Cheapest first: an unchosen get-only unit is never cheaper than a chosen one.
      order.items.forEach((item, i) => {
        const getOnly = !matchesSku(rule.buySelector, item.sku) && matchesSku(rule.getSelector ?? rule.buySelector, item.sku);
        if (!getOnly || plan.getTaken[i]! === Math.floor(item.quantity)) return;
        plan.getTaken.forEach(
          (n, j) => n > 0 && expect(price(j), `unit of item ${j} chosen over a cheaper one of ${i}`).to.be.at.most(price(i)),
        );
      });

      const result = compute(campaign, order);
      expectItemLevel(result, order, plan.itemCents, maxCents);
      // Each item's amount is P% of its reduced units, rounded once per item.
      expect(Math.abs(sum(plan.itemCents) - (weight * rule.percentOff) / 100)).to.be.at.most(order.items.length * 0.5 + 1e-6);
      plan.itemCents.forEach((c, i) =>
        expect(c).to.equal(Math.min(order.items[i]!.sellingLineCents, percentOf(plan.getTaken[i]! * price(i), rule.percentOff))),
      );

      const evaluation = evaluate(campaign, raw);
      if (ref.repeats === 0) expect(evaluation).to.deep.equal({ applicable: false, reason: 'selection', message: M.SELECTION_FAILED });
      else {
        applied++;
        expect(evaluation.applicable && evaluation.result.totalDiscountCents).to.equal(result.totalDiscountCents);
      }
    });
    expect(applied, 'most cases form a set').to.be.above(500);
  });

  it('when a buy X get Y is cashback, then the amount is reported as cashback and nothing comes off the order', () => {
    const rule: BuyXGetY = { buyQuantity: 2, buySelector: null, getQuantity: 1, getSelector: null, percentOff: 100, maxRepeats: 1 };
    const order = parsed(rawOrder([{ price: 10, qty: 3, sku: 'A' }]));
    const result = compute(promo({ type: 'buy_x_get_y', kind: 'cashback', buyXGetY: rule }), order);
    expect(result).to.deep.equal({ totalDiscountCents: 0, totalCashbackCents: 1000, totalAmountCents: 3000, itemDiscountCents: [0] });
  });

  it('when quantities are a million, then units are counted, not listed', () => {
    const rule: BuyXGetY = { buyQuantity: 2, buySelector: null, getQuantity: 1, getSelector: null, percentOff: 100, maxRepeats: 1_000_000 };
    const order = parsed(rawOrder([{ price: 1, qty: 1_000_000, sku: 'A' }]));
    const started = Date.now();
    const result = compute(promo({ type: 'buy_x_get_y', buyXGetY: rule }), order);
    expect(result.totalDiscountCents).to.equal(333_333 * 100);
    expect(Date.now() - started).to.be.below(500);
  });
});

describe('promotion kinds: bundles against a unit-by-unit reference', () => {
  it('when any small cart meets a bundle, then the sets and every item amount match the reference', () => {
    let applied = 0;
    forEachCase(1500, 'bundle', (rng) => {
      const bundle: Bundle = {
        components: Array.from({ length: rng.int(1, 3) }, () => ({ selector: randomSelector(rng), quantity: rng.int(1, 2) })),
        priceCents: rng.int(0, 3000),
        maxRepeats: rng.int(1, 3),
      };
      const maxCents = randomCap(rng);
      const campaign = promo({ type: 'bundle', bundle, maxCents });
      const raw = rawOrder(randomItems(rng));
      const order = parsed(raw);
      const plan = planBundle(bundle, campaign, order.items);
      const ref = referenceBundle(bundle, order);
      expect(plan.sets, 'sets').to.equal(ref.sets);
      expect(plan.sets).to.be.at.most(bundle.maxRepeats);
      expect(plan.itemCents, 'per item').to.deep.equal(ref.itemCents);
      bundle.components.forEach((c, k) => expect(sum(plan.taken[k]!), `component ${k}'s units`).to.equal(plan.sets * c.quantity));
      order.items.forEach((item, i) =>
        expect(sum(plan.taken.map((t) => t[i]!)), `item ${i}: units used once`).to.be.at.most(Math.floor(item.quantity)),
      );
      expectItemLevel(compute(campaign, order), order, plan.itemCents, maxCents);
      if (plan.sets > 0) applied++;
      else
        expect(evaluate(campaign, raw)).to.deep.equal({
          applicable: false,
          reason: 'selection',
          message: M.SELECTION_FAILED,
        });
    });
    expect(applied, 'many cases form a set').to.be.above(300);
  });

  it('when the bundle could fill a million sets, then they are counted in runs', () => {
    const bundle: Bundle = {
      components: [
        { selector: skus('A'), quantity: 1 },
        { selector: skus('B'), quantity: 2 },
      ],
      priceCents: 250,
      maxRepeats: 1_000_000,
    };
    const order = parsed(
      rawOrder([
        { price: 1, qty: 600_000, sku: 'A' },
        { price: 1.5, qty: 500_000, sku: 'A' },
        { price: 1, qty: 2_000_000, sku: 'B' },
      ]),
    );
    const started = Date.now();
    const plan = planBundle(bundle, promo({ type: 'bundle', bundle }), order.items);
    expect(plan.sets).to.equal(1_000_000);
    // 600 000 sets at 1 + 2 - 2.50 = 0.50 off, 400 000 at 1.50 + 2 - 2.50 = 1.00 off.
    expect(sum(plan.itemCents)).to.equal(600_000 * 50 + 400_000 * 100);
    expect(Date.now() - started).to.be.below(500);
  });
});

describe('promotion kinds: tiered, free shipping, free gift', () => {
  const BASES: DiscountBase[] = [
    'selling_price_subtotal',
    'original_price_subtotal',
    'shipping',
    'selected_items_selling_price_subtotal',
    'valid_cart_selling_price_subtotal',
  ];

  it('when a tiered discount reaches a tier, then it is that tier as a percentage or flat discount on the same base', () => {
    forEachCase(1500, 'tiered', (rng) => {
      const valueType = rng.chance(0.5) ? 'percentage' : 'flat';
      const froms = [...new Set(Array.from({ length: rng.int(1, 4) }, () => rng.int(0, 8000)))].sort((a, b) => a - b);
      const tiered: Tiered = {
        valueType,
        tiers: froms.map((fromCents) => ({ fromCents, value: valueType === 'percentage' ? rng.int(1, 100) : rng.int(1, 5000) })),
      };
      const base = rng.pick(BASES);
      const over: Partial<Campaign> = {
        discountCalculatedOn: base,
        itemSelector: base.startsWith('selected_items_') ? randomSelector(rng) : null,
      };
      const maxCents = randomCap(rng);
      const campaign = promo({ type: 'tiered', tiered, maxCents }, over);
      const raw = rawOrder(randomItems(rng), rng.chance(0.5) ? rng.int(0, 9000) / 100 : undefined);
      const order = parsed(raw);
      const selected = selectionOf(campaign, order);
      const reference = (value: number) => computeDiscount(promo({ type: valueType, value, maxCents }, over), order, selected);
      const result = computeDiscount(campaign, order, selected);
      // The base, as percentage and flat compute it: a 100% discount without a cap is the base.
      const baseCents = computeDiscount(promo({ type: 'percentage', value: 100 }, over), order, selected).totalDiscountCents;
      const tier = [...tiered.tiers].reverse().find((t) => t.fromCents <= baseCents);
      if (!tier) {
        expect(result.totalDiscountCents).to.equal(0);
        const evaluation = evaluate(campaign, raw);
        // No item selected: the selection step refuses first.
        const unselected = base.startsWith('selected_items_') && !selected.some(Boolean);
        expect(evaluation).to.deep.equal(
          unselected
            ? { applicable: false, reason: 'selection', message: M.SELECTION_FAILED }
            : {
                applicable: false,
                reason: 'cart_rule',
                message: `${base} should be greater than or equal to ${(froms[0]! / 100).toFixed(2)}`,
              },
        );
        return;
      }
      expect(result).to.deep.equal(reference(tier.value));
      expect(result.totalDiscountCents).to.be.at.most(baseCents);
      if (maxCents !== null) expect(result.totalDiscountCents).to.be.at.most(maxCents);
      if (result.itemDiscountCents.every((d) => d !== null))
        expect(sum(result.itemDiscountCents as number[])).to.equal(result.totalDiscountCents);
    });
  });

  it('when free shipping applies, then the whole shipping sent is the discount, capped, and no item carries it', () => {
    forEachCase(300, 'free-shipping', (rng) => {
      const shipping = rng.chance(0.8) ? rng.int(0, 9000) / 100 : undefined;
      const maxCents = randomCap(rng);
      const order = parsed(rawOrder(randomItems(rng), shipping));
      const result = compute(promo({ type: 'free_shipping', maxCents }, { discountCalculatedOn: 'shipping' }), order);
      const sent = Math.round((shipping ?? 0) * 100);
      expect(result.totalDiscountCents).to.equal(maxCents === null ? sent : Math.min(sent, maxCents));
      expect(result.itemDiscountCents.every((d) => d === null)).to.equal(true);
      expect(result.freeGifts).to.equal(undefined);
    });
  });
});

describe('promotion kinds: worked examples', () => {
  const shirts = [
    { price: 30, qty: 1, sku: 'SHIRT' },
    { price: 10, qty: 1, sku: 'SHIRT' },
    { price: 20, qty: 1, sku: 'SHIRT' },
  ];

  it('when 3 shirts meet "3 for 2", then the cheapest is free', () => {
    const threeForTwo = promo({
      type: 'buy_x_get_y',
      buyXGetY: { buyQuantity: 2, buySelector: skus('SHIRT'), getQuantity: 1, getSelector: null, percentOff: 100, maxRepeats: 5 },
    });
    const result = compute(threeForTwo, parsed(rawOrder(shirts)));
    expect(result).to.deep.equal({
      totalDiscountCents: 1000,
      totalCashbackCents: 0,
      totalAmountCents: 5000,
      itemDiscountCents: [0, 1000, 0],
    });
    // Five shirts: one set (the cheapest free); six: two sets, the two cheapest free.
    const six = [...shirts, { price: 5, qty: 2, sku: 'SHIRT' }, { price: 40, qty: 1, sku: 'SHIRT' }];
    expect(compute(threeForTwo, parsed(rawOrder(six))).itemDiscountCents).to.deep.equal([0, 0, 0, 1000, 0]);
    expect(compute(threeForTwo, parsed(rawOrder(six.slice(0, 4)))).itemDiscountCents).to.deep.equal([0, 0, 0, 500]);
  });

  it('when a phone and two cases meet "buy a phone, get a case free", then one case is free and the phone pays in full', () => {
    const phoneCase = promo({
      type: 'buy_x_get_y',
      buyXGetY: { buyQuantity: 1, buySelector: skus('PHONE'), getQuantity: 1, getSelector: skus('CASE'), percentOff: 100, maxRepeats: 1 },
    });
    const cart = [
      { price: 499, qty: 1, sku: 'PHONE' },
      { price: 25, qty: 2, sku: 'CASE' },
    ];
    expect(compute(phoneCase, parsed(rawOrder(cart))).itemDiscountCents).to.deep.equal([0, 2500]);
    expect(evaluate(phoneCase, rawOrder(cart.slice(1)))).to.deep.equal({
      applicable: false,
      reason: 'selection',
      message: M.SELECTION_FAILED,
    });
  });

  it('when a cart meets "spend 100 save 10, spend 200 save 25", then the highest tier reached applies', () => {
    const tiers = promo({
      type: 'tiered',
      tiered: {
        valueType: 'flat',
        tiers: [
          { fromCents: 10000, value: 1000 },
          { fromCents: 20000, value: 2500 },
        ],
      },
    });
    const at = (price: number) => evaluate(tiers, rawOrder([{ price, qty: 1, sku: 'A' }]));
    expect(at(150)).to.deep.include({ applicable: true });
    expect((at(150) as Extract<Evaluation, { applicable: true }>).result.totalDiscountCents).to.equal(1000);
    expect((at(200) as Extract<Evaluation, { applicable: true }>).result.totalDiscountCents).to.equal(2500);
    expect((at(999) as Extract<Evaluation, { applicable: true }>).result.totalDiscountCents).to.equal(2500);
    expect(at(99.99)).to.deep.equal({
      applicable: false,
      reason: 'cart_rule',
      message: 'selling_price_subtotal should be greater than or equal to 100.00',
    });
  });

  it('when a burger, fries and a drink make a 10.00 menu, then the 3.00 saved is spread over them by price', () => {
    const menu = promo({
      type: 'bundle',
      bundle: {
        components: [
          { selector: skus('BURGER'), quantity: 1 },
          { selector: skus('FRIES'), quantity: 1 },
          { selector: skus('DRINK'), quantity: 1 },
        ],
        priceCents: 1000,
        maxRepeats: 2,
      },
    });
    const cart = [
      { price: 8, qty: 1, sku: 'BURGER' },
      { price: 3, qty: 1, sku: 'FRIES' },
      { price: 2, qty: 2, sku: 'DRINK' },
    ];
    // 300 over 800 / 300 / 200: 184.6 / 69.2 / 46.2 → 185 / 69 / 46.
    expect(compute(menu, parsed(rawOrder(cart))).itemDiscountCents).to.deep.equal([185, 69, 46]);
    expect(evaluate(menu, rawOrder(cart.slice(0, 2)))).to.deep.equal({
      applicable: false,
      reason: 'selection',
      message: M.SELECTION_FAILED,
    });
  });

  it('when free shipping meets a 49.99 shipping, then 49.99 comes off and the items keep their price', () => {
    const free = promo({ type: 'free_shipping' }, { discountCalculatedOn: 'shipping' });
    const result = compute(free, parsed(rawOrder([{ price: 20, qty: 1, sku: 'A' }], 49.99)));
    expect(result).to.deep.equal({ totalDiscountCents: 4999, totalCashbackCents: 0, totalAmountCents: 0, itemDiscountCents: [null] });
    expect(compute(free, parsed(rawOrder([{ price: 20, qty: 1, sku: 'A' }]))).totalDiscountCents).to.equal(0);
  });

  it('when a free gift applies, then no money comes off and the gift is named with its quantity', () => {
    const gift = promo({
      type: 'free_gift',
      gift: { productId: 'tote-1', sku: 'TOTE', name: 'Tote bag', quantity: 2, valueCents: 1500, maxGifts: null },
    });
    const result = compute(gift, parsed(rawOrder([{ price: 20, qty: 1, sku: 'A' }])));
    expect(result).to.deep.equal({
      totalDiscountCents: 0,
      totalCashbackCents: 0,
      totalAmountCents: 2000,
      itemDiscountCents: [null],
      freeGifts: [{ productId: 'tote-1', sku: 'TOTE', name: 'Tote bag', quantity: 2, valueCents: 1500 }],
    });
  });

  it('when a bundle discount passes maxCents, then the cap is re-spread over the items that carried it', () => {
    const capped = promo({
      type: 'bundle',
      maxCents: 100,
      bundle: {
        components: [
          { selector: skus('A'), quantity: 1 },
          { selector: skus('B'), quantity: 1 },
        ],
        priceCents: 0,
        maxRepeats: 1,
      },
    });
    // Uncapped: 300 and 100 (both free); the 100 cap by 3:1 → 75 / 25; the third item carried nothing.
    const result = compute(
      capped,
      parsed(
        rawOrder([
          { price: 3, qty: 1, sku: 'A' },
          { price: 1, qty: 1, sku: 'B' },
          { price: 1, qty: 1, sku: 'C' },
        ]),
      ),
    );
    expect(result.itemDiscountCents).to.deep.equal([75, 25, 0]);
  });
});

describe('promotion kinds: the engine step and its texts', () => {
  const bxgy = promo({
    type: 'buy_x_get_y',
    buyXGetY: { buyQuantity: 1, buySelector: skus('PHONE'), getQuantity: 1, getSelector: skus('CASE'), percentOff: 50, maxRepeats: 1 },
  });
  const cart = rawOrder([
    { price: 499, qty: 1, sku: 'PHONE' },
    { price: 25, qty: 1, sku: 'CASE' },
  ]);

  it('when a product validation fails too, then it refuses first: the promotion step comes after it', () => {
    const campaign = { ...bxgy, productValidations: [{ field: 'selling_price', operator: 'lt' as const, value: 100 }] };
    expect(evaluate(campaign, rawOrder([{ price: 499, qty: 1, sku: 'PHONE' }]))).to.deep.equal({
      applicable: false,
      reason: 'product_rule',
      message: 'selling_price should be less than 1.00',
    });
  });

  it('when a buy X get Y forms a set, then explain shows the repetitions, the units found and which items got what, before the discount', () => {
    const { evaluation, checks } = explainCoupon({
      now: NOW,
      timezone: TZ,
      campaign: bxgy,
      usage: noUsage,
      customerKnown: true,
      order: cart,
    });
    expect(evaluation.applicable).to.equal(true);
    const rules = checks.map((c) => c.rule);
    expect(rules.slice(-2)).to.deep.equal(['promotion', 'discount']);
    expect(checks.at(-2)).to.deep.equal({
      rule: 'promotion',
      passed: true,
      text: 'buy 1 get 1 at 50% off: 1 time(s)',
      figures: {
        buy_quantity: 1,
        get_quantity: 1,
        percent_off: 50,
        max_repeats: 1,
        repeats: 1,
        buy_units: 1,
        get_units: 1,
        both_units: 0,
        bought_units: [1, 0],
        reduced_units: [0, 1],
        item_discount_cents: [0, 1250],
      },
    });
    expect(checks.at(-1)!.figures).to.deep.include({ type: 'buy_x_get_y', discount_cents: 1250, item_discount_cents: [0, 1250] });
  });

  it('when a buy X get Y forms no set, then explain fails its promotion row with the tray message and validate refuses alike', () => {
    const phoneOnly = rawOrder([{ price: 499, qty: 1, sku: 'PHONE' }]);
    const { evaluation, checks } = explainCoupon({
      now: NOW,
      timezone: TZ,
      campaign: bxgy,
      usage: noUsage,
      customerKnown: true,
      order: phoneOnly,
    });
    expect(evaluation).to.deep.equal(evaluate(bxgy, phoneOnly));
    expect(evaluation).to.deep.equal({ applicable: false, reason: 'selection', message: M.SELECTION_FAILED });
    expect(checks.at(-1)).to.deep.include({ rule: 'promotion', passed: false, text: M.SELECTION_FAILED });
  });

  it('when a tiered discount on the selected items is below its first tier, then the condition text names that base', () => {
    const tiered = promo(
      { type: 'tiered', tiered: { valueType: 'percentage', tiers: [{ fromCents: 5000, value: 10 }] } },
      { discountCalculatedOn: 'selected_items_selling_price_subtotal', itemSelector: skus('CASE') },
    );
    const { evaluation, checks } = explainCoupon({
      now: NOW,
      timezone: TZ,
      campaign: tiered,
      usage: noUsage,
      customerKnown: true,
      order: cart,
    });
    const message = 'selected_items_selling_price_subtotal should be greater than or equal to 50.00';
    expect(evaluation).to.deep.equal({ applicable: false, reason: 'cart_rule', message });
    expect(checks.at(-1)).to.deep.equal({
      rule: 'promotion',
      passed: false,
      text: message,
      figures: {
        base: 'selected_items_selling_price_subtotal',
        base_cents: 2500,
        value_type: 'percentage',
        first_tier_cents: 5000,
        tier_from_cents: null,
        tier_value: null,
      },
    });
  });

  it('when a free gift applies, then explain names the gift and the discount row lists it', () => {
    const gift = promo({
      type: 'free_gift',
      gift: { productId: 'g1', sku: null, name: 'Mug', quantity: 1, valueCents: 500, maxGifts: null },
    });
    const { checks } = explainCoupon({ now: NOW, timezone: TZ, campaign: gift, usage: noUsage, customerKnown: true, order: cart });
    expect(checks.at(-2)).to.deep.equal({
      rule: 'promotion',
      passed: true,
      text: 'gift: 1 × Mug',
      figures: { product_id: 'g1', sku: null, name: 'Mug', quantity: 1, value_cents: 500 },
    });
    expect(checks.at(-1)!.figures.free_gifts).to.deep.equal([{ productId: 'g1', sku: null, name: 'Mug', quantity: 1, valueCents: 500 }]);
  });

  it('when the campaign preview lists the texts, then each kind with a condition adds its own', () => {
    const tail = (c: Campaign) => campaignRuleTexts(c).slice(1);
    expect(tail(bxgy)).to.deep.equal([{ rule: 'discount.buy, discount.get', text: M.SELECTION_FAILED }]);
    const bundle = promo({ type: 'bundle', bundle: { components: [{ selector: skus('A'), quantity: 1 }], priceCents: 0, maxRepeats: 1 } });
    expect(tail(bundle)).to.deep.equal([{ rule: 'discount.bundle', text: M.SELECTION_FAILED }]);
    const tiered = promo({
      type: 'tiered',
      tiered: {
        valueType: 'flat',
        tiers: [
          { fromCents: 20000, value: 2500 },
          { fromCents: 10000, value: 1000 },
        ],
      },
    });
    expect(tail(tiered)).to.deep.equal([
      { rule: 'discount.tiers', text: 'selling_price_subtotal should be greater than or equal to 100.00' },
    ]);
    expect(tail(promo({ type: 'free_shipping' }, { discountCalculatedOn: 'shipping' }))).to.deep.equal([]);
  });
});

describe('promotion kinds: stacking', () => {
  const stack = (order: unknown, campaigns: Campaign[]) =>
    stackCoupons({
      now: NOW,
      timezone: TZ,
      customerKnown: true,
      order,
      candidates: campaigns.map((campaign) => ({ campaign, usage: noUsage })),
    });
  const withId = (id: string, c: Campaign, priority = 0): Campaign => ({ ...c, id, code: id, stacking: { ...c.stacking, priority } });

  it('when free shipping, a free gift and a 3-for-2 stack after 10% off, then each lowers its own part and the gift survives', () => {
    const cart = rawOrder(
      [
        { price: 10, qty: 3, sku: 'SHIRT' },
        { price: 50, qty: 1, sku: 'SHOE' },
      ],
      5,
    );
    const r = stack(cart, [
      withId('pct', makeCampaign({ discountCalculatedOn: 'valid_cart_selling_price_subtotal' }), 3),
      withId(
        'bxgy',
        promo({
          type: 'buy_x_get_y',
          buyXGetY: { buyQuantity: 2, buySelector: skus('SHIRT'), getQuantity: 1, getSelector: null, percentOff: 100, maxRepeats: 1 },
        }),
        2,
      ),
      withId('ship', promo({ type: 'free_shipping' }, { discountCalculatedOn: 'shipping' })),
      withId(
        'gift',
        promo({ type: 'free_gift', gift: { productId: 'g', sku: 'G', name: 'Gift', quantity: 1, valueCents: 0, maxGifts: null } }),
      ),
    ]);
    // 10% of 80 = 3 / 5 off the lines; the shirts' unit is then 9, one free; shipping 5 whole.
    expect(r.coupons.map((c) => [c.discountCents, c.itemDiscountCents, c.shippingDiscountCents])).to.deep.equal([
      [800, [300, 500], 0],
      [900, [900, 0], 0],
      [500, [0, 0], 500],
      [0, [0, 0], 0],
    ]);
    expect(r.coupons[3]!.freeGifts).to.deep.equal([{ productId: 'g', sku: 'G', name: 'Gift', quantity: 1, valueCents: 0 }]);
    expect(r.coupons.slice(0, 3).every((c) => c.freeGifts === undefined)).to.equal(true);
    expect(r.totalDiscountCents).to.equal(2200);
  });

  it('when random promotion kinds stack on random carts, then the amounts add up and nothing goes below zero', () => {
    forEachCase(800, 'kinds-stack', (rng) => {
      const raw = rawOrder(randomItems(rng), rng.chance(0.5) ? rng.int(0, 5000) / 100 : undefined);
      const campaigns = Array.from({ length: rng.int(1, 4) }, (_, k) => withId(`k${k}`, randomKind(rng), rng.int(0, 2)));
      const r = stack(raw, campaigns);
      const order = parsed(raw);
      expect(sum(r.itemDiscountCents) + r.shippingDiscountCents).to.equal(r.totalDiscountCents);
      expect(r.shippingDiscountCents).to.be.at.most(order.shippingCents ?? 0);
      if (r.order) order.items.forEach((item, i) => expect(item.sellingLineCents - r.itemDiscountCents[i]!).to.be.at.least(0));
      for (const c of r.coupons) {
        expect(sum(c.itemDiscountCents) + c.shippingDiscountCents).to.equal(c.discountCents);
        const own = campaigns[c.candidate]!.discount;
        if (own.maxCents) expect(c.discountCents + c.cashbackCents).to.be.at.most(own.maxCents);
        if (own.type === 'free_shipping') expect(sum(c.itemDiscountCents)).to.equal(0);
        if (own.type === 'free_gift') expect(c.discountCents).to.equal(0);
        expect(c.freeGifts !== undefined).to.equal(own.type === 'free_gift' && c.position !== null);
      }
    });
  });

  function randomKind(rng: Rng): Campaign {
    const maxCents = randomCap(rng);
    const kind = rng.chance(0.15) ? ('cashback' as const) : ('discount' as const);
    switch (rng.int(0, 4)) {
      case 0:
        return promo({
          type: 'buy_x_get_y',
          kind,
          maxCents,
          buyXGetY: {
            buyQuantity: rng.int(1, 2),
            buySelector: null,
            getQuantity: 1,
            getSelector: randomSelector(rng),
            percentOff: rng.int(1, 100),
            maxRepeats: 2,
          },
        });
      case 1:
        return promo({
          type: 'bundle',
          kind,
          maxCents,
          bundle: {
            components: [
              { selector: randomSelector(rng), quantity: 1 },
              { selector: randomSelector(rng), quantity: 1 },
            ],
            priceCents: rng.int(0, 2000),
            maxRepeats: 2,
          },
        });
      case 2:
        return promo({
          type: 'tiered',
          kind,
          maxCents,
          tiered: {
            valueType: 'percentage',
            tiers: [
              { fromCents: 0, value: 5 },
              { fromCents: 3000, value: 15 },
            ],
          },
        });
      case 3:
        return promo({ type: 'free_shipping', maxCents }, { discountCalculatedOn: 'shipping' });
      default:
        return promo({
          type: 'free_gift',
          gift: { productId: 'g', sku: null, name: 'Gift', quantity: 1, valueCents: 100, maxGifts: null },
        });
    }
  }
});
