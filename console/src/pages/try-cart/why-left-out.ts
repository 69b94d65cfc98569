/**
 * Why a promotion was left out of a cart, in a promotion manager's words: one sentence per
 * refusal reason (docs/reasons.md, the words of console/src/reason-words.ts). The stacking reasons
 * name the promotions it met.
 */
import type { Schemas } from '@coupons/client';
import { reasonInWords } from '../../reason-words';

/** A promotion the cart was tried with, as far as the sentence needs it. */
export interface Tried {
  campaign_name: string;
  reason: string | null;
  message: string | null;
}

/**
 * The reasons said in Try a cart's own words; any other reason is said with validate's message,
 * which names more (the tiers it is for, what is left of a budget).
 */
const OWN_RULES = new Set<string>([
  'not_available',
  'total_limit',
  'per_user_limit',
  'per_day_limit',
  'per_week_limit',
  'per_month_limit',
  'bulk_code_used',
  'cart_rule',
  'product_rule',
  'selection',
  'invalid_payload',
  'coupon_not_found',
  'stacking_duplicate',
] satisfies Schemas['Reason'][]);

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
      return (left.reason && OWN_RULES.has(left.reason) ? reasonInWords(left.reason) : null) ?? left.message ?? 'Not applicable';
  }
}
