/** What redeem and revert share in a worker: the contract's result object and the campaign a job names. */
import type { RevertInput } from '../../queue/job-payloads.js';
import type { Services } from '../../services.js';
import { couponNotFound } from '../../client-errors.js';

/** The contract's Redeem/revert result object. */
export interface ApplyResult {
  status: 'completed' | 'reverted';
  couponId: string;
  orderId: string;
  coupon_code: string;
  request_id: string;
  /**
   * A budgeted campaign's redeem: the discount and cashback granted, in cents. Not part of the
   * body: the API answers them as the `Coupon-Discount` / `Coupon-Cashback` headers (docs/budgets.md).
   */
  granted?: { discountCents: number; cashbackCents: number };
}

/** One coupon of a stacked redeem or revert (`coupons` beside the result: docs/stacking.md). */
export interface StackedApplyCoupon {
  couponId: string;
  coupon_code: string;
  discount: number;
  cashback: number;
}

/** The result of a stacked redeem or revert: the contract's fields name the first coupon; `coupons` lists them all. */
export type StackApplyResult = ApplyResult & { coupons: StackedApplyCoupon[] };

export const resultOf = (
  input: Pick<RevertInput, 'couponId' | 'code' | 'orderId' | 'requestId'>,
  status: ApplyResult['status'],
): ApplyResult => ({
  status,
  couponId: input.couponId,
  orderId: input.orderId,
  coupon_code: input.code,
  request_id: input.requestId,
});

/** Rounds of a redeem or revert that met concurrent changes before it gives up (a guard: no run is expected to reach it). */
export const MAX_ROUNDS = 10;

export async function loadCampaign(deps: Pick<Services, 'applications' | 'campaigns'>, applicationId: string, campaignId: string) {
  const app = await deps.applications.get(applicationId);
  if (!app) throw couponNotFound();
  const campaign = (await deps.campaigns.get(app)).byId.get(campaignId);
  if (!campaign) throw couponNotFound();
  return { app, campaign };
}
