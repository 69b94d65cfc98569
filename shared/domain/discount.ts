/**
 * The amounts of a coupon the rules found applicable (shared/domain/engine.ts): the base, the
 * discount or cashback on it, and each item's share. Pure; money in integer cents.
 */
import { percentOf, roundHalfAway, spreadLargestRemainder } from './money.js';
import type { ParsedItem, ParsedOrder } from './order.js';
import { matchesSelector, sum } from './order-fields.js';
import type { Campaign, DiscountBase } from './types.js';

/** The amounts of an applicable coupon, in cents. */
export interface DiscountResult {
  /** What the order pays less; 0 for cashback coupons (docs/decisions.md#20c). */
  totalDiscountCents: number;
  /** What a cashback coupon promises; 0 for discount coupons. */
  totalCashbackCents: number;
  /** `max(0, selling subtotal - total discount)`; 0 when no order was sent. */
  totalAmountCents: number;
  /**
   * Per parsed item (same index), summing exactly to `totalDiscountCents`; null for every item
   * when the discount is not item-level (whole-cart and shipping bases). Empty without an order.
   */
  itemDiscountCents: (number | null)[];
}

export const isSelectedItemsBase = (base: DiscountBase): boolean => base.startsWith('selected_items_');
const isValidCartBase = (base: DiscountBase): boolean => base.startsWith('valid_cart_');

/**
 * Items a discount is spread over, or null when the base is not item-level: the selected items
 * for `selected_items_*`, the items not matching `excludedItems` for `valid_cart_*`.
 */
export function eligibleItems(campaign: Campaign, order: ParsedOrder, selected: readonly boolean[]): boolean[] | null {
  const base = campaign.discountCalculatedOn;
  if (isSelectedItemsBase(base)) return [...selected];
  if (!isValidCartBase(base)) return null;
  const excluded = campaign.excludedItems;
  return order.items.map((item) => !excluded || !matchesSelector(item, campaign, excluded));
}

/** Line cents of one item on the base's price (original or selling). */
const lineOnBase = (base: DiscountBase, item: ParsedItem): number =>
  base.endsWith('original_price_subtotal') ? item.originalLineCents : item.sellingLineCents;

/** The amount, in cents, the discount is computed on. */
export function baseCents(campaign: Campaign, order: ParsedOrder, eligible: readonly boolean[] | null): number {
  const base = campaign.discountCalculatedOn;
  if (eligible) return sum(order.items.map((item, i) => (eligible[i] ? lineOnBase(base, item) : 0)));
  if (base === 'shipping') return order.shippingCents ?? 0;
  if (base === 'original_price_subtotal') return order.originalSubtotalCents;
  return order.sellingSubtotalCents;
}

/** Percentage or flat, capped at `maxCents`, never negative, never above the base (docs/decisions.md#4). */
function discountAmount(campaign: Campaign, base: number): number {
  const d = campaign.discount;
  let amount = d.type === 'percentage' ? percentOf(base, d.value) : roundHalfAway(d.value);
  if (d.maxCents !== null && d.maxCents !== undefined) amount = Math.min(amount, d.maxCents);
  // NaN from a broken configuration gives nothing rather than NaN in a response.
  return Number.isNaN(amount) ? 0 : Math.max(0, Math.min(amount, base));
}

/** The total spread over eligible items by their value on the base; others carry 0. */
function spreadOverItems(campaign: Campaign, order: ParsedOrder, eligible: readonly boolean[], totalCents: number): number[] {
  const base = campaign.discountCalculatedOn;
  const indexes = order.items.map((_, i) => i).filter((i) => eligible[i]);
  const parts = spreadLargestRemainder(
    totalCents,
    indexes.map((i) => lineOnBase(base, order.items[i]!)),
  );
  const out = order.items.map(() => 0);
  indexes.forEach((itemIndex, k) => (out[itemIndex] = parts[k]!));
  return out;
}

/**
 * The base by `discountCalculatedOn`: the order's selling or original subtotal; its shipping (0
 * when not sent); the selected items' lines (price × quantity) on the selling or original price;
 * or the valid cart — every item not matching `excludedItems`. Percentage or flat, capped at
 * `maxCents`, never above the base. A cashback coupon reports the amount as cashback and a total
 * discount of 0 (docs/decisions.md#20c). Item-level bases spread the total discount over the
 * eligible items by largest remainder, weighted by their lines on the base's price; other items
 * get 0.
 */
export function computeDiscount(campaign: Campaign, order: ParsedOrder, selected: readonly boolean[]): DiscountResult {
  const eligible = eligibleItems(campaign, order, selected);
  const amount = discountAmount(campaign, baseCents(campaign, order, eligible));
  const cashback = campaign.discount.kind === 'cashback';
  const totalDiscountCents = cashback ? 0 : amount;
  return {
    totalDiscountCents,
    totalCashbackCents: cashback ? amount : 0,
    totalAmountCents: Math.max(0, order.sellingSubtotalCents - totalDiscountCents),
    itemDiscountCents: eligible ? spreadOverItems(campaign, order, eligible, totalDiscountCents) : order.items.map(() => null),
  };
}
