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

/**
 * The application as a worker decides on it: at least the configuration the API saw when it
 * queued the job (`seenVersion`, docs/architecture.md "What a worker caches"). An older cached copy
 * (the change's announcement has not reached this process yet) is read again from the database.
 */
export async function applicationAsSeen(deps: Pick<Services, 'applications'>, applicationId: string, seenVersion: number | undefined) {
  const cached = await deps.applications.get(applicationId);
  if (seenVersion === undefined || (cached && cached.configVersion >= seenVersion)) return cached;
  deps.applications.forget(applicationId);
  return deps.applications.get(applicationId);
}

export async function loadCampaign(
  deps: Pick<Services, 'applications' | 'campaigns'>,
  input: Pick<RevertInput, 'applicationId' | 'campaignId' | 'configVersion'>,
) {
  const app = await applicationAsSeen(deps, input.applicationId, input.configVersion);
  if (!app) throw couponNotFound();
  const campaign = (await deps.campaigns.get(app)).byId.get(input.campaignId);
  if (!campaign) throw couponNotFound();
  return { app, campaign };
}
