/**
 * Redeem and revert (`POST /coupons/apply`).
 *
 * `prepareApply` runs in the API: the documented 400s, the customer and the coupon, before
 * anything is queued. `redeemCoupon` / `revertCoupon` run in a worker, one operation per customer
 * at a time, and are written to be re-run from any line (BullMQ delivers at least once), even
 * while a stale run of the same job overlaps (a lost lock):
 *
 *  redeem: evaluate the rules; take every limit counter (limit-counters.ts: guarded updates that
 *          record the change in the worker's lane); commit the cycle in the journal — the one
 *          point that decides, so an attempt that does not commit gives back what it took; credit
 *          the cashback (its ledger txn id is derived from the cycle, so it posts once); free the
 *          lanes. A refusal at the counters is journaled too, so overlapping runs agree.
 *  revert: give back the counters of the latest counted cycle (in the periods it was redeemed
 *          in), commit `reverted`, take back the cashback (or void it if it was never credited),
 *          free the lanes.
 * No multi-document transactions: every change is a single-document update, and the journal's
 * commit decides which attempt's changes stand.
 */
import type { ApplicationRecord } from '../data/application.repository.js';
import { codeCounterId, customerCounterId, campaignCounterId, type PeriodKeys } from '../data/limit-counter.repository.js';
import { redemptionKey, type CycleFields, type RedemptionRecord } from '../data/redemption-journal.repository.js';
import { evaluateCoupon, limitRefusal } from '../domain/engine.js';
import { periodKeys } from '../domain/periods.js';
import type { Campaign, UsageCounts } from '../domain/types.js';
import type { DomainError } from '../errors.js';
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
import { clearAll, countersFor, newAttempt, readUsage, reserveAll, specsOf, undoAll, usageFrom, type Refused } from './limit-counters.js';
import { postLedgerEntry, voidEntry, type Posting } from './wallet-ledger.js';

interface ApplyInputBase {
  applicationId: string;
  customerId: string;
  /** The customer's `source_id`, for its events (absent in jobs queued by an earlier release). */
  sourceId?: string;
  campaignId: string;
  bulkCodeId: string | null;
  /** `coupon_id` as sent (echoed as `couponId`). */
  couponId: string;
  /** The code as configured (echoed as `coupon_code`). */
  code: string;
  orderId: string;
  requestId: string;
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
  const [customer, found] = await Promise.all([
    deps.repos.customers.resolve(app.id, (body.source_id as string).trim()),
    findCoupon(deps, app, detail),
  ]);
  if (!customer) throw invalidSourceId();
  if (!found) throw couponNotFound();
  if (found.campaign.assignment === 'assigned_users' && !found.campaign.assignedCustomerIds.includes(customer.id)) throw couponNotFound();
  const base: ApplyInputBase = {
    applicationId: app.id,
    customerId: customer.id,
    sourceId: customer.sourceId,
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

/** How a worker runs a job: its id (a re-run finds its own work) and its lane (the partition). */
export interface JobRun {
  jobId: string;
  lane: string;
  /**
   * Told what this run commits, when it commits it (the worker records the change's events from
   * it without reading the journals back). A run that finds its work done and returns early
   * tells nothing: the journals say it.
   */
  observe?: (committed: Committed) => void;
}

/** What a run committed (see {@link JobRun.observe}). */
export type Committed =
  /** A cycle this run committed `completed` (redeem) or `reverted` (revert). */
  | { kind: 'cycle'; state: 'completed' | 'reverted'; cycle: CommittedCycle }
  /** What this run posted to the ledger under `txnId`; null: nothing (no wallet, never credited, voided). */
  | { kind: 'ledger'; txnId: string; posted: Posting | null };
export type CommittedCycle = Pick<
  RedemptionRecord,
  'key' | 'orderId' | 'campaignId' | 'couponId' | 'code' | 'cycle' | 'discountCents' | 'cashbackCents' | 'cashbackWallet'
>;

const MAX_ROUNDS = 10;
const ZERO_USAGE: UsageCounts = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };

async function loadCampaign(deps: Pick<Services, 'applications' | 'campaigns'>, applicationId: string, campaignId: string) {
  const app = await deps.applications.get(applicationId);
  if (!app) throw couponNotFound();
  const campaign = (await deps.campaigns.get(app)).byId.get(campaignId);
  if (!campaign) throw couponNotFound();
  return { app, campaign };
}

const refusalOf = (reason: string, message: string): DomainError =>
  reason === 'selection' ? trayFailed(message) : validationFailed(message, reason);

/** What an order's existing cycles decide for a redeem, before anything is counted. */
type Decision = { done: ApplyResult; own: RedemptionRecord | null } | { refuse: DomainError } | { cycle: number };

function decide(input: RedeemInput, cycles: RedemptionRecord[], jobId: string): Decision {
  const own = cycles.find((c) => c.redeemJobId === jobId);
  if (own?.state === 'refused') return { refuse: validationFailed(own.refusal!.message, own.refusal!.reason) };
  if (own) return { done: result(input, 'completed'), own };
  const latest = cycles.at(-1);
  if (latest && latest.customerId !== input.customerId && latest.state !== 'reverted' && latest.state !== 'refused')
    return { refuse: orderOfAnotherCustomer() };
  if (latest && latest.state !== 'reverted' && latest.state !== 'refused') return { done: result(input, 'completed'), own: null }; // decision 17
  return { cycle: (latest?.cycle ?? 0) + 1 };
}

/** Counter ids of a legacy cycle's scopes (`total`, `day:…`, `customer:<id>`, `code:<id>`). */
export function legacyCounterIds(campaignId: string, scopes: string[]): string[] {
  const ids = scopes.map((scope) => {
    const [kind, id] = [scope.slice(0, scope.indexOf(':') < 0 ? scope.length : scope.indexOf(':')), scope.slice(scope.indexOf(':') + 1)];
    if (kind === 'customer') return customerCounterId(campaignId, id);
    if (kind === 'code') return codeCounterId(campaignId, id);
    return campaignCounterId(campaignId);
  });
  return [...new Set(ids)];
}

/**
 * Worker side of redeem (docs/architecture.md, "Redeem"): evaluate the rules (the counters
 * arbitrate the limits), take every counter at once, commit the cycle in the journal, credit the
 * cashback, free the lanes. In the common case the order's cycles are not even read: cycle 1 is
 * assumed and the commit tells whether it was right. Safe to re-run from any line.
 */
export async function redeemCoupon(
  deps: Pick<Services, 'repos' | 'campaigns' | 'applications' | 'wallets' | 'now'>,
  input: RedeemInput,
  run: JobRun,
): Promise<ApplyResult> {
  let cycle = 1;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { app, campaign } = await loadCampaign(deps, input.applicationId, input.campaignId);
    const now = deps.now();
    const periods = periodKeys(now, app.timezone);
    const evaluation = evaluateCoupon({
      now,
      timezone: app.timezone,
      campaign,
      usage: ZERO_USAGE,
      customerKnown: true,
      order: input.order,
    });
    if (!evaluation.applicable) {
      // A rule fails. An order already redeemed stays redeemed (decision 17); otherwise the refusal
      // must be the one validate would give, limits first (decision 20a): read the real usage.
      const [cycles, usage] = await Promise.all([
        deps.repos.redemptions.cycles(input.applicationId, campaign, input.orderId),
        readUsage(deps, app.id, [campaign], input.customerId, periods, input.bulkCodeId),
      ]);
      const d = decide(input, cycles, run.jobId);
      if ('done' in d) return d.done;
      if ('refuse' in d) throw d.refuse;
      const real = evaluateCoupon({
        now,
        timezone: app.timezone,
        campaign,
        usage: usage.get(campaign.id)!,
        customerKnown: true,
        order: input.order,
      });
      throw real.applicable ? refusalOf(evaluation.reason, evaluation.message) : refusalOf(real.reason, real.message);
    }

    const key = redemptionKey(campaign, input.orderId, cycle);
    const attempt = newAttempt();
    const counters = countersFor(campaign, input.applicationId, input.customerId, input.bulkCodeId);
    const fields: CycleFields = {
      applicationId: input.applicationId,
      campaignId: campaign.id,
      customerId: input.customerId,
      couponCodeId: input.bulkCodeId,
      orderId: input.orderId,
      cycle,
      key,
      couponId: input.couponId,
      code: input.code,
      discountCents: evaluation.result.totalDiscountCents,
      cashbackCents: evaluation.result.totalCashbackCents,
      cashbackWallet: campaign.discount.kind === 'cashback' ? (campaign.discount.walletId ?? null) : null,
      periods,
      counters: counters.map((c) => c.id),
      refusal: null,
      redeemJobId: run.jobId,
    };
    const taken = await reserveAll(deps, counters, { lane: run.lane, key, attempt, step: 1, periods });
    if (taken.refused.length > 0) {
      await undoAll(deps, taken.changed, run.lane, taken.entry);
      const d = decide(input, await deps.repos.redemptions.cycles(input.applicationId, campaign, input.orderId), run.jobId);
      if ('done' in d) return d.done;
      if ('refuse' in d) throw d.refuse;
      if (d.cycle !== cycle) {
        cycle = d.cycle;
        continue;
      }
      const refused = refusalAt(campaign, taken.refused, periods);
      if (!refused) continue; // freed meanwhile (a revert): try again
      // Journaled, so that a run of this job overlapping this one (a lost lock) reaches the same answer.
      const reason = { reason: refused.reason, message: refused.message };
      if (await deps.repos.redemptions.commitCycle({ ...fields, counters: [] }, attempt, 'refused', reason))
        throw refusalOf(reason.reason, reason.message);
      continue; // the cycle was written meanwhile: follow it
    }
    if (!(await deps.repos.redemptions.commitCycle(fields, attempt, 'completed'))) {
      // The cycle exists (a repeat, a re-run, a redeem after a revert) or this attempt was
      // abandoned by a settle: give back what it took and follow the journal.
      await undoAll(deps, taken.changed, run.lane, taken.entry);
      const d = decide(input, await deps.repos.redemptions.cycles(input.applicationId, campaign, input.orderId), run.jobId);
      if ('refuse' in d) throw d.refuse;
      if ('done' in d) {
        if (d.own) await creditCashback(deps, d.own); // a re-run: finish what the first run may not have
        return d.done;
      }
      cycle = d.cycle;
      continue;
    }
    run.observe?.({ kind: 'cycle', state: 'completed', cycle: fields });
    const [posted] = await Promise.all([
      fields.cashbackCents > 0 ? creditCashback(deps, fields) : null,
      clearAll(deps, taken.changed, run.lane, taken.entry),
    ]);
    if (fields.cashbackCents > 0) run.observe?.({ kind: 'ledger', txnId: cashbackTxnId(key), posted });
    return result(input, 'completed');
  }
  throw new Error(`redeem made no progress for order ${input.orderId}`);
}

/** The refusal of the counters that refused a take, in the engine's order; null if none is reached now. */
function refusalAt(campaign: Campaign, refused: Refused[], periods: PeriodKeys) {
  const doc = (kind: string) => refused.find((r) => r.spec.kind === kind)?.doc;
  const usage = usageFrom(doc('campaign'), doc('customer'), periods, { bulkCode: doc('code'), hasBulkCode: !!doc('code') });
  const evaluation = limitRefusal(campaign, usage, true);
  return evaluation && !evaluation.applicable ? evaluation : null;
}

const cashbackTxnId = (key: string) => `cashback:${key}`;
const cashbackRevertTxnId = (key: string) => `cashback-revert:${key}`;

async function cashbackWalletOf(deps: Pick<Services, 'wallets'>, applicationId: string, walletId: string | null) {
  return walletId ? ((await deps.wallets.get(`${applicationId}:${walletId}`))?.id ?? null) : null;
}

/** Posts an entry and keeps what was asked with what happened. */
const posting = async (deps: Pick<Services, 'repos'>, input: Posting['input']): Promise<Posting> => ({
  input,
  result: await postLedgerEntry(deps, input),
});

/**
 * Credits a committed redemption's cashback (decision 20). Idempotent (its txnId); a no-op once
 * voided by a revert. Returns what it posted (null: no cashback wallet).
 */
async function creditCashback(
  deps: Pick<Services, 'repos' | 'wallets'>,
  r: Pick<RedemptionRecord, 'applicationId' | 'customerId' | 'key' | 'orderId' | 'cashbackCents' | 'cashbackWallet'>,
): Promise<Posting | null> {
  const walletDbId = r.cashbackCents > 0 ? await cashbackWalletOf(deps, r.applicationId, r.cashbackWallet) : null;
  if (!walletDbId) return null;
  return posting(deps, {
    applicationId: r.applicationId,
    customerId: r.customerId,
    walletDbId,
    txnId: cashbackTxnId(r.key),
    type: 'credit',
    points: r.cashbackCents,
    description: `cashback: order ${r.orderId}`,
    origin: 'cashback',
  });
}

/**
 * Takes back a reverted redemption's cashback. If it was never credited, voids its txnId first so
 * that a late credit (a re-run of the redeem) can never post it; else debits what was credited, at
 * most the balance (it may have been spent). Idempotent. Returns the debit (null: none).
 */
async function revertCashback(deps: Pick<Services, 'repos' | 'wallets'>, r: RedemptionRecord): Promise<Posting | null> {
  const walletDbId = r.cashbackCents > 0 ? await cashbackWalletOf(deps, r.applicationId, r.cashbackWallet) : null;
  if (!walletDbId) return null;
  const entry = { applicationId: r.applicationId, customerId: r.customerId, walletDbId, origin: 'cashback_revert' as const };
  if (await voidEntry(deps, { ...entry, txnId: cashbackTxnId(r.key), description: `cashback voided: order ${r.orderId}` })) return null;
  const credit = await deps.repos.walletTransactions.findByTxnId(r.applicationId, r.customerId, cashbackTxnId(r.key));
  if (!credit || credit.stored === 'refused' || credit.stored === 'void') return null;
  return posting(deps, {
    ...entry,
    txnId: cashbackRevertTxnId(r.key),
    type: 'debit',
    points: credit.points,
    description: `cashback reverted: order ${r.orderId}`,
    clampToBalance: true,
  });
}

/** The counters a journaled redemption counts in (legacy cycles name scopes instead). */
function countersOfCycle(r: RedemptionRecord) {
  const ids = r.legacyScopes ? legacyCounterIds(r.campaignId, r.legacyScopes) : r.counters;
  return specsOf(r.applicationId, r.campaignId, ids);
}

/**
 * Worker side of revert (decision 17: idempotent; decision 18: no rule re-check): give back every
 * counter the cycle took (in the periods it was redeemed in), commit `reverted`, take back the
 * cashback, free the lanes.
 */
export async function revertCoupon(
  deps: Pick<Services, 'repos' | 'wallets' | 'applications' | 'campaigns'>,
  input: RevertInput,
  run: JobRun,
): Promise<ApplyResult> {
  // Its key scheme, from the cache (a campaign with redemptions is never deleted; archived ones are cached too).
  const { campaign } = await loadCampaign(deps, input.applicationId, input.campaignId);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const cycles = await deps.repos.redemptions.cycles(input.applicationId, campaign, input.orderId);
    const own = cycles.find((c) => c.revertJobId === run.jobId);
    const target = own ?? cycles.filter((c) => c.state !== 'refused').at(-1);
    if (!target || target.customerId !== input.customerId) throw noRedemption();
    if (target.state === 'reverted') {
      if (own) await revertCashback(deps, own); // a re-run: finish what the first run may not have
      return result(input, 'reverted');
    }
    const attempt = newAttempt();
    const counters = countersOfCycle(target);
    const given = await reserveAll(deps, counters, { lane: run.lane, key: target.key, attempt, step: -1, periods: target.periods });
    if (!(await deps.repos.redemptions.commitRevert(target.key, attempt, run.jobId))) {
      await undoAll(deps, given.changed, run.lane, given.entry);
      continue; // reverted by someone else meanwhile, or this attempt was abandoned: read again
    }
    run.observe?.({ kind: 'cycle', state: 'reverted', cycle: target });
    const [posted] = await Promise.all([revertCashback(deps, target), clearAll(deps, given.changed, run.lane, given.entry)]);
    if (target.cashbackCents > 0) run.observe?.({ kind: 'ledger', txnId: cashbackRevertTxnId(target.key), posted });
    return result(input, 'reverted');
  }
  throw new Error(`revert made no progress for order ${input.orderId}`);
}
