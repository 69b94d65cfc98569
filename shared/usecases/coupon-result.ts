/**
 * The contract's Coupon result object (list and validate), built from an engine evaluation.
 * Field names exactly as the contract (openapi.yaml); `message` only when not applicable.
 */
import type { Evaluation } from '../domain/engine.js';
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
}

/** A result with why it is not applicable (null when it is): the reason travels beside the body (docs/reasons.md). */
export interface Presented {
  body: CouponResult;
  reason: RefusalReason | null;
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
  };
  return { body, reason: evaluation.applicable ? null : evaluation.reason };
}
