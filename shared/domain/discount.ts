/**
 * The amounts of a coupon the rules found applicable (shared/domain/engine.ts): the base, the
 * discount or cashback on it, and each item's share. Pure; money in integer cents.
 */
import { percentOf, roundHalfAway, spreadLargestRemainder } from './money.js';
import type { ParsedItem, ParsedOrder } from './order.js';
import { matchesSelector, sum } from './order-fields.js';
import { capItemCents, planBundle, planBuyXGetY, tierAmount, tierReached, type FreeGiftLine } from './promotion-kinds.js';
import type { Campaign, DiscountBase, FreeGift } from './types.js';

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
  /** The gifts a `free_gift` promotion gives (one entry, its quantity); absent for every other kind. */
  freeGifts?: FreeGiftLine[];
}

export type { FreeGiftLine } from './promotion-kinds.js';

export const isSelectedItemsBase = (base: DiscountBase): boolean => base.startsWith('selected_items_');
const isValidCartBase = (base: DiscountBase): boolean => base.startsWith('valid_cart_');

/**
 * Items a discount is spread over, or null when the base is not item-level: the selected items
 * for `selected_items_*`, the items not matching `excludedItems` for `valid_cart_*`.
 */
export function eligibleItems(
  campaign: Pick<Campaign, 'discountCalculatedOn' | 'excludedItems' | 'metadataKeys'>,
  order: ParsedOrder,
  selected: readonly boolean[],
): boolean[] | null {
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
export function baseCents(
  campaign: Pick<Campaign, 'discountCalculatedOn'>,
  order: ParsedOrder,
  eligible: readonly boolean[] | null,
): number {
  const base = campaign.discountCalculatedOn;
  if (eligible) return sum(order.items.map((item, i) => (eligible[i] ? lineOnBase(base, item) : 0)));
  if (base === 'shipping') return order.shippingCents ?? 0;
  if (base === 'original_price_subtotal') return order.originalSubtotalCents;
  return order.sellingSubtotalCents;
}

/** The amount before the cap: percentage or flat of the base, or the tier it reaches (0 below every tier). */
function uncappedAmount(campaign: Campaign, base: number): number {
  const d = campaign.discount;
  if (d.type === 'tiered') {
    const tier = d.tiered ? tierReached(d.tiered, base) : null;
    return tier ? tierAmount(d.tiered!, tier, base) : 0;
  }
  if (d.type === 'free_shipping') return base;
  return d.type === 'percentage' ? percentOf(base, d.value) : roundHalfAway(d.value);
}

/** Percentage, flat or tiered, capped at `maxCents`, never negative, never above the base (docs/decisions.md#4). */
function discountAmount(campaign: Campaign, base: number): number {
  const d = campaign.discount;
  let amount = uncappedAmount(campaign, base);
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
 *
 * The promotion kinds (docs/campaigns.md "Promotion kinds"; shared/domain/promotion-kinds.ts):
 * `tiered` is the tier the base reaches, as a percentage or flat amount on that same base (0
 * below every tier); `buy_x_get_y` and `bundle` give per-item amounts on the items' selling lines,
 * capped at `maxCents` by re-spreading over the items that carried them; `free_shipping` is the
 * whole shipping sent; `free_gift` is no money and names the gift in `freeGifts`.
 */
export function computeDiscount(campaign: Campaign, order: ParsedOrder, selected: readonly boolean[]): DiscountResult {
  const d = campaign.discount;
  switch (d.type) {
    case 'buy_x_get_y':
      return itemLevelResult(campaign, order, d.buyXGetY ? planBuyXGetY(d.buyXGetY, campaign, order.items).itemCents : null);
    case 'bundle':
      return itemLevelResult(campaign, order, d.bundle ? planBundle(d.bundle, campaign, order.items).itemCents : null);
    case 'free_gift':
      return giftResult(campaign, order);
    case 'free_shipping':
      return shippingResult(campaign, order);
    default:
      return baseResult(campaign, order, selected);
  }
}

/** Percentage, flat and tiered: an amount on the base (see {@link computeDiscount}). */
function baseResult(campaign: Campaign, order: ParsedOrder, selected: readonly boolean[]): DiscountResult {
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

/** The result of per-item amounts (buy X get Y, bundle; null: not configured, nothing): capped at `maxCents`, summed. */
function itemLevelResult(campaign: Campaign, order: ParsedOrder, itemCents: number[] | null): DiscountResult {
  const items = capItemCents(itemCents ?? order.items.map(() => 0), campaign.discount.maxCents);
  const cashback = campaign.discount.kind === 'cashback';
  const amount = sum(items);
  const totalDiscountCents = cashback ? 0 : amount;
  return {
    totalDiscountCents,
    totalCashbackCents: cashback ? amount : 0,
    totalAmountCents: Math.max(0, order.sellingSubtotalCents - totalDiscountCents),
    itemDiscountCents: cashback ? items.map(() => 0) : items,
  };
}

/** Free shipping: the whole shipping sent (0 when none), capped at `maxCents`; not item-level. */
function shippingResult(campaign: Campaign, order: ParsedOrder): DiscountResult {
  const amount = discountAmount(campaign, order.shippingCents ?? 0);
  const cashback = campaign.discount.kind === 'cashback';
  const totalDiscountCents = cashback ? 0 : amount;
  return {
    totalDiscountCents,
    totalCashbackCents: cashback ? amount : 0,
    totalAmountCents: Math.max(0, order.sellingSubtotalCents - totalDiscountCents),
    itemDiscountCents: order.items.map(() => null),
  };
}

/** A free gift: no money off; the answer names the gift (none when the campaign has no gift configured). */
function giftResult(campaign: Campaign, order: ParsedOrder): DiscountResult {
  const gift = campaign.discount.gift;
  return {
    totalDiscountCents: 0,
    totalCashbackCents: 0,
    totalAmountCents: order.sellingSubtotalCents,
    itemDiscountCents: order.items.map(() => null),
    freeGifts: gift ? [giftLine(gift)] : [],
  };
}

/** The gift as the answer names it: one entry with the quantity one redemption gives. */
export const giftLine = (gift: FreeGift): FreeGiftLine => ({
  productId: gift.productId,
  sku: gift.sku,
  name: gift.name,
  quantity: gift.quantity,
  valueCents: gift.valueCents,
});
