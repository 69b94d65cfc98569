/**
 * The one rules engine behind list, validate and redeem. Pure: plain data in, a decision out;
 * `now` and the usage counters are passed in, nothing is read or written here.
 *
 * Order of checks — the first failure decides the refusal and its message:
 *
 *  1. availability — status, validity period (inclusive), schedule in the application's
 *     timezone → `not_available`: `coupon is not available at this moment or expired`;
 *  2. limits, in this order: total, per customer (only when the customer is known), per day,
 *     per week, per month (a null/undefined limit is unlimited; reached when usage >= limit),
 *     then a bulk code's own uses against `bulkCodeUsageLimit` (default 1) →
 *     `coupon code redemption <kind>_limit exceeded` (a used bulk code reads `total_limit`);
 *  3. no order in the request (`order === undefined`) → applicable, zero result, order null
 *     (list rule 1: no order or item checks);
 *  4. the order payload (see `parseOrder`) → `invalid_payload` with the parser's message;
 *  5. cart conditions, AND, in configured order → `cart_rule` with the first failure's rule
 *     text; a condition on a mandatory order field is always evaluated, one on an optional field
 *     (shipping, tax, payment_mode, metadata.*) that was not sent is skipped (list rule 5);
 *  6. item selection: with a selector or a `selected_items_*` base, no selected item →
 *     `selection` (the coupon tray message); then the selected-items validations, AND, on
 *     aggregates of the selected items → `selection` (the tray message);
 *  7. product validations on each selected item (every item without a selector), skipping
 *     optional item fields not sent → `product_rule` with the rule text;
 *  8. the discount (or cashback): see {@link computeDiscount}.
 */
import { availability } from './availability.js';
import { conditionHolds, firstFailing, holds } from './conditions.js';
import * as M from './messages.js';
import { declaredMetadata } from './metadata.js';
import { percentOf, roundHalfAway, spreadLargestRemainder } from './money.js';
import type { RefusalReason } from '../reasons.js';
import { parseOrder, type ParsedItem, type ParsedOrder, type ParseResult } from './order.js';
import type { Campaign, Condition, DiscountBase, ItemSelector, Scalar, UsageCounts } from './types.js';

/** Everything the engine needs for one coupon, one customer, one moment. */
export interface EvaluateInput {
  now: Date;
  /** The application's IANA timezone: schedules are read in it. */
  timezone: string;
  campaign: Campaign;
  /** Usage counted for the periods of `now` (see `periodKeys`). */
  usage: UsageCounts;
  /** Whether a customer was identified; the per-customer limit applies only then. */
  customerKnown: boolean;
  /** The raw `order` of the request; `undefined` = no order or item checks (list rule 1). */
  order: unknown;
}

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

export type Evaluation =
  { applicable: true; order: ParsedOrder | null; result: DiscountResult } | { applicable: false; reason: RefusalReason; message: string };

/**
 * List evaluates every coupon against the same request order: parse it once per request object.
 * Keyed weakly by the raw object, so nothing outlives the request; the parsed order is read-only.
 */
const parsedOrders = new WeakMap<object, ParseResult>();
function parseOnce(raw: unknown): ParseResult {
  if (typeof raw !== 'object' || raw === null) return parseOrder(raw);
  let parsed = parsedOrders.get(raw);
  if (!parsed) {
    parsed = parseOrder(raw);
    parsedOrders.set(raw, parsed);
  }
  return parsed;
}

const refuse = (reason: RefusalReason, message: string): Evaluation => ({ applicable: false, reason, message });

const reached = (limit: number | null | undefined, used: number): boolean => limit !== null && limit !== undefined && used >= limit;

/** Step 2: the first limit reached, in the documented order; null when none is. */
export function limitRefusal(campaign: Campaign, usage: UsageCounts, customerKnown: boolean): Evaluation | null {
  const l = campaign.limits;
  if (reached(l.total, usage.total)) return refuse('total_limit', M.TOTAL_LIMIT_EXCEEDED);
  if (customerKnown && reached(l.perCustomer, usage.perCustomer)) return refuse('per_user_limit', M.PER_USER_LIMIT_EXCEEDED);
  if (reached(l.perDay, usage.perDay)) return refuse('per_day_limit', M.PER_DAY_LIMIT_EXCEEDED);
  if (reached(l.perWeek, usage.perWeek)) return refuse('per_week_limit', M.PER_WEEK_LIMIT_EXCEEDED);
  if (reached(l.perMonth, usage.perMonth)) return refuse('per_month_limit', M.PER_MONTH_LIMIT_EXCEEDED);
  if (usage.bulkCode !== undefined && reached(campaign.bulkCodeUsageLimit ?? 1, usage.bulkCode)) {
    return refuse('bulk_code_used', M.TOTAL_LIMIT_EXCEEDED);
  }
  return null;
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** Value of a cart-condition field, or undefined when it was not sent (or is unknown). */
function orderFieldValue(order: ParsedOrder, campaign: Campaign, field: string): Scalar | undefined {
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
function itemFieldValue(item: ParsedItem, campaign: Campaign, field: string): Scalar | undefined {
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
const orderFieldMandatory = (f: string): boolean => missingFails(f, OPTIONAL_ORDER_FIELDS);
const itemFieldMandatory = (f: string): boolean => missingFails(f, OPTIONAL_ITEM_FIELDS);

/**
 * Whether `item` is chosen by `selector`. Each property test reads the item's property
 * (`product_id`, `sku`, `name` or `metadata.<declared item key>`) and compares it with its
 * values, strings case-insensitively: `in` (the default) and `eq` hold when it equals one of
 * them, `nin` and `neq` when it equals none. A property the item did not send is "none of
 * them": it fails `in`/`eq` and passes `nin`/`neq`. `AND` needs every test, `OR` any. A selector
 * without properties selects nothing.
 */
export function matchesSelector(item: ParsedItem, campaign: Campaign, selector: ItemSelector): boolean {
  if (selector.properties.length === 0) return false;
  // A loop, not a closure per item: list runs this for every item of every coupon with a selector.
  const all = selector.match === 'AND';
  for (const p of selector.properties) if (propertyHolds(item, campaign, p) !== all) return !all;
  return all;
}

function propertyHolds(item: ParsedItem, campaign: Campaign, p: ItemSelector['properties'][number]): boolean {
  const operator = p.operator ?? 'in';
  const v = itemFieldValue(item, campaign, p.property);
  if (v === undefined) return operator === 'nin' || operator === 'neq';
  return holds({ field: p.property, operator, value: p.values }, v);
}

const isSelectedItemsBase = (base: DiscountBase): boolean => base.startsWith('selected_items_');
const isValidCartBase = (base: DiscountBase): boolean => base.startsWith('valid_cart_');

/** Step 6, selection: per item, whether it is selected (every item without a selector). */
function selectItems(order: ParsedOrder, campaign: Campaign): boolean[] {
  const selector = campaign.itemSelector;
  return order.items.map((item) => (selector ? matchesSelector(item, campaign, selector) : true));
}

/** Step 6, refusal: nothing selected when selection matters, or a selected-items validation fails. */
function selectionRefusal(campaign: Campaign, selectedItems: readonly ParsedItem[]): Evaluation | null {
  if (selectionMatters(campaign) && selectedItems.length === 0) return refuse('selection', M.SELECTION_FAILED);
  if (campaign.selectedItemsValidations.length === 0) return null;
  const aggregates = selectedAggregates(selectedItems);
  const failed = firstFailing(campaign.selectedItemsValidations, (f) => aggregates[f], AGGREGATE_MANDATORY);
  return failed ? refuse('selection', M.SELECTION_FAILED) : null;
}

/** Whether the selection can refuse: an item selector, or a discount on the selected items. */
function selectionMatters(campaign: Campaign): boolean {
  return campaign.itemSelector !== null || isSelectedItemsBase(campaign.discountCalculatedOn);
}

/** The selected-items aggregates the selected-items validations test (docs/campaigns.md). */
function selectedAggregates(selectedItems: readonly ParsedItem[]): Record<string, number> {
  return {
    selected_items_total_qty: sum(selectedItems.map((i) => i.quantity)),
    selected_items_selling_price_subtotal: sum(selectedItems.map((i) => i.sellingLineCents)),
    selected_items_original_price_subtotal: sum(selectedItems.map((i) => i.originalLineCents)),
  };
}

/** Aggregates always have a value; an unknown one fails: the tray message, not a silent pass. */
const AGGREGATE_MANDATORY = () => true;

/** Step 5: the first failing cart condition. */
function cartRefusal(campaign: Campaign, order: ParsedOrder): Evaluation | null {
  const failed = firstFailing(campaign.cartConditions, (f) => orderFieldValue(order, campaign, f), orderFieldMandatory);
  return failed ? refuse('cart_rule', M.ruleText(failed)) : null;
}

/** Step 7: the first failing product validation over the items, in item order. */
function productRefusal(campaign: Campaign, items: readonly ParsedItem[]): Evaluation | null {
  if (campaign.productValidations.length === 0) return null;
  for (const item of items) {
    const failed: Condition | undefined = firstFailing(
      campaign.productValidations,
      (f) => itemFieldValue(item, campaign, f),
      itemFieldMandatory,
    );
    if (failed) return refuse('product_rule', M.ruleText(failed));
  }
  return null;
}

/**
 * Evaluates one coupon for one request: the checks in the order documented at the top of this
 * file, then the discount. Never throws for any `order` value.
 */
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
  const cart = cartRefusal(campaign, order);
  if (cart) return cart;
  const selected = selectItems(order, campaign);
  const selectedItems = order.items.filter((_, i) => selected[i]);
  const selection = selectionRefusal(campaign, selectedItems);
  if (selection) return selection;
  const product = productRefusal(campaign, selectedItems);
  if (product) return product;
  return { applicable: true, order, result: computeDiscount(campaign, order, selected) };
}

/**
 * Items a discount is spread over, or null when the base is not item-level: the selected items
 * for `selected_items_*`, the items not matching `excludedItems` for `valid_cart_*`.
 */
function eligibleItems(campaign: Campaign, order: ParsedOrder, selected: readonly boolean[]): boolean[] | null {
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
function baseCents(campaign: Campaign, order: ParsedOrder, eligible: readonly boolean[] | null): number {
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
 * Step 8. The base by `discountCalculatedOn`: the order's selling or original subtotal; its
 * shipping (0 when not sent); the selected items' lines (price × quantity) on the selling or
 * original price; or the valid cart — every item not matching `excludedItems`. Percentage or
 * flat, capped at `maxCents`, never above the base. A cashback coupon reports the amount as
 * cashback and a total discount of 0 (docs/decisions.md#20c). Item-level bases spread the total
 * discount over the eligible items by largest remainder, weighted by their lines on the
 * base's price; other items get 0.
 */
function computeDiscount(campaign: Campaign, order: ParsedOrder, selected: readonly boolean[]): DiscountResult {
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

/** One rule of an explanation: what was checked, with the figures it was checked on. */
export interface RuleCheck {
  /** `availability`, `limit.<kind>`, `order`, `cart_condition`, `selection`, `selected_items_validation`, `product_validation`, `discount`. */
  rule: string;
  /** null: not reached (an earlier rule refused). */
  passed: boolean | null;
  /** A sentence for people: the rule text, or what was found. */
  text: string;
  /** The figures, money in cents (the presenting layer converts). */
  figures: Record<string, unknown>;
}

/** {@link evaluateCoupon}'s decision with every rule it went through and their figures. */
export interface Explanation {
  evaluation: Evaluation;
  checks: RuleCheck[];
}

/**
 * Explains one coupon for one request: the decision is {@link evaluateCoupon}'s own (so an
 * explanation never disagrees with validate), and beside it every rule in the engine's order with
 * the figures it was decided on — each limit's use, each cart condition's actual value, which items
 * were selected, the base and each item's share of the discount. Rules after the deciding
 * refusal are listed as not reached. Never throws for any `order` value.
 */
export function explainCoupon(input: EvaluateInput): Explanation {
  const evaluation = evaluateCoupon(input);
  const checks: RuleCheck[] = [];
  let open = true; // false once a rule refused: what follows was not reached
  const add = (rule: string, passed: boolean, text: string, figures: Record<string, unknown> = {}) => {
    checks.push({ rule, passed: open ? passed : null, text, figures });
    if (!passed) open = false;
  };
  const { campaign } = input;

  const state = availability(campaign, input.now, input.timezone);
  add('availability', state === 'available', state === 'available' ? 'available now' : M.NOT_AVAILABLE, {
    state,
    valid_from: campaign.validFrom.toISOString(),
    valid_until: campaign.validUntil ? campaign.validUntil.toISOString() : null,
  });

  const l = campaign.limits;
  const u = input.usage;
  const limits: [string, number | null | undefined, number, boolean][] = [
    ['total', l.total, u.total, true],
    ['per_customer', l.perCustomer, u.perCustomer, input.customerKnown],
    ['per_day', l.perDay, u.perDay, true],
    ['per_week', l.perWeek, u.perWeek, true],
    ['per_month', l.perMonth, u.perMonth, true],
  ];
  for (const [kind, limit, used, applies] of limits) {
    if (limit === null || limit === undefined) continue;
    const ok = !applies || !reached(limit, used);
    add(`limit.${kind}`, ok, applies ? `${Math.max(0, limit - used)} of ${limit} left` : 'applies only to a known customer', {
      limit,
      used,
      remaining: Math.max(0, limit - used),
    });
  }
  if (u.bulkCode !== undefined) {
    const limit = campaign.bulkCodeUsageLimit ?? 1;
    add('limit.bulk_code', !reached(limit, u.bulkCode), `this code used ${u.bulkCode} of ${limit} times`, {
      limit,
      used: u.bulkCode,
      remaining: Math.max(0, limit - u.bulkCode),
    });
  }

  if (input.order === undefined) {
    add('order', true, 'no order sent: no cart or item rules are checked', {});
    return { evaluation, checks };
  }
  const parsed = parseOnce(input.order);
  add('order', parsed.ok, parsed.ok ? 'order read' : parsed.message, {});
  if (!parsed.ok) return { evaluation, checks };
  const order = parsed.order;

  for (const c of campaign.cartConditions) {
    const actual = orderFieldValue(order, campaign, c.field);
    const ok = conditionHolds(c, actual, orderFieldMandatory);
    add('cart_condition', ok, M.ruleText(c), { field: c.field, operator: c.operator, value: c.value, actual: actual ?? null });
  }

  const selected = selectItems(order, campaign);
  const selectedItems = order.items.filter((_, i) => selected[i]);
  if (selectionMatters(campaign)) {
    add('selection', selectedItems.length > 0, selectedItems.length > 0 ? `${selectedItems.length} item(s) selected` : M.SELECTION_FAILED, {
      selected_items: selected.flatMap((s, i) => (s ? [i] : [])),
    });
  }
  const aggregates = selectedAggregates(selectedItems);
  for (const c of campaign.selectedItemsValidations) {
    const actual = aggregates[c.field];
    add('selected_items_validation', conditionHolds(c, actual, AGGREGATE_MANDATORY), M.ruleText(c), {
      field: c.field,
      operator: c.operator,
      value: c.value,
      actual: actual ?? null,
    });
  }
  for (const c of campaign.productValidations) {
    const failing = selectedItems.flatMap((item, k) => {
      const v = itemFieldValue(item, campaign, c.field);
      return conditionHolds(c, v, itemFieldMandatory) ? [] : [k];
    });
    add('product_validation', failing.length === 0, M.ruleText(c), {
      field: c.field,
      operator: c.operator,
      value: c.value,
      failing_items: failing.map((k) => order.items.indexOf(selectedItems[k]!)),
    });
  }

  if (evaluation.applicable) {
    const eligible = eligibleItems(campaign, order, selected);
    const base = baseCents(campaign, order, eligible);
    const d = campaign.discount;
    const r = evaluation.result;
    add('discount', true, `${d.type === 'percentage' ? `${d.value}%` : 'flat'} on ${campaign.discountCalculatedOn}`, {
      base: campaign.discountCalculatedOn,
      base_cents: base,
      type: d.type,
      value: d.value,
      max_cents: d.maxCents ?? null,
      kind: d.kind,
      discount_cents: d.kind === 'cashback' ? r.totalCashbackCents : r.totalDiscountCents,
      eligible_items: eligible ? eligible.flatMap((e, i) => (e ? [i] : [])) : null,
      item_discount_cents: r.itemDiscountCents,
    });
  }
  return { evaluation, checks };
}
