/**
 * Why a coupon is not applicable or a client request was refused: a stable, machine-readable
 * name for each case, sent beside the contract's bodies (never inside them) in the
 * `Coupon-Reason` and `Coupon-Reasons` response headers (docs/reasons.md). Names are never
 * renamed or reused; new cases get new names. The text is the documentation of each name.
 */
export const REASONS = {
  // A coupon is not applicable (list and validate 200s; apply refusals: docs/decisions.md#20a).
  not_available: 'outside its validity period, days or hours (docs/decisions.md#13)',
  total_limit: "the campaign's total redemption limit is reached",
  per_user_limit: 'this customer has used the coupon as often as allowed',
  per_day_limit: "today's redemption limit is reached (the application's timezone)",
  per_week_limit: "this week's redemption limit is reached (ISO week, the application's timezone)",
  per_month_limit: "this month's redemption limit is reached (the application's timezone)",
  bulk_code_used: 'this bulk code has been used as often as allowed',
  budget_exhausted:
    "the campaign's money budget (in total, today's, this week's or this month's) cannot pay this discount (docs/budgets.md)",
  per_user_budget: "this customer's share of the campaign's money budget cannot pay this discount (docs/budgets.md)",
  gifts_given_out: "the campaign's free gifts are all given away (its max_gifts: docs/campaigns.md)",
  tier_rule:
    'the coupon is for customers of some levels of a wallet\'s tiers (docs/wallets.md "Tiers"), and this customer is not at one (or is not named)',
  cart_rule: 'a condition on the cart is not met (a minimum value, a payment mode, metadata, …)',
  product_rule: 'no item of the cart is one the coupon applies to, or an excluded item is in it',
  selection: 'the items the coupon applies to were not selected (the documented tray message)',
  stacking_exclusive: 'stacking: the coupon applies only on its own and another coupon or promotion comes before it (docs/stacking.md)',
  stacking_conflict:
    "stacking: the coupon's combination rules and those of one applied before it do not allow each other (docs/stacking.md)",
  stacking_duplicate: 'stacking: the same campaign is named twice in one request (docs/stacking.md)',
  gift_card_disabled: 'a gift card (or store credit) was disabled by an operator: it cannot pay (docs/gift-cards.md)',
  gift_card_expired: "a gift card's (or store credit's) expiry has passed: it cannot pay (docs/gift-cards.md)",
  gift_card_empty: 'a gift card (or store credit) has no balance left (docs/gift-cards.md)',
  // The request itself is refused.
  invalid_payload: 'the body, the order in it or a field is malformed (the details name it)',
  invalid_type: 'apply: the `type` query parameter is not redeem or revert',
  coupon_missing: 'no coupon id or code was sent',
  stacking_not_enabled:
    'best deal: the application has not opted in to stacking (stacking.max_coupons above 1 or automatic promotions: docs/stacking.md)',
  only_one_coupon: "more entries in coupon_details than the application's stacking.max_coupons (1 unless it opted in: docs/stacking.md)",
  coupon_not_found: 'no coupon of this application has this id or code (for this customer)',
  unknown_customer: 'the source_id is missing where it is required (apply) or is not a customer of this application',
  login_required: 'the coupon is assigned to customers and no source_id was sent',
  no_redemption: 'revert: this order was never redeemed with this coupon',
  order_of_another_customer: 'redeem: this order was redeemed with this coupon by another customer',
  customer_not_found: 'wallet routes and the store credit read: the customer does not exist',
  customer_archived: 'customer upsert: this source_id belongs to an archived customer (an operator can unarchive it)',
  wallet_not_found: 'wallet routes: the application has no wallet with this id',
  gift_card_not_found: 'gift card balance read: the application has no gift card with this code',
  store_credit_not_found: 'store credit read: the customer has no store credit (none was ever credited)',
  type_missing: 'wallet update without `type` (the contract answers it with body code 401)',
  insufficient_points: "a debit larger than the wallet's balance",
  invalid_credentials: 'the Basic credentials are missing, malformed or wrong',
  idempotency_conflict: 'this Idempotency-Key was used with a different request',
  body_too_large: 'the body is larger than the limit',
  rate_limited: "the application's rate limit is reached: 429, retry after `Retry-After` seconds (docs/rate-limits.md)",
  unavailable: 'a dependency is down or the operation did not finish in time: 503, retry (with the same Idempotency-Key)',
} as const satisfies Record<string, string>;

export type Reason = keyof typeof REASONS;

/** The reasons an evaluation of a coupon against a request can give (list, validate, redeem). */
export type RefusalReason = Extract<
  Reason,
  | 'not_available'
  | 'total_limit'
  | 'per_user_limit'
  | 'per_day_limit'
  | 'per_week_limit'
  | 'per_month_limit'
  | 'bulk_code_used'
  | 'budget_exhausted'
  | 'per_user_budget'
  | 'gifts_given_out'
  | 'tier_rule'
  | 'invalid_payload'
  | 'cart_rule'
  | 'selection'
  | 'product_rule'
  | 'stacking_exclusive'
  | 'stacking_conflict'
  | 'stacking_duplicate'
  | 'gift_card_disabled'
  | 'gift_card_expired'
  | 'gift_card_empty'
>;

export const isReason = (value: unknown): value is Reason => typeof value === 'string' && Object.hasOwn(REASONS, value);
