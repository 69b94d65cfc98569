/**
 * Every fixed applicability message of the contract, verbatim (the contract's "Cases that are not
 * errors" and the apply error table), and the rule text of conditions. Clients match on these
 * strings, so they are never reworded — grammar included.
 */
import { fromCents } from './money.js';
import type { Condition, Operator, Scalar } from './types.js';

/** Outside the validity period or schedule, or disabled. */
export const NOT_AVAILABLE = 'coupon is not available at this moment or expired';
/** Total limit reached; also a used-up bulk code. */
export const TOTAL_LIMIT_EXCEEDED = 'coupon code redemption total_limit exceeded';
export const PER_USER_LIMIT_EXCEEDED = 'coupon code redemption per_user_limit exceeded';
export const PER_DAY_LIMIT_EXCEEDED = 'coupon code redemption per_day_limit exceeded';
export const PER_WEEK_LIMIT_EXCEEDED = 'coupon code redemption per_week_limit exceeded';
export const PER_MONTH_LIMIT_EXCEEDED = 'coupon code redemption per_month_limit exceeded';
/** A money budget (docs/budgets.md) that cannot pay the discount: the campaign's, or the customer's share. */
export const BUDGET_EXHAUSTED = 'coupon code redemption budget exceeded';
export const PER_USER_BUDGET_EXCEEDED = 'coupon code redemption per_user_budget exceeded';
/** A free gift campaign whose `max_gifts` are all given away. */
export const GIFTS_GIVEN_OUT = 'coupon code redemption gift limit exceeded';
/** A campaign for some levels of a wallet's tiers (docs/wallets.md "Tiers"; ours, not the contract's). */
export const tierRequired = (levels: readonly string[]): string => `coupon is for ${levels.join(' or ')} members only`;
/** Order-level payload problem: subtotals missing, zero or mistyped, or a known field mistyped. */
export const INVALID_ORDER_PAYLOAD = 'invalid payload, original_price_subtotal and selling_price_subtotal is required and should not be 0';
/** No item selected, or a selected-items validation failed (the "coupon tray" message). */
export const SELECTION_FAILED = 'Discount validation is failed, please check terms and condition in the coupon tray';

/** Stacking (docs/stacking.md; ours, not the contract's): an exclusive coupon beside another. */
export const STACKING_EXCLUSIVE = 'coupon can only be used on its own';
/** Stacking: the coupon's and another's combination rules do not allow each other. */
export const STACKING_CONFLICT = 'coupon cannot be combined with the other coupons of the order';
/** Stacking: the same campaign named twice (or a code of a campaign already applied). */
export const STACKING_DUPLICATE = 'coupon is already applied to this order';

/** Item-level: `product_id is required`, `original_price is required`, `selling_price is required`. */
export const itemFieldRequired = (field: string): string => `${field} is required`;
export const PRODUCT_ID_REQUIRED = itemFieldRequired('product_id');
export const ORIGINAL_PRICE_REQUIRED = itemFieldRequired('original_price');
export const SELLING_PRICE_REQUIRED = itemFieldRequired('selling_price');

/** Count fields: numbers, never money, even though `selected_items_total_qty` contains "total". */
const COUNT_FIELDS = new Set(['cart_qty', 'selected_items_total_qty', 'items_count', 'total_qty', 'quantity']);

/**
 * True for fields whose condition values are money — stored in cents, printed with 2 decimals:
 * any non-metadata field naming a price, subtotal, shipping or tax. Metadata numbers and counts
 * are plain numbers.
 */
export function isMoneyField(field: string): boolean {
  if (field.startsWith('metadata.') || COUNT_FIELDS.has(field)) return false;
  return /price|subtotal|shipping|tax/.test(field);
}

const OPERATOR_TEXT: Record<Operator, string> = {
  gt: 'should be greater than',
  gte: 'should be greater than or equal to',
  lt: 'should be less than',
  lte: 'should be less than or equal to',
  eq: 'should be equal to',
  neq: 'should not be equal to',
  in: 'should be one of',
  nin: 'should not be one of',
};

function formatValue(field: string, v: Scalar): string {
  if (typeof v === 'number' && isMoneyField(field)) return fromCents(v).toFixed(2);
  return String(v);
}

/**
 * The rule text of a failed condition, as the contract prints it:
 * `selling_price_subtotal should be greater than 200.00` (value stored as 20000 cents),
 * `cart_qty should be less than or equal to 3`, `channel should be one of app, web` (metadata
 * fields print their bare key).
 */
export function ruleText(c: Condition): string {
  const name = c.field.startsWith('metadata.') ? c.field.slice('metadata.'.length) : c.field;
  const values = Array.isArray(c.value) ? c.value : [c.value];
  return `${name} ${OPERATOR_TEXT[c.operator]} ${values.map((v) => formatValue(c.field, v)).join(', ')}`;
}
