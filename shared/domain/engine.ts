/**
 * The one rules engine behind list, validate and redeem. Pure: plain data in, a decision out.
 *
 * Order of checks (first failure wins, docs/campaigns.md):
 *  1. availability: validity period and schedule in the application's timezone;
 *  2. limits: total, per customer (when a customer is known), per day, per week, per month,
 *     then a bulk code's own uses;
 *  3. without an order, stop: applicable, nothing to compute (list rule 1);
 *  4. the order payload (mandatory order and item fields);
 *  5. cart conditions, in configured order — a condition on an optional field that was not sent
 *     is skipped, one on a mandatory field is always evaluated (list rule 5);
 *  6. item selection and selected-items validations (the coupon tray message);
 *  7. product validations on each selected item (every item without a selector);
 *  8. the discount or cashback, spread over items for item-level bases.
 */
import { declaredMetadata } from './metadata.js';
import * as M from './messages.js';
import { holds } from './conditions.js';
import { availability } from './availability.js';
import { percentOf, spreadLargestRemainder } from './money.js';
import { parseOrder, type ParsedItem, type ParsedOrder } from './order.js';
import type { Campaign, Condition, ItemSelector, Scalar, UsageCounts } from './types.js';

export interface EvaluateInput {
  now: Date;
  timezone: string;
  campaign: Campaign;
  usage: UsageCounts;
  customerKnown: boolean;
  /** The raw `order` of the request; undefined = no order or item checks. */
  order: unknown;
}

export type RefusalReason =
  | 'not_available'
  | 'total_limit'
  | 'per_user_limit'
  | 'per_day_limit'
  | 'per_week_limit'
  | 'per_month_limit'
  | 'bulk_code_used'
  | 'invalid_payload'
  | 'cart_rule'
  | 'selection'
  | 'product_rule';

export interface DiscountResult {
  totalDiscountCents: number;
  totalCashbackCents: number;
  totalAmountCents: number;
  /** Per parsed item; null when the discount is not item-level. */
  itemDiscountCents: (number | null)[];
}

export type Evaluation =
  { applicable: true; order: ParsedOrder | null; result: DiscountResult } | { applicable: false; reason: RefusalReason; message: string };

/**
 * List evaluates every coupon against the same request order: parse it once per request object.
 * A WeakMap keyed by the raw object, so nothing outlives the request.
 */
const parsedOrders = new WeakMap<object, ReturnType<typeof parseOrder>>();
function parseOnce(raw: unknown): ReturnType<typeof parseOrder> {
  if (typeof raw !== 'object' || raw === null) return parseOrder(raw);
  let parsed = parsedOrders.get(raw);
  if (!parsed) {
    parsed = parseOrder(raw);
    parsedOrders.set(raw, parsed);
  }
  return parsed;
}

const refuse = (reason: RefusalReason, message: string): Evaluation => ({ applicable: false, reason, message });

/** Limits in the documented order; null when none is reached. */
function limitRefusal(campaign: Campaign, usage: UsageCounts, customerKnown: boolean): Evaluation | null {
  const l = campaign.limits;
  const reached = (limit: number | null | undefined, used: number) => limit !== null && limit !== undefined && used >= limit;
  if (reached(l.total, usage.total)) return refuse('total_limit', M.TOTAL_LIMIT_EXCEEDED);
  if (customerKnown && reached(l.perCustomer, usage.perCustomer)) return refuse('per_user_limit', M.PER_USER_LIMIT_EXCEEDED);
  if (reached(l.perDay, usage.perDay)) return refuse('per_day_limit', M.PER_DAY_LIMIT_EXCEEDED);
  if (reached(l.perWeek, usage.perWeek)) return refuse('per_week_limit', M.PER_WEEK_LIMIT_EXCEEDED);
  if (reached(l.perMonth, usage.perMonth)) return refuse('per_month_limit', M.PER_MONTH_LIMIT_EXCEEDED);
  if (usage.bulkCode !== undefined && usage.bulkCode >= (campaign.bulkCodeUsageLimit ?? 1))
    return refuse('bulk_code_used', M.TOTAL_LIMIT_EXCEEDED);
  return null;
}

const sumOf = (items: ParsedItem[], price: 'sellingPriceCents' | 'originalPriceCents') =>
  items.reduce((s, i) => s + Math.round(i[price] * i.quantity), 0);

/** The value of an order-level field, or undefined when it was not sent. */
function orderField(order: ParsedOrder, campaign: Campaign, field: string): Scalar | undefined {
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
      return order.items.reduce((s, i) => s + i.quantity, 0);
    default:
      return undefined;
  }
}

function itemField(item: ParsedItem, campaign: Campaign, field: string): Scalar | undefined {
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

/** A condition whose field was not sent fails only when the field is mandatory (list rule 5). */
function failing(
  conditions: Condition[],
  valueOf: (field: string) => Scalar | undefined,
  mandatory: readonly string[],
): Condition | undefined {
  return conditions.find((c) => {
    const v = valueOf(c.field);
    if (v === undefined) return mandatory.includes(c.field);
    return !holds(c, v);
  });
}

export function matchesSelector(item: ParsedItem, campaign: Campaign, selector: ItemSelector): boolean {
  const test = (p: ItemSelector['properties'][number]) => {
    const v = itemField(item, campaign, p.property);
    return v !== undefined && holds({ field: p.property, operator: 'in', value: p.values }, v);
  };
  return selector.match === 'AND' ? selector.properties.every(test) : selector.properties.some(test);
}

export function evaluateCoupon(input: EvaluateInput): Evaluation {
  const { campaign } = input;
  if (availability(campaign, input.now, input.timezone) !== 'available') return refuse('not_available', M.NOT_AVAILABLE);
  const limited = limitRefusal(campaign, input.usage, input.customerKnown);
  if (limited) return limited;
  if (input.order === undefined) {
    return {
      applicable: true,
      order: null,
      result: { totalDiscountCents: 0, totalCashbackCents: 0, totalAmountCents: 0, itemDiscountCents: [] },
    };
  }

  const parsed = parseOnce(input.order);
  if (!parsed.ok) return refuse('invalid_payload', parsed.message);
  const order = parsed.order;

  const cartFail = failing(campaign.cartConditions, (f) => orderField(order, campaign, f), [
    'selling_price_subtotal',
    'original_price_subtotal',
    'items_count',
    'total_qty',
  ]);
  if (cartFail) return refuse('cart_rule', M.ruleText(cartFail));

  const base = campaign.discountCalculatedOn;
  const itemLevelSelected = base.startsWith('selected_items_');
  const selector = campaign.itemSelector;
  const selected = selector ? order.items.map((i) => matchesSelector(i, campaign, selector)) : order.items.map(() => true);
  if ((selector || itemLevelSelected) && !selected.some(Boolean)) return refuse('selection', M.SELECTION_FAILED);
  const selectedItems = order.items.filter((_, i) => selected[i]);
  if (campaign.selectedItemsValidations.length > 0) {
    const aggregates: Record<string, number> = {
      selected_items_total_qty: selectedItems.reduce((s, i) => s + i.quantity, 0),
      selected_items_selling_price_subtotal: sumOf(selectedItems, 'sellingPriceCents'),
      selected_items_original_price_subtotal: sumOf(selectedItems, 'originalPriceCents'),
    };
    if (campaign.selectedItemsValidations.some((c) => aggregates[c.field] === undefined || !holds(c, aggregates[c.field]!))) {
      return refuse('selection', M.SELECTION_FAILED);
    }
  }
  for (const item of selectedItems) {
    const fail = failing(campaign.productValidations, (f) => itemField(item, campaign, f), [
      'selling_price',
      'original_price',
      'product_id',
    ]);
    if (fail) return refuse('product_rule', M.ruleText(fail));
  }

  return { applicable: true, order, result: computeDiscount(campaign, order, selected) };
}

function computeDiscount(campaign: Campaign, order: ParsedOrder, selected: boolean[]): DiscountResult {
  const base = campaign.discountCalculatedOn;
  const price = base.endsWith('original_price_subtotal') ? 'originalPriceCents' : 'sellingPriceCents';
  let eligible: boolean[] | null = null;
  if (base.startsWith('selected_items_')) eligible = selected;
  else if (base.startsWith('valid_cart_')) {
    const excluded = campaign.excludedItems;
    eligible = order.items.map((i) => !excluded || !matchesSelector(i, campaign, excluded));
  }

  let baseCents: number;
  if (eligible)
    baseCents = sumOf(
      order.items.filter((_, i) => eligible![i]),
      price,
    );
  else if (base === 'shipping') baseCents = order.shippingCents ?? 0;
  else if (base === 'original_price_subtotal') baseCents = order.originalSubtotalCents;
  else baseCents = order.sellingSubtotalCents;

  const d = campaign.discount;
  let amount = d.type === 'percentage' ? percentOf(baseCents, d.value) : Math.round(d.value);
  if (d.maxCents !== null && d.maxCents !== undefined) amount = Math.min(amount, d.maxCents);
  amount = Math.max(0, Math.min(amount, baseCents));

  const discount = d.kind === 'cashback' ? 0 : amount;
  let itemDiscountCents: (number | null)[] = order.items.map(() => null);
  if (eligible) {
    const weights = order.items.map((i, k) => (eligible![k] ? Math.round(i[price] * i.quantity) : 0));
    const anyWeight = weights.some((w) => w > 0);
    const spread = anyWeight ? spreadLargestRemainder(discount, weights) : order.items.map(() => 0);
    itemDiscountCents = spread.map((v, k) => (eligible![k] ? v : 0));
  }
  return {
    totalDiscountCents: discount,
    totalCashbackCents: d.kind === 'cashback' ? amount : 0,
    totalAmountCents: Math.max(0, order.sellingSubtotalCents - discount),
    itemDiscountCents,
  };
}
