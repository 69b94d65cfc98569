/**
 * The contract's Coupon result object (list and validate), built from an engine evaluation.
 * Field names exactly as the contract (openapi.yaml); `message` only when not applicable.
 */
import type { DiscountResult, FreeGiftLine } from '../domain/discount.js';
import type { Evaluation } from '../domain/engine.js';
import { fromCents } from '../domain/money.js';
import type { ParsedOrder } from '../domain/order.js';
import type { StackedCoupon, StackResult } from '../domain/stacking.js';
import type { CartCoupon } from './stack.js';
import { blankSavingsOrder, presentSavingsOrder } from '../domain/savings.js';
import type { RefusalReason } from '../reasons.js';
import type { Campaign } from '../domain/types.js';

export interface CouponResult {
  coupon_code: string;
  coupon_code_id: string;
  coupon_name: string;
  coupon_description?: string;
  coupon_terms_and_conditions: string[];
  is_applicable: boolean;
  message?: string;
  coupon_savings: { order: Record<string, unknown> };
  request_id: string;
  /** Only on an automatic promotion (no code: docs/stacking.md), never on a coupon. */
  trigger?: 'automatic';
  /** Only on an applicable free gift campaign (docs/campaigns.md "Free gift"): what the storefront adds to the cart, free. */
  free_gifts?: FreeGiftBody[];
}

/** A free gift as the answer names it. `value`: what one unit is worth (currency units). */
export interface FreeGiftBody {
  product_id: string;
  sku: string | null;
  name: string;
  quantity: number;
  value: number;
}

/** The gifts of a result, as bodies name them; absent when there are none. */
export const presentGifts = (gifts: readonly FreeGiftLine[] | undefined): { free_gifts?: FreeGiftBody[] } =>
  gifts?.length
    ? {
        free_gifts: gifts.map((g) => ({
          product_id: g.productId,
          sku: g.sku,
          name: g.name,
          quantity: g.quantity,
          value: fromCents(g.valueCents),
        })),
      }
    : {};

/** One coupon's reason in a `Coupon-Reasons` header: its `coupon_code_id` and why it is not applicable. */
export interface ListedReason {
  id: string;
  reason: RefusalReason;
}

/** A result with why it is not applicable (null when it is): the reason travels beside the body (docs/reasons.md). */
export interface Presented {
  body: CouponResult;
  reason: RefusalReason | null;
  /** Several coupons (docs/stacking.md): why each one left out was, for `Coupon-Reasons`. */
  reasons?: ListedReason[];
}

export function presentCouponResult(args: {
  campaign: Campaign;
  code: string;
  couponCodeId: string;
  evaluation: Evaluation;
  sourceId: string;
  requestId: string;
  endpoint: 'list' | 'validate';
}): Presented {
  const { campaign, evaluation, endpoint } = args;
  const body: CouponResult = {
    coupon_code: args.code,
    coupon_code_id: args.couponCodeId,
    coupon_name: campaign.name,
    ...(endpoint === 'list' ? { coupon_description: campaign.description } : {}),
    coupon_terms_and_conditions: campaign.termsAndConditions,
    is_applicable: evaluation.applicable,
    ...(evaluation.applicable ? {} : { message: evaluation.message }),
    coupon_savings: {
      order: evaluation.applicable
        ? (presentSavingsOrder({
            sourceId: args.sourceId,
            order: evaluation.order,
            campaign,
            result: evaluation.result,
            includeValidateFields: endpoint === 'validate',
          }) as unknown as Record<string, unknown>)
        : (blankSavingsOrder() as unknown as Record<string, unknown>),
    },
    request_id: args.requestId,
    ...(campaign.trigger === 'automatic' ? { trigger: 'automatic' as const } : {}),
    ...(evaluation.applicable ? presentGifts(evaluation.result.freeGifts) : {}),
  };
  return { body, reason: evaluation.applicable ? null : evaluation.reason };
}

/** One coupon of a stack as validate shows it (`stack.coupons`: openapi.yaml `StackedCoupon`). */
export interface StackedCouponBody {
  coupon_code: string;
  coupon_code_id: string;
  coupon_name: string;
  trigger: 'code' | 'automatic';
  /** 1-based place in the order the coupons were computed; null when left out. */
  position: number | null;
  is_applicable: boolean;
  message?: string;
  discount: number;
  cashback: number;
  shipping_discount: number;
  /** Per item of the order, what this coupon takes off it. */
  items: { product_id: string; discount_value: number }[];
  /** A free gift campaign that applies: the gifts the storefront adds. */
  free_gifts?: FreeGiftBody[];
}

/** The combination a cart's coupons make (`stack`: openapi.yaml `Stack`). */
export interface StackBody {
  total_discount: number;
  total_cashback: number;
  total_amount: number;
  shipping_discount: number;
  /** In the order they were tried: the applied ones in their order, the left-out ones where they would have come. */
  coupons: StackedCouponBody[];
}

/** A coupon result for several coupons: the contract's fields, and the combination beside them. */
export type StackResultBody = CouponResult & { stack: StackBody };

/** One stacked coupon's body. */
function presentStacked(coupon: CartCoupon, stacked: StackedCoupon, order: ParsedOrder | null): StackedCouponBody {
  const refusal = stacked.refusal;
  return {
    coupon_code: coupon.code,
    coupon_code_id: coupon.couponCodeId,
    coupon_name: coupon.campaign.name,
    trigger: coupon.campaign.trigger,
    position: stacked.position,
    is_applicable: !refusal,
    ...(refusal ? { message: refusal.message } : {}),
    discount: fromCents(stacked.discountCents),
    cashback: fromCents(stacked.cashbackCents),
    shipping_discount: fromCents(stacked.shippingDiscountCents),
    items: (order?.items ?? []).map((item, i) => ({
      product_id: item.productId,
      discount_value: fromCents(stacked.itemDiscountCents[i] ?? 0),
    })),
    ...(refusal ? {} : presentGifts(stacked.freeGifts)),
  };
}

/** The combination's `stack` body: `coupons[i]` is the cart coupon of `stack.coupons[i]`. */
export function presentStack(coupons: readonly CartCoupon[], stack: StackResult): StackBody {
  return {
    total_discount: fromCents(stack.totalDiscountCents),
    total_cashback: fromCents(stack.totalCashbackCents),
    total_amount: fromCents(stack.totalAmountCents),
    shipping_discount: fromCents(stack.shippingDiscountCents),
    coupons: stack.tried.map((i) => presentStacked(coupons[i]!, stack.coupons[i]!, stack.order)),
  };
}

/**
 * Validate's answer for several coupons (docs/stacking.md): the contract's fields name the first
 * entry; `is_applicable` is whether every entry applies (what a redeem of them all needs), the
 * message the first refused entry's; the savings are the combination's, every item with its
 * share; `stack` shows each coupon and each automatic promotion with its own figures or refusal.
 */
export function presentStackResult(args: {
  coupons: readonly CartCoupon[];
  stack: StackResult;
  sourceId: string;
  requestId: string;
}): Presented {
  const { coupons, stack } = args;
  const first = coupons.find((c) => c.entry === 0)!;
  const refused = coupons.flatMap((c, i) => (c.entry !== null && stack.coupons[i]!.refusal ? [stack.coupons[i]!.refusal!] : []))[0];
  const applicable = !refused;
  const result: DiscountResult = {
    totalDiscountCents: stack.totalDiscountCents,
    totalCashbackCents: stack.totalCashbackCents,
    totalAmountCents: stack.totalAmountCents,
    itemDiscountCents: stack.itemDiscountCents,
  };
  const body: StackResultBody = {
    coupon_code: first.code,
    coupon_code_id: first.couponCodeId,
    coupon_name: first.campaign.name,
    coupon_terms_and_conditions: first.campaign.termsAndConditions,
    is_applicable: applicable,
    ...(refused ? { message: refused.message } : {}),
    coupon_savings: {
      order: applicable
        ? (presentSavingsOrder({
            sourceId: args.sourceId,
            order: stack.order,
            campaign: first.campaign,
            result,
            includeValidateFields: true,
          }) as unknown as Record<string, unknown>)
        : (blankSavingsOrder() as unknown as Record<string, unknown>),
    },
    request_id: args.requestId,
    stack: presentStack(coupons, stack),
  };
  return { body, reason: refused?.reason ?? null, reasons: stackReasons(coupons, stack) };
}

/** Why each coupon of a stack was left out, in `stack.coupons`' order: the `Coupon-Reasons` header (reasons never travel in a body). */
export const stackReasons = (coupons: readonly CartCoupon[], stack: StackResult): ListedReason[] =>
  stack.tried.flatMap((i) => {
    const refusal = stack.coupons[i]!.refusal;
    return refusal ? [{ id: coupons[i]!.couponCodeId, reason: refusal.reason }] : [];
  });
