/**
 * Every fixed message of the contract, verbatim (interface.md "Cases that are not errors"), and
 * the rule text of conditions. Clients match on these strings.
 */
import type { Condition, Scalar } from './types.js';

export const NOT_AVAILABLE = 'coupon is not available at this moment or expired';
export const TOTAL_LIMIT_EXCEEDED = 'coupon code redemption total_limit exceeded';
export const PER_USER_LIMIT_EXCEEDED = 'coupon code redemption per_user_limit exceeded';
export const PER_DAY_LIMIT_EXCEEDED = 'coupon code redemption per_day_limit exceeded';
export const PER_WEEK_LIMIT_EXCEEDED = 'coupon code redemption per_week_limit exceeded';
export const PER_MONTH_LIMIT_EXCEEDED = 'coupon code redemption per_month_limit exceeded';
export const INVALID_ORDER_PAYLOAD = 'invalid payload, original_price_subtotal and selling_price_subtotal is required and should not be 0';
export const SELECTION_FAILED = 'Discount validation is failed, please check terms and condition in the coupon tray';
/** Item-level: `product_id is required`, `original_price is required`, `selling_price is required`. */
export const itemFieldRequired = (field: string): string => `${field} is required`;

/** Fields whose condition values are money (stored in cents, printed with 2 decimals). */
export function isMoneyField(field: string): boolean {
  return !field.startsWith('metadata.') && /price|subtotal|shipping|tax/.test(field);
}

const OPERATOR_TEXT: Record<Condition['operator'], string> = {
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
  if (typeof v === 'number' && isMoneyField(field)) return (v / 100).toFixed(2);
  return String(v);
}

/** The rule text of a failed condition, e.g. `selling_price_subtotal should be greater than 200.00`. */
export function ruleText(c: Condition): string {
  const name = c.field.startsWith('metadata.') ? c.field.slice('metadata.'.length) : c.field;
  const values = Array.isArray(c.value) ? c.value : [c.value];
  return `${name} ${OPERATOR_TEXT[c.operator]} ${values.map((v) => formatValue(c.field, v)).join(', ')}`;
}
