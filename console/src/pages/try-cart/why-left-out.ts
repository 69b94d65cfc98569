/**
 * Why a promotion was left out of a cart, in a promotion manager's words: one sentence per
 * refusal reason (docs/reasons.md). The stacking reasons name the promotions it met.
 */

/** A promotion the cart was tried with, as far as the sentence needs it. */
export interface Tried {
  campaign_name: string;
  reason: string | null;
  message: string | null;
}

const OWN_RULES: Record<string, string> = {
  not_available: 'Not available at this time (outside its dates, days or hours)',
  total_limit: 'Used up: its total limit is reached',
  per_user_limit: 'This customer has used it as often as allowed',
  per_day_limit: "Today's limit is reached",
  per_week_limit: "This week's limit is reached",
  per_month_limit: "This month's limit is reached",
  bulk_code_used: 'This code has been used as often as allowed',
  cart_rule: "The cart doesn't meet its conditions",
  product_rule: 'No item in the cart is one it applies to, or the cart has an item it excludes',
  selection: 'The items it applies to were not selected',
  invalid_payload: 'The order could not be read',
  coupon_not_found: 'Not offered to this customer',
  stacking_duplicate: 'Already in this cart: the same promotion was entered twice',
};

/** "A", "A or B", "A, B or C". */
export const eitherOf = (names: string[]): string =>
  names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;

/**
 * The sentence for one promotion left out. `appliedBefore`: the promotions that joined the cart
 * before it (the stacking rules compare it with those); `exclusive`: whether it applies only on
 * its own (undefined while unknown).
 */
export function whyLeftOut(left: Tried, appliedBefore: readonly Tried[], exclusive: boolean | undefined): string {
  const before = eitherOf(appliedBefore.map((t) => t.campaign_name));
  switch (left.reason) {
    case 'stacking_exclusive':
      // Either it applies only on its own, or the one that joined first does (and then it is the only one).
      if (exclusive === true)
        return before ? `Can only be used on its own, and ${before} was applied first` : 'Can only be used on its own';
      if (exclusive === false && before) return `Doesn't combine with ${before}, which can only be used on its own`;
      return 'Can only be used on its own, or comes after a promotion that can';
    case 'stacking_conflict':
      return before ? `Doesn't combine with ${before}` : "Doesn't combine with the other promotions of the cart";
    default:
      return (left.reason && OWN_RULES[left.reason]) ?? left.message ?? 'Not applicable';
  }
}
