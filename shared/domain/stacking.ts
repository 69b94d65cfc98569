/**
 * Several promotions on one cart (docs/stacking.md). Pure: the campaigns, their usage and the
 * order in; which of them apply, in which order, and every amount out. Money in integer cents.
 *
 *  1. Order: higher `priority` first; ties keep the candidates' order (the request's entries,
 *     then automatic promotions oldest first).
 *  2. Each candidate's own rules are the single-coupon engine's (shared/domain/engine.ts), checked
 *     on the cart as sent: the same refusal validate gives for it alone.
 *  3. Walking that order, a candidate whose rules pass joins unless the same campaign joined
 *     already, it is exclusive or one that joined is, or the two campaigns' combination rules do
 *     not allow each other.
 *  4. Amounts, in the same order, each on what the ones before left: an item-level discount
 *     lowers those items; a whole-cart discount is computed on the subtotal less the discounts
 *     before it and spread over the items by what is left of them; a shipping discount (free
 *     shipping too) on the shipping left. A free gift takes no money off; the coupon names its
 *     gift. Nothing goes below 0: an item never loses more than what is left of its line, so the
 *     per-item discounts and the shipping discount sum exactly to the total.
 */
import { budgetCents, budgetLeft, budgetRefusal, type BudgetLeft } from './budget.js';
import { computeDiscount, type FreeGiftLine } from './discount.js';
import { evaluateCoupon, selectionOf, type Evaluation, type Refusal } from './engine.js';
import * as M from './messages.js';
import { spreadLargestRemainder } from './money.js';
import { sum } from './order-fields.js';
import type { ParsedItem, ParsedOrder } from './order.js';
import type { Campaign, Stacking, UsageCounts } from './types.js';

/** One campaign a cart carries: an entry of `coupon_details`, or an automatic promotion. */
export interface StackCandidate {
  campaign: Campaign;
  /** Its use as counted now (the engine's limits step). */
  usage: UsageCounts;
}

export interface StackInput {
  now: Date;
  timezone: string;
  customerKnown: boolean;
  /** The raw `order` of the request (undefined: none sent; the amounts are then 0). */
  order: unknown;
  candidates: StackCandidate[];
  /** The customer's levels the candidates' tier requirements ask about (the engine's `customerTiers`). */
  customerTiers?: ReadonlyMap<string, string>;
}

/** What became of one candidate. */
export interface StackedCoupon {
  /** Index in `candidates`. */
  candidate: number;
  /** 1-based place in the order the applied ones were computed; null when left out. */
  position: number | null;
  /** Why it was left out (its own rules, or the stacking rules); null when applied. */
  refusal: Refusal | null;
  discountCents: number;
  cashbackCents: number;
  /** Per item of the order (its index), what this coupon takes off; empty without an order. */
  itemDiscountCents: number[];
  /** What it takes off the shipping. */
  shippingDiscountCents: number;
  /** The gifts a `free_gift` promotion gives; absent for every other kind (and without an order). */
  freeGifts?: FreeGiftLine[];
}

export interface StackResult {
  /** The parsed order; null when none was sent or it could not be read. */
  order: ParsedOrder | null;
  /** One per candidate, in the candidates' order. */
  coupons: StackedCoupon[];
  /** Candidate indexes in the order they were tried (priority, then the candidates' order). */
  tried: number[];
  totalDiscountCents: number;
  totalCashbackCents: number;
  /** `max(0, selling subtotal - total discount)`, as for one coupon. */
  totalAmountCents: number;
  /** Per item, the sum of every applied coupon's share. */
  itemDiscountCents: number[];
  shippingDiscountCents: number;
}

/** Whether `a` allows `b`'s category beside it. */
const allows = (a: Stacking, b: Stacking): boolean =>
  a.combinesWith === 'all' || (b.category !== null && a.combinesWith.includes(b.category));

/** Whether two campaigns' combination rules allow each other (exclusivity aside). */
export const combinable = (a: Stacking, b: Stacking): boolean => allows(a, b) && allows(b, a);

/** Candidate indexes by priority, higher first; ties keep their order (a stable sort). */
export const stackingOrder = (candidates: readonly { campaign: Pick<Campaign, 'stacking'> }[]): number[] =>
  candidates
    .map((_, i) => i)
    .sort((i, j) => candidates[j]!.campaign.stacking.priority - candidates[i]!.campaign.stacking.priority || i - j);

/**
 * Why `next` cannot join `joined` (null: it can): the same campaign, exclusivity on either side,
 * or combination rules that do not allow each other. Checked in that order.
 */
export function stackingRefusal(next: Campaign, joined: readonly Campaign[]): Refusal | null {
  if (joined.some((c) => c.id === next.id)) return { applicable: false, reason: 'stacking_duplicate', message: M.STACKING_DUPLICATE };
  if (joined.length > 0 && (next.stacking.exclusive || joined.some((c) => c.stacking.exclusive)))
    return { applicable: false, reason: 'stacking_exclusive', message: M.STACKING_EXCLUSIVE };
  if (joined.some((c) => !combinable(c.stacking, next.stacking)))
    return { applicable: false, reason: 'stacking_conflict', message: M.STACKING_CONFLICT };
  return null;
}

/** What is left of the order after the discounts before: per item (selling and original lines), the subtotals, the shipping. */
interface Left {
  selling: number[];
  original: number[];
  sellingSubtotal: number;
  originalSubtotal: number;
  shipping: number;
}

const cloneLeft = (l: Left): Left => ({ ...l, selling: [...l.selling], original: [...l.original] });

const leftOf = (order: ParsedOrder): Left => ({
  selling: order.items.map((i) => i.sellingLineCents),
  original: order.items.map((i) => i.originalLineCents),
  sellingSubtotal: order.sellingSubtotalCents,
  originalSubtotal: order.originalSubtotalCents,
  shipping: order.shippingCents ?? 0,
});

/** The order as the next coupon computes on it: the lines, subtotals and shipping that are left. */
function remainingOrder(order: ParsedOrder, left: Left): ParsedOrder {
  return {
    ...order,
    originalSubtotalCents: left.originalSubtotal,
    sellingSubtotalCents: left.sellingSubtotal,
    ...(order.shippingCents !== undefined ? { shippingCents: left.shipping } : {}),
    items: order.items.map((item, i): ParsedItem => ({
      ...item,
      sellingLineCents: left.selling[i]!,
      originalLineCents: left.original[i]!,
    })),
  };
}

/** One applied coupon's amounts on what is left, and what is left after it. */
function applyOne(campaign: Campaign, order: ParsedOrder, left: Left) {
  const result = computeDiscount(campaign, remainingOrder(order, left), selectionOf(campaign, order));
  const n = order.items.length;
  let items = new Array<number>(n).fill(0);
  let shipping = 0;
  let discount = result.totalDiscountCents;
  if (discount > 0) {
    if (campaign.discountCalculatedOn === 'shipping' || campaign.discount.type === 'free_shipping')
      shipping = Math.min(discount, left.shipping);
    else if (result.itemDiscountCents.every((d) => d !== null)) {
      // Item-level: never more than what is left of an item's selling line.
      items = result.itemDiscountCents.map((d, i) => Math.min(d ?? 0, left.selling[i]!));
    } else {
      // Whole cart: spread over the items by what is left of them, never above their sum.
      const cap = Math.min(discount, sum(left.selling));
      items = spreadLargestRemainder(cap, left.selling);
    }
    discount = sum(items) + shipping;
  }
  for (let i = 0; i < n; i++) {
    left.selling[i] = left.selling[i]! - items[i]!;
    left.original[i] = Math.max(0, left.original[i]! - items[i]!);
  }
  const fromCart = discount - shipping;
  left.sellingSubtotal = Math.max(0, left.sellingSubtotal - fromCart);
  left.originalSubtotal = Math.max(0, left.originalSubtotal - fromCart);
  left.shipping -= shipping;
  return {
    discountCents: discount,
    cashbackCents: result.totalCashbackCents,
    itemDiscountCents: items,
    shippingDiscountCents: shipping,
    ...(result.freeGifts ? { freeGifts: result.freeGifts } : {}),
  };
}

/** A candidate whose own rules were evaluated already: {@link evaluateCoupon} on the request's cart and its usage. */
export interface EvaluatedCandidate {
  campaign: Campaign;
  evaluation: Evaluation;
  /** What is left of its money budget (docs/budgets.md), in cents; absent or null: no budget. */
  budgetLeft?: BudgetLeft | null;
}

/** Stacks the candidates on one order (see the file's header). Never throws for any `order` value. */
export function stackCoupons(input: StackInput): StackResult {
  return stackEvaluated(
    input.candidates.map(({ campaign, usage }) => ({
      campaign,
      evaluation: evaluateCoupon({
        now: input.now,
        timezone: input.timezone,
        campaign,
        usage,
        customerKnown: input.customerKnown,
        order: input.order,
        ...(input.customerTiers ? { customerTiers: input.customerTiers } : {}),
      }),
      budgetLeft: budgetLeft(campaign.budget, usage.spent, input.customerKnown),
    })),
  );
}

/**
 * Steps 1, 3 and 4 of the file's header for candidates whose own rules (step 2) were evaluated
 * once already: the best deal computes many combinations of the same candidates this way. Every
 * evaluation must be of the same request's order; {@link stackCoupons} is this after evaluating.
 */
export function stackEvaluated(candidates: readonly EvaluatedCandidate[]): StackResult {
  const tried = stackingOrder(candidates);
  const coupons: StackedCoupon[] = candidates.map((_, candidate) => ({
    candidate,
    position: null,
    refusal: null,
    discountCents: 0,
    cashbackCents: 0,
    itemDiscountCents: [],
    shippingDiscountCents: 0,
  }));
  const joined: Campaign[] = [];
  let order: ParsedOrder | null = null;
  let left: Left | null = null;
  for (const i of tried) {
    const { campaign, evaluation } = candidates[i]!;
    const refusal = evaluation.applicable ? stackingRefusal(campaign, joined) : evaluation;
    const coupon = coupons[i]!;
    if (refusal) {
      coupon.refusal = refusal;
      continue;
    }
    joined.push(campaign);
    coupon.position = joined.length;
    if (!evaluation.applicable || !evaluation.order) continue;
    order ??= evaluation.order;
    left ??= leftOf(order);
    const before = cloneLeft(left);
    const amounts = applyOne(campaign, order, left);
    const budget = candidates[i]!.budgetLeft;
    if (
      budget &&
      budgetCents({ totalDiscountCents: amounts.discountCents, totalCashbackCents: amounts.cashbackCents, ...amounts }) > budget.cents
    ) {
      // Its budget cannot pay what it takes here, and a stacked coupon is never cut (docs/budgets.md): left out.
      left = before;
      joined.pop();
      coupon.position = null;
      coupon.refusal = budgetRefusal(budget);
      continue;
    }
    Object.assign(coupon, amounts);
  }
  const n = order?.items.length ?? 0;
  const itemDiscountCents = new Array<number>(n).fill(0);
  for (const c of coupons) c.itemDiscountCents.forEach((d, i) => (itemDiscountCents[i]! += d));
  const totalDiscountCents = sum(coupons.map((c) => c.discountCents));
  return {
    order,
    coupons,
    tried,
    totalDiscountCents,
    totalCashbackCents: sum(coupons.map((c) => c.cashbackCents)),
    totalAmountCents: order ? Math.max(0, order.sellingSubtotalCents - totalDiscountCents) : 0,
    itemDiscountCents,
    shippingDiscountCents: sum(coupons.map((c) => c.shippingDiscountCents)),
  };
}
