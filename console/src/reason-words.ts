/**
 * Why a coupon was refused, in a promotion manager's words: one sentence per refusal reason
 * (docs/reasons.md). Keyed by the spec's enum (`Schemas['Reason']`), so a reason the spec adds
 * fails the type check until it has its words. Used by Try a cart (why a promotion was left out)
 * and by a campaign's results (refusals by reason).
 */
import type { Schemas } from '@coupons/client';

export const REASON_WORDS: Record<Schemas['Reason'], string> = {
  not_available: 'Not available at this time (outside its dates, days or hours)',
  total_limit: 'Used up: its total limit is reached',
  per_user_limit: 'This customer has used it as often as allowed',
  per_day_limit: "Today's limit is reached",
  per_week_limit: "This week's limit is reached",
  per_month_limit: "This month's limit is reached",
  bulk_code_used: 'This code has been used as often as allowed',
  budget_exhausted: 'Its money budget cannot pay this discount',
  per_user_budget: "This customer's share of its money budget cannot pay this discount",
  gifts_given_out: 'Its free gifts are all given away',
  tier_rule: 'The customer is not at a loyalty tier it is for',
  cart_rule: "The cart doesn't meet its conditions",
  product_rule: 'No item in the cart is one it applies to, or the cart has an item it excludes',
  selection: 'The items it applies to were not selected',
  stacking_exclusive: 'It can only be used on its own, and another promotion came first',
  stacking_conflict: "It doesn't combine with a promotion applied before it",
  stacking_duplicate: 'Already in this cart: the same promotion was entered twice',
  gift_card_disabled: 'The gift card is disabled',
  gift_card_expired: 'The gift card has expired',
  gift_card_empty: 'The gift card has no balance left',
  stacking_not_enabled: 'The application does not take several promotions on one order',
  invalid_payload: 'The order could not be read',
  invalid_type: 'The shop asked for something other than a redeem or a revert',
  coupon_missing: 'No code was sent',
  only_one_coupon: 'More codes than the application takes on one order',
  coupon_not_found: 'Not offered to this customer',
  unknown_customer: 'The customer is not known to the shop’s application',
  login_required: 'The customer was not signed in, and it is only for some customers',
  no_redemption: 'Nothing to revert: this order was not redeemed with it',
  order_of_another_customer: 'This order was redeemed with it by another customer',
  customer_not_found: 'The customer does not exist',
  customer_archived: 'The customer was erased',
  wallet_not_found: 'The wallet does not exist',
  gift_card_not_found: 'No such gift card',
  store_credit_not_found: 'The customer has no store credit',
  type_missing: 'The shop did not say whether to redeem or revert',
  insufficient_points: 'Not enough points',
  invalid_credentials: 'The shop’s credentials were refused',
  idempotency_conflict: 'The same request was sent twice with different contents',
  body_too_large: 'The order sent was too large',
  rate_limited: 'Too many requests at once: the shop was asked to wait',
  unavailable: 'The service was busy and asked the shop to try again',
};

/** A reason in words; one this console does not know yet, as it is. */
export const reasonInWords = (reason: string): string => (REASON_WORDS as Record<string, string>)[reason] ?? reason;
