/**
 * Money budgets (docs/budgets.md). Pure: a campaign's budget, what it has spent, and a computed
 * discount in; what is left, and the discount within it (or the refusal), out. Money in cents.
 *
 * A redemption counts in a budget what it gives away: its discount, its cashback and its free
 * gifts' value. What is left is the smallest of the caps' remainders (total, the current day /
 * week / month, and the customer's when one is known). A redemption that would pass it is refused
 * (`when_exceeded: refuse`) or gets what is left (`cap`); a free gift cannot be cut, so it is
 * refused either way. Nothing left at all refuses before the cart is read.
 */
import * as M from './messages.js';
import { spreadLargestRemainder } from './money.js';
import type { DiscountResult } from './discount.js';
import type { RefusalReason } from '../reasons.js';
import type { Budget, Campaign, SpentCents } from './types.js';

/** What is left of a budget, and the cap that leaves the least (its refusal). */
export interface BudgetLeft {
  cents: number;
  /** `per_customer` when the customer's own cap is the smallest; otherwise one of the campaign's. */
  cap: 'total' | 'per_day' | 'per_week' | 'per_month' | 'per_customer';
}

const NOTHING_SPENT: SpentCents = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };

/**
 * The least left of the budget's caps, given what was spent (absent: nothing); null when the
 * campaign has no cap. The customer's cap counts only for a known customer.
 */
export function budgetLeft(budget: Budget | null | undefined, spent: SpentCents | undefined, customerKnown: boolean): BudgetLeft | null {
  if (!budget) return null;
  const s = spent ?? NOTHING_SPENT;
  let least: BudgetLeft | null = null;
  const consider = (cap: number | null, used: number, name: BudgetLeft['cap']) => {
    if (!cap) return;
    const cents = Math.max(0, cap - used);
    if (!least || cents < least.cents) least = { cents, cap: name };
  };
  consider(budget.totalCents, s.total, 'total');
  consider(budget.perDayCents, s.perDay, 'per_day');
  consider(budget.perWeekCents, s.perWeek, 'per_week');
  consider(budget.perMonthCents, s.perMonth, 'per_month');
  if (customerKnown) consider(budget.perCustomerCents, s.perCustomer, 'per_customer');
  return least;
}

/** The refusal of a budget whose `left` cannot take a redemption: the customer's own, or the campaign's. */
export function budgetRefusal(left: BudgetLeft): { applicable: false; reason: RefusalReason; message: string } {
  return left.cap === 'per_customer'
    ? { applicable: false, reason: 'per_user_budget', message: M.PER_USER_BUDGET_EXCEEDED }
    : { applicable: false, reason: 'budget_exhausted', message: M.BUDGET_EXHAUSTED };
}

/** The free gifts' value a result gives, in cents. */
export const giftCents = (result: Pick<DiscountResult, 'freeGifts'>): number =>
  (result.freeGifts ?? []).reduce((sum, g) => sum + g.valueCents * g.quantity, 0);

/** What a redemption with this result counts in its campaign's budget: discount, cashback and gifts' value. */
export const budgetCents = (result: Pick<DiscountResult, 'totalDiscountCents' | 'totalCashbackCents' | 'freeGifts'>): number =>
  result.totalDiscountCents + result.totalCashbackCents + giftCents(result);

/**
 * The result cut down to `capCents` of discount (or cashback): the per-item amounts re-spread
 * over the items that carried them (largest remainder, weighted by what each carried, so none
 * gets more than before); the total to pay follows.
 */
export function capResult(result: DiscountResult, capCents: number, sellingSubtotalCents: number): DiscountResult {
  if (result.totalCashbackCents > 0) return { ...result, totalCashbackCents: Math.min(result.totalCashbackCents, capCents) };
  const total = Math.min(result.totalDiscountCents, capCents);
  if (total === result.totalDiscountCents) return result;
  const carried = result.itemDiscountCents;
  const itemDiscountCents = carried.every((d) => d !== null) ? spreadLargestRemainder(total, carried as number[]) : carried.map(() => null);
  return {
    ...result,
    totalDiscountCents: total,
    totalAmountCents: Math.max(0, sellingSubtotalCents - total),
    itemDiscountCents,
  };
}

/**
 * A computed result against what is left of its campaign's budget: unchanged when it fits (or
 * there is no budget), cut to what is left with `cap` (never a gift), else the refusal.
 */
export function withinBudget(
  campaign: Pick<Campaign, 'budget'>,
  result: DiscountResult,
  left: BudgetLeft | null,
  sellingSubtotalCents: number,
): { result: DiscountResult; capped: boolean } | { applicable: false; reason: RefusalReason; message: string } {
  if (!left) return { result, capped: false };
  const amount = budgetCents(result);
  if (amount <= left.cents) return { result, capped: false };
  if (campaign.budget?.whenExceeded !== 'cap' || giftCents(result) > 0 || left.cents === 0) return budgetRefusal(left);
  return { result: capResult(result, left.cents, sellingSubtotalCents), capped: true };
}
