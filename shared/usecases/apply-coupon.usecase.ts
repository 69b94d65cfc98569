/**
 * Redeem and revert (`POST /coupons/apply`).
 *
 * `prepareApply` runs in the API: the documented 400s, the customer and the coupon, before
 * anything is queued. `redeemCoupon` / `revertCoupon` run in a worker, one operation per customer
 * at a time, and are written to be re-run from any line (BullMQ delivers at least once):
 *
 *  redeem: 1. a cycle written by this very job? return its outcome (a re-run after a crash
 *             resumes it while `pending`);
 *          2. the order's latest cycle `completed`? return it (decision 17: idempotent);
 *          3. re-validate with the engine (decision 18); refuse without writing anything;
 *          4. journal a `pending` cycle (unique on campaign+order+cycle: duplicates collide);
 *          5. take each limit counter with a guarded single-document update that records the
 *             cycle's key as holder (a re-run finds it and counts nothing again); if one refuses,
 *             give back every one taken and mark the cycle `refused`;
 *          6. credit the cashback (ledger txn `cashback:<key>`, applied once);
 *          7. mark `completed`. If that transition fails, a revert got there first: give back
 *             what this run may have taken after the revert, and the cashback.
 *  revert: mark the latest counted cycle `reverting` (recording the job), give back its counters
 *          (the periods it was redeemed in, not today's), debit its cashback, mark `reverted`.
 * No multi-document transactions: the per-customer queue serialises a customer's operations,
 * and every shared counter change is a guarded single-document update.
 */
import { evaluateCoupon } from '../domain/engine.js';
import * as messages from '../domain/messages.js';
import { periodKeys } from '../domain/periods.js';
import { DomainError } from '../errors.js';
import type { RedemptionRecord } from '../data/redemption-journal.repository.js';
import type { Services } from '../services.js';
import {
  couponMissing,
  couponNotFound,
  invalidPayload,
  invalidQueryType,
  invalidSourceId,
  noRedemption,
  onlyOneCoupon,
  orderOfAnotherCustomer,
  trayFailed,
  validationFailed,
} from './apply-errors.js';
import { findCoupon } from './find-coupon.js';
import { scopeKind, scopesToTake, readUsage } from './usage.js';
import { postLedgerEntry } from './wallet-ledger.js';
import type { ApplicationRecord } from '../data/application.repository.js';

interface ApplyInputBase {
  applicationId: string;
  customerId: string;
  campaignId: string;
  bulkCodeId: string | null;
  /** `coupon_id` as sent (echoed as `couponId`). */
  couponId: string;
  /** The code as configured (echoed as `coupon_code`). */
  code: string;
  orderId: string;
  requestId: string;
  /** Set by the processor: the BullMQ job id, which makes a re-run find its own work. */
  jobId?: string;
}
export interface RedeemInput extends ApplyInputBase {
  /** The order as sent: redeem re-validates every rule against it. */
  order: unknown;
}
export type RevertInput = ApplyInputBase;

/** The contract's Redeem/revert result object. */
export interface ApplyResult {
  status: 'completed' | 'reverted';
  couponId: string;
  orderId: string;
  coupon_code: string;
  request_id: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
const finiteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The mandatory fields of an apply request, checked in the documented order. */
function checkApplyBody(
  type: 'redeem' | 'revert',
  body: Record<string, unknown>,
): { detail: Record<string, unknown>; order: Record<string, unknown> } {
  if (!nonEmptyString(body.source_id)) throw invalidSourceId();
  const details = body.coupon_details;
  if (!Array.isArray(details) || details.length === 0) throw couponMissing();
  if (details.length > 1) throw onlyOneCoupon();
  const detail = details[0];
  if (!isObject(detail) || (!nonEmptyString(detail.coupon_id) && !nonEmptyString(detail.coupon_code))) throw couponMissing();
  const order = body.order;
  if (!isObject(order)) throw invalidPayload('order is required');
  if (!nonEmptyString(order.order_id)) throw invalidPayload('order_id is required');
  // It becomes part of the redemption's key: bounded like any identifier.
  if (order.order_id.length > 256) throw invalidPayload('order_id should be at most 256 characters');
  for (const field of ['original_price_subtotal', 'selling_price_subtotal'] as const) {
    if (order[field] === undefined || order[field] === null) throw invalidPayload(`${field} is required`);
    if (!finiteNumber(order[field])) throw invalidPayload(`${field} should be a number greater than or equal to 0`);
  }
  if (!nonEmptyString(order.status)) throw invalidPayload('status is required');
  const allowed = type === 'redeem' ? ['pending', 'completed'] : ['pending', 'completed', 'reverted'];
  if (!allowed.includes(order.status)) throw invalidPayload(`status should be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`);
  if (!Array.isArray(order.items) || order.items.length === 0) throw invalidPayload('items is required');
  for (const item of order.items) {
    if (!isObject(item)) throw invalidPayload('items should be objects');
    if (!nonEmptyString(item.product_id)) throw invalidPayload('product_id is required');
    for (const field of ['original_price', 'selling_price'] as const) {
      if (item[field] === undefined || item[field] === null) throw invalidPayload(`${field} is required`);
      if (!finiteNumber(item[field])) throw invalidPayload(`${field} should be a number greater than or equal to 0`);
    }
    if (!('shipping' in item)) throw invalidPayload('shipping is required');
  }
  return { detail, order };
}

/** API side: validates and resolves everything a job needs; throws the documented errors. */
export async function prepareApply(
  deps: Pick<Services, 'repos' | 'campaigns'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion'>,
  req: { type: unknown; body: unknown; requestId: string },
): Promise<{ type: 'redeem'; input: RedeemInput } | { type: 'revert'; input: RevertInput }> {
  if (req.type !== 'redeem' && req.type !== 'revert') throw invalidQueryType();
  const type = req.type;
  const body = isObject(req.body) ? req.body : {};
  const { detail, order } = checkApplyBody(type, body);
  const customer = await deps.repos.customers.resolve(app.id, (body.source_id as string).trim());
  if (!customer) throw invalidSourceId();
  const found = await findCoupon(deps, app, detail);
  if (!found) throw couponNotFound();
  if (found.campaign.assignment === 'assigned_users' && !found.campaign.assignedCustomerIds.includes(customer.id)) throw couponNotFound();
  const base: ApplyInputBase = {
    applicationId: app.id,
    customerId: customer.id,
    campaignId: found.campaign.id,
    bulkCodeId: found.bulkCodeId,
    couponId: nonEmptyString(detail.coupon_id) ? detail.coupon_id : found.couponCodeId,
    code: found.code,
    orderId: order.order_id as string,
    requestId: req.requestId,
  };
  return type === 'redeem' ? { type, input: { ...base, order } } : { type, input: base };
}

const result = (input: ApplyInputBase, status: ApplyResult['status']): ApplyResult => ({
  status,
  couponId: input.couponId,
  orderId: input.orderId,
  coupon_code: input.code,
  request_id: input.requestId,
});

/** The refusal a limit scope gives (decision 20a). */
function limitRefusal(scope: string): DomainError {
  const text = {
    total: messages.TOTAL_LIMIT_EXCEEDED,
    code: messages.TOTAL_LIMIT_EXCEEDED,
    customer: messages.PER_USER_LIMIT_EXCEEDED,
    day: messages.PER_DAY_LIMIT_EXCEEDED,
    week: messages.PER_WEEK_LIMIT_EXCEEDED,
    month: messages.PER_MONTH_LIMIT_EXCEEDED,
  }[scopeKind(scope)];
  return validationFailed(text, `${scopeKind(scope)}_limit`);
}

async function loadCampaign(deps: Pick<Services, 'applications' | 'campaigns'>, applicationId: string, campaignId: string) {
  const app = await deps.applications.get(applicationId);
  if (!app) throw couponNotFound();
  const campaign = (await deps.campaigns.get(app)).byId.get(campaignId);
  if (!campaign) throw couponNotFound();
  return { app, campaign };
}

async function walletDbIdOf(deps: Pick<Services, 'repos'>, applicationId: string, walletId: string | null): Promise<string | null> {
  if (!walletId) return null;
  return (await deps.repos.wallets.findByWalletId(applicationId, walletId))?.id ?? null;
}

async function giveBackAll(deps: Pick<Services, 'repos'>, applicationId: string, r: RedemptionRecord) {
  for (const { scope } of r.scopes) await deps.repos.usageCounters.giveBack(applicationId, r.campaignId, scope, r.key);
}

/** Takes back a credited cashback (at most the balance: it may have been spent). Idempotent. */
async function debitCashback(deps: Pick<Services, 'repos'>, applicationId: string, r: RedemptionRecord) {
  const walletDbId = await walletDbIdOf(deps, applicationId, r.cashbackWallet);
  if (!walletDbId) return;
  const credit = await deps.repos.walletTransactions.findByTxnId(applicationId, `cashback:${r.key}`);
  if (!credit || credit.state === 'refused') return;
  await postLedgerEntry(deps, {
    applicationId,
    customerId: r.customerId,
    walletDbId,
    txnId: `cashback-revert:${r.key}`,
    type: 'debit',
    points: credit.points,
    description: `cashback reverted: order ${r.orderId}`,
    origin: 'cashback_revert',
    clampToBalance: true,
  });
}

/** Steps 5-7 of redeem for a `pending` cycle; safe to run any number of times. */
async function completeCycle(deps: Pick<Services, 'repos'>, input: RedeemInput, r: RedemptionRecord): Promise<ApplyResult> {
  for (const { scope, limit } of r.scopes) {
    const taken = await deps.repos.usageCounters.take(input.applicationId, r.campaignId, scope, r.key, limit);
    if (!taken) {
      const refusal = limitRefusal(scope);
      await giveBackAll(deps, input.applicationId, r);
      await deps.repos.redemptions.transition(r.id, ['pending'], 'refused', {
        refusal: { reason: scopeKind(scope), message: refusal.details },
      });
      throw refusal;
    }
  }
  const walletDbId = r.cashbackCents > 0 ? await walletDbIdOf(deps, input.applicationId, r.cashbackWallet) : null;
  if (walletDbId) {
    await postLedgerEntry(deps, {
      applicationId: input.applicationId,
      customerId: r.customerId,
      walletDbId,
      txnId: `cashback:${r.key}`,
      type: 'credit',
      points: r.cashbackCents,
      description: `cashback: order ${r.orderId}`,
      origin: 'cashback',
    });
  }
  if (!(await deps.repos.redemptions.transition(r.id, ['pending'], 'completed'))) {
    const now = (await deps.repos.redemptions.cycles(input.applicationId, r.campaignId, r.orderId)).find((c) => c.id === r.id);
    if (now && now.state !== 'completed') {
      // A revert (or a refusing duplicate) moved it meanwhile: undo whatever this run took after it.
      await giveBackAll(deps, input.applicationId, r);
      await debitCashback(deps, input.applicationId, r);
      if (now.state === 'refused') throw validationFailed(now.refusal?.message ?? messages.TOTAL_LIMIT_EXCEEDED);
    }
  }
  return result(input, 'completed');
}

/** Worker side of redeem. */
export async function redeemCoupon(
  deps: Pick<Services, 'repos' | 'campaigns' | 'applications' | 'now'>,
  input: RedeemInput,
): Promise<ApplyResult> {
  const jobId = input.jobId ?? input.requestId;
  for (let round = 0; round < 10; round++) {
    const cycles = await deps.repos.redemptions.cycles(input.applicationId, input.campaignId, input.orderId);
    const own = cycles.find((c) => c.redeemJobId === jobId);
    if (own) {
      if (own.state === 'pending') return completeCycle(deps, input, own);
      if (own.state === 'refused') throw validationFailed(own.refusal?.message ?? messages.TOTAL_LIMIT_EXCEEDED);
      return result(input, 'completed');
    }
    const latest = cycles.at(-1);
    if (latest && latest.customerId !== input.customerId && latest.state !== 'reverted' && latest.state !== 'refused')
      throw orderOfAnotherCustomer();
    if (latest?.state === 'completed') return result(input, 'completed');
    if (latest?.state === 'pending') return completeCycle(deps, input, latest);
    if (latest?.state === 'reverting') {
      await finishRevert(deps, input.applicationId, latest);
      continue;
    }

    const { app, campaign } = await loadCampaign(deps, input.applicationId, input.campaignId);
    const now = deps.now();
    const periods = periodKeys(now, app.timezone);
    const usage = (await readUsage(deps, app.id, [campaign], input.customerId, periods, input.bulkCodeId)).get(campaign.id)!;
    const evaluation = evaluateCoupon({ now, timezone: app.timezone, campaign, usage, customerKnown: true, order: input.order });
    if (!evaluation.applicable) throw refusalOf(evaluation.reason, evaluation.message);

    const cycle = (latest?.cycle ?? 0) + 1;
    const written = await deps.repos.redemptions.insertPending({
      applicationId: input.applicationId,
      campaignId: campaign.id,
      customerId: input.customerId,
      couponCodeId: input.bulkCodeId,
      orderId: input.orderId,
      cycle,
      couponId: input.couponId,
      code: input.code,
      discountCents: evaluation.result.totalDiscountCents,
      cashbackCents: evaluation.result.totalCashbackCents,
      cashbackWallet: campaign.discount.kind === 'cashback' ? (campaign.discount.walletId ?? null) : null,
      periods,
      scopes: scopesToTake(campaign, input.customerId, periods, input.bulkCodeId),
      redeemJobId: jobId,
    });
    if (written) return completeCycle(deps, input, written);
    // A duplicate run wrote this cycle first: re-read and follow it.
  }
  throw new Error(`redeem made no progress for order ${input.orderId}`);
}

function refusalOf(reason: string, message: string): DomainError {
  return reason === 'selection' ? trayFailed(message) : validationFailed(message, reason);
}

async function finishRevert(deps: Pick<Services, 'repos'>, applicationId: string, r: RedemptionRecord) {
  await giveBackAll(deps, applicationId, r);
  await debitCashback(deps, applicationId, r);
  await deps.repos.redemptions.transition(r.id, ['reverting'], 'reverted');
}

/** Worker side of revert (decision 17: idempotent; decision 18: no rule re-check). */
export async function revertCoupon(deps: Pick<Services, 'repos'>, input: RevertInput): Promise<ApplyResult> {
  const jobId = input.jobId ?? input.requestId;
  const cycles = await deps.repos.redemptions.cycles(input.applicationId, input.campaignId, input.orderId);
  const own = cycles.find((c) => c.revertJobId === jobId);
  const counted = cycles.filter((c) => c.state !== 'refused');
  const target = own ?? counted.at(-1);
  if (!target || target.customerId !== input.customerId) throw noRedemption();
  if (target.state === 'reverted') return result(input, 'reverted');
  await deps.repos.redemptions.transition(target.id, ['completed', 'pending', 'reverting'], 'reverting', { revertJobId: jobId });
  await finishRevert(deps, input.applicationId, { ...target, state: 'reverting' });
  return result(input, 'reverted');
}
