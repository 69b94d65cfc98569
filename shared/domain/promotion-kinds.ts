/**
 * The promotion kinds' own arithmetic (docs/campaigns.md "Promotion kinds"): buy X get Y, bundles,
 * tiers, and the cap shared by every item-level kind. Pure; money in integer cents.
 *
 * Units are counted, never listed one by one: an item's `quantity` can be 10^6. An item has
 * `floor(quantity)` whole units (0.5 kg is no unit), each at its unit price — the item's selling
 * line ÷ its quantity, so a stacked coupon prices units on what earlier coupons left of the line.
 * "Cheapest first" orders units by unit price, ties by item order.
 */
import { percentOf, roundHalfAway, spreadLargestRemainder } from './money.js';
import type { ParsedItem } from './order.js';
import { matchesSelector, sum } from './order-fields.js';
import type { Bundle, BuyXGetY, Campaign, ItemSelector, Tier, Tiered } from './types.js';

/** A gift the answer names so the storefront adds it to the cart. */
export interface FreeGiftLine {
  productId: string;
  sku: string | null;
  name: string;
  /** How many units one redemption gives. */
  quantity: number;
  /** What one unit is worth, in cents (0 when not set). */
  valueCents: number;
}

/** Whole units of an item. */
const unitsOf = (item: ParsedItem): number => Math.max(0, Math.floor(item.quantity));

/** What `units` units of an item cost on its selling line (exactly the line when every unit is counted). */
const unitsValue = (item: ParsedItem, units: number): number =>
  units === item.quantity ? item.sellingLineCents : (item.sellingLineCents * units) / item.quantity;

/** A count a rule needs: a whole number ≥ 1, or null for a broken configuration (which then forms nothing). */
const count = (n: number): number | null => (Number.isSafeInteger(n) && n >= 1 ? n : null);

/** Item indexes with at least one unit, cheapest unit first, ties by item order. */
function cheapestFirst(items: readonly ParsedItem[]): number[] {
  return items
    .map((_, i) => i)
    .filter((i) => unitsOf(items[i]!) > 0)
    .sort((i, j) => unitsValue(items[i]!, 1) - unitsValue(items[j]!, 1) || i - j);
}

/** Per item, whether it matches `selector`; null selector: every item. */
const matching = (campaign: Campaign, items: readonly ParsedItem[], selector: ItemSelector | null): boolean[] =>
  items.map((item) => (selector ? matchesSelector(item, campaign, selector) : true));

/** How a buy X get Y rule applies to an order: the repetitions, the units found and taken, each item's amount. */
export interface BuyXGetYPlan {
  /** Repetitions r (0: not applicable). */
  repeats: number;
  /** Units that can count as bought (buy-only + both). */
  buyUnits: number;
  /** Units that can be had at the reduced price (get-only + both). */
  getUnits: number;
  /** Units that match both selectors. */
  bothUnits: number;
  /** Per item, units taken at the reduced price (r × getQuantity in all). */
  getTaken: number[];
  /** Per item, units counted as bought (r × buyQuantity in all). */
  buyTaken: number[];
  /** Per item, the discount in cents before `maxCents`, never above the item's selling line. */
  itemCents: number[];
}

/**
 * Buy N get M at P% off, up to K times. With B buy-only, G get-only and X both units, r is the
 * largest r ≤ K with r·N ≤ B+X, r·M ≤ G+X and r·(N+M) ≤ B+G+X: exactly when r·N bought and r·M
 * reduced units can be chosen disjointly. The r·M reduced units are the cheapest get-eligible
 * ones, taking at most X − max(0, r·N − B) from the "both" group so that enough are left to be
 * bought: under that one cap, cheapest first is the cheapest choice. Each item's amount is
 * percentOf(its taken units' value, P).
 */
export function planBuyXGetY(rule: BuyXGetY, campaign: Campaign, items: readonly ParsedItem[]): BuyXGetYPlan {
  const buys = matching(campaign, items, rule.buySelector);
  const gets = rule.getSelector ? matching(campaign, items, rule.getSelector) : buys;
  let [B, G, X] = [0, 0, 0];
  items.forEach((item, i) => {
    const units = unitsOf(item);
    if (buys[i] && gets[i]) X += units;
    else if (buys[i]) B += units;
    else if (gets[i]) G += units;
  });
  const plan: BuyXGetYPlan = {
    repeats: 0,
    buyUnits: B + X,
    getUnits: G + X,
    bothUnits: X,
    getTaken: items.map(() => 0),
    buyTaken: items.map(() => 0),
    itemCents: items.map(() => 0),
  };
  const [N, M, K] = [count(rule.buyQuantity), count(rule.getQuantity), count(rule.maxRepeats)];
  if (N === null || M === null || K === null) return plan;
  const r = Math.min(K, Math.floor((B + X) / N), Math.floor((G + X) / M), Math.floor((B + G + X) / (N + M)));
  if (r <= 0) return plan;
  plan.repeats = r;
  let need = r * M;
  let bothLeft = X - Math.max(0, r * N - B);
  for (const i of cheapestFirst(items)) {
    if (need === 0) break;
    if (!gets[i]) continue;
    const both = buys[i]!;
    const take = Math.min(need, unitsOf(items[i]!), both ? bothLeft : Infinity);
    if (take <= 0) continue;
    plan.getTaken[i] = take;
    need -= take;
    if (both) bothLeft -= take;
  }
  // The bought units: buy-only first, then what is left of the "both" group (enough by the cap above).
  let toBuy = r * N;
  for (const pass of [false, true])
    items.forEach((item, i) => {
      if (!buys[i] || gets[i] !== pass || toBuy === 0) return;
      const take = Math.min(toBuy, unitsOf(item) - plan.getTaken[i]!);
      plan.buyTaken[i] = take;
      toBuy -= take;
    });
  plan.itemCents = items.map((item, i) => {
    const taken = plan.getTaken[i]!;
    if (taken === 0) return 0;
    const amount = percentOf(unitsValue(item, taken), rule.percentOff);
    return Number.isFinite(amount) ? Math.max(0, Math.min(amount, item.sellingLineCents)) : 0;
  });
  return plan;
}

/** How a bundle applies to an order: the sets formed, the units each component took, each item's amount. */
export interface BundlePlan {
  /** Sets b (0: not applicable). */
  sets: number;
  /** Per component, per item, the units it took (b × its quantity in all). */
  taken: number[][];
  /** Per item, the discount in cents before `maxCents`. */
  itemCents: number[];
}

/** Per component, the (item, units) runs it takes for `sets` sets, cheapest first; null when they cannot be formed. */
function assignBundle(
  quantities: readonly number[],
  matches: readonly boolean[][],
  items: readonly ParsedItem[],
  order: readonly number[],
  sets: number,
): { item: number; units: number }[][] | null {
  const left = items.map(unitsOf);
  const runs: { item: number; units: number }[][] = [];
  for (let c = 0; c < quantities.length; c++) {
    let need = sets * quantities[c]!;
    const own: { item: number; units: number }[] = [];
    for (const i of order) {
      if (need === 0) break;
      if (!matches[c]![i] || left[i] === 0) continue;
      const take = Math.min(need, left[i]!);
      own.push({ item: i, units: take });
      left[i]! -= take;
      need -= take;
    }
    if (need > 0) return null;
    runs.push(own);
  }
  return runs;
}

/**
 * A bundle: components in their listed order, each taking `quantity` units of the items its
 * selector matches, cheapest first, disjoint from the units earlier components took. b is the
 * largest b ≤ maxRepeats for which that assignment succeeds (if b sets can be formed so can
 * b − 1: found by bisection). Set k takes the k-th `quantity` units of each component's cheapest-
 * first list; its discount is max(0, its units' value − priceCents), spread over its items by
 * their units' value (largest remainder).
 */
export function planBundle(bundle: Bundle, campaign: Campaign, items: readonly ParsedItem[]): BundlePlan {
  const components = bundle.components;
  const quantities = components.map((c) => count(c.quantity));
  const plan: BundlePlan = { sets: 0, taken: components.map(() => items.map(() => 0)), itemCents: items.map(() => 0) };
  const K = count(bundle.maxRepeats);
  if (components.length === 0 || K === null || quantities.some((q) => q === null)) return plan;
  const qs = quantities as number[];
  const matches = components.map((c) => matching(campaign, items, c.selector));
  const order = cheapestFirst(items);
  // No more sets than any component alone could fill.
  let hi = Math.min(K, ...qs.map((q, c) => Math.floor(sum(items.map((item, i) => (matches[c]![i] ? unitsOf(item) : 0))) / q)));
  let lo = 0;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (assignBundle(qs, matches, items, order, mid)) lo = mid;
    else hi = mid - 1;
  }
  if (lo === 0) return plan;
  const runs = assignBundle(qs, matches, items, order, lo)!;
  plan.sets = lo;
  runs.forEach((own, c) => own.forEach(({ item, units }) => (plan.taken[c]![item]! += units)));
  spreadSets(runs, qs, lo, bundle.priceCents, items, plan.itemCents);
  plan.itemCents = plan.itemCents.map((cents, i) => Math.max(0, Math.min(cents, items[i]!.sellingLineCents)));
  return plan;
}

/**
 * Adds each set's discount to `out`, per item. Consecutive sets whose units come from the same
 * items are identical, so they are counted together: the walk takes about twice as many steps as
 * there are runs, not one per set.
 */
function spreadSets(
  runs: readonly { item: number; units: number }[][],
  quantities: readonly number[],
  sets: number,
  priceCents: number,
  items: readonly ParsedItem[],
  out: number[],
): void {
  const at = runs.map(() => ({ run: 0, used: 0 }));
  for (let formed = 0; formed < sets;) {
    // How many identical sets follow: each component's current run holds that many of its quantities.
    let same = sets - formed;
    runs.forEach((own, c) => (same = Math.min(same, Math.floor((own[at[c]!.run]!.units - at[c]!.used) / quantities[c]!))));
    const batch = Math.max(1, same);
    const units = new Map<number, number>();
    runs.forEach((own, c) => {
      let need = quantities[c]!;
      while (need > 0) {
        const cursor = at[c]!;
        const run = own[cursor.run]!;
        const take = Math.min(need, run.units - cursor.used);
        units.set(run.item, (units.get(run.item) ?? 0) + take);
        need -= take;
        cursor.used += take * batch; // a batch takes its quantity from one run, `batch` times
        if (cursor.used === run.units) [cursor.run, cursor.used] = [cursor.run + 1, 0];
      }
    });
    const parts = [...units].map(([item, n]) => ({ item, value: unitsValue(items[item]!, n) }));
    const setDiscount = Math.max(0, roundHalfAway(sum(parts.map((p) => p.value)) - priceCents));
    const shares = spreadLargestRemainder(
      setDiscount,
      parts.map((p) => p.value),
    );
    parts.forEach((p, k) => (out[p.item]! += shares[k]! * batch));
    formed += batch;
  }
}

/** The highest tier the base reaches (the greatest `fromCents` ≤ base), or null below every tier. */
export function tierReached(tiered: Tiered, baseCents: number): Tier | null {
  let best: Tier | null = null;
  for (const tier of tiered.tiers) if (tier.fromCents <= baseCents && (!best || tier.fromCents > best.fromCents)) best = tier;
  return best;
}

/** The lowest tier: below it a tiered discount does not apply. */
export function firstTier(tiered: Tiered): Tier | null {
  let first: Tier | null = null;
  for (const tier of tiered.tiers) if (!first || tier.fromCents < first.fromCents) first = tier;
  return first;
}

/** A tier's amount on the base: a percentage of it, or flat cents. */
export const tierAmount = (tiered: Tiered, tier: Tier, baseCents: number): number =>
  tiered.valueType === 'percentage' ? percentOf(baseCents, tier.value) : roundHalfAway(tier.value);

/**
 * Per-item amounts capped at `maxCents` (null/undefined: no cap): when their sum is above it, the
 * cap is spread over the items that carried an amount, by that amount (largest remainder), so no
 * item gets more than it had and the parts sum exactly to the cap.
 */
export function capItemCents(itemCents: readonly number[], maxCents: number | null | undefined): number[] {
  const total = sum(itemCents);
  if (maxCents === null || maxCents === undefined || total <= maxCents) return [...itemCents];
  const carriers = itemCents.flatMap((c, i) => (c > 0 ? [i] : []));
  const parts = spreadLargestRemainder(
    Math.max(0, roundHalfAway(maxCents)),
    carriers.map((i) => itemCents[i]!),
  );
  const out = itemCents.map(() => 0);
  carriers.forEach((i, k) => (out[i] = parts[k]!));
  return out;
}
