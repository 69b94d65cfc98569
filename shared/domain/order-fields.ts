/**
 * What the rules read from a parsed order: the value of a cart-condition field, of an item field,
 * whether a field with no value fails its rule (list rule 5), which items a selector chooses, and
 * the selected-items aggregates. Money values are integer cents, as the conditions' values are.
 */
import { holds } from './conditions.js';
import { declaredMetadata } from './metadata.js';
import type { ParsedItem, ParsedOrder } from './order.js';
import type { Campaign, ItemSelector, Scalar } from './types.js';

export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** Value of a cart-condition field, or undefined when it was not sent (or is unknown). */
export function orderFieldValue(order: ParsedOrder, campaign: Campaign, field: string): Scalar | undefined {
  if (field.startsWith('metadata.')) return declaredMetadata(order.metadata, campaign.metadataKeys, 'order')[field.slice(9)];
  switch (field) {
    case 'selling_price_subtotal':
      return order.sellingSubtotalCents;
    case 'original_price_subtotal':
      return order.originalSubtotalCents;
    case 'shipping':
      return order.shippingCents;
    case 'tax':
      return order.taxCents;
    case 'payment_mode':
      return order.paymentMode;
    case 'items_count':
      return order.items.length;
    case 'total_qty':
      return sum(order.items.map((i) => i.quantity));
    default:
      return undefined;
  }
}

/** Value of a product-validation or selector field of one item, undefined when not sent. */
export function itemFieldValue(item: ParsedItem, campaign: Pick<Campaign, 'metadataKeys'>, field: string): Scalar | undefined {
  if (field.startsWith('metadata.')) return declaredMetadata(item.metadata, campaign.metadataKeys, 'item')[field.slice(9)];
  switch (field) {
    case 'selling_price':
      return item.sellingPriceCents;
    case 'original_price':
      return item.originalPriceCents;
    case 'cart_qty':
    case 'quantity':
      return item.quantitySent ? item.quantity : undefined;
    case 'shipping':
      return item.shippingCents;
    case 'product_id':
      return item.productId;
    case 'sku':
      return item.sku;
    case 'name':
      return item.name;
    default:
      return undefined;
  }
}

/**
 * Whether a condition on a field with no value fails (list rule 5). Metadata and the documented
 * optional fields are skipped when not sent. Mandatory fields always have a value once parsed,
 * and derived ones (`items_count`, `total_qty`) too; what is left is a field the engine does not
 * know (a misconfigured campaign), which fails closed rather than letting every order through.
 */
function missingFails(field: string, optional: readonly string[]): boolean {
  return !field.startsWith('metadata.') && !optional.includes(field);
}
const OPTIONAL_ORDER_FIELDS = ['shipping', 'tax', 'payment_mode'] as const;
const OPTIONAL_ITEM_FIELDS = ['cart_qty', 'quantity', 'shipping', 'sku', 'name'] as const;
export const orderFieldMandatory = (f: string): boolean => missingFails(f, OPTIONAL_ORDER_FIELDS);
export const itemFieldMandatory = (f: string): boolean => missingFails(f, OPTIONAL_ITEM_FIELDS);

/**
 * Whether `item` is chosen by `selector`. Each property test reads the item's property
 * (`product_id`, `sku`, `name` or `metadata.<declared item key>`) and compares it with its
 * values, strings case-insensitively: `in` (the default) and `eq` hold when it equals one of
 * them, `nin` and `neq` when it equals none. A property the item did not send is "none of
 * them": it fails `in`/`eq` and passes `nin`/`neq`. `AND` needs every test, `OR` any. A selector
 * without properties selects nothing.
 */
export function matchesSelector(item: ParsedItem, campaign: Pick<Campaign, 'metadataKeys'>, selector: ItemSelector): boolean {
  if (selector.properties.length === 0) return false;
  // A loop, not a closure per item: list runs this for every item of every coupon with a selector.
  const all = selector.match === 'AND';
  for (const p of selector.properties) if (propertyHolds(item, campaign, p) !== all) return !all;
  return all;
}

function propertyHolds(item: ParsedItem, campaign: Pick<Campaign, 'metadataKeys'>, p: ItemSelector['properties'][number]): boolean {
  const operator = p.operator ?? 'in';
  const v = itemFieldValue(item, campaign, p.property);
  if (v === undefined) return operator === 'nin' || operator === 'neq';
  return holds({ field: p.property, operator, value: p.values }, v);
}

/** The selected-items aggregates the selected-items validations test (docs/campaigns.md). */
export function selectedAggregates(selectedItems: readonly ParsedItem[]): Record<string, number> {
  return {
    selected_items_total_qty: sum(selectedItems.map((i) => i.quantity)),
    selected_items_selling_price_subtotal: sum(selectedItems.map((i) => i.sellingLineCents)),
    selected_items_original_price_subtotal: sum(selectedItems.map((i) => i.originalLineCents)),
  };
}

/** Aggregates always have a value; an unknown one fails: the tray message, not a silent pass. */
export const aggregateMandatory = (): boolean => true;
