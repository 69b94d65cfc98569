/**
 * Redeem, worker side (docs/architecture.md, "Redeem"): written to be re-run from any line
 * (BullMQ delivers at least once), even while a stale run of the same job overlaps (a lost lock).
 * Evaluate the rules; take every limit counter (limit-counters.ts: guarded updates that record the
 * change in the worker's lane); commit the cycle in the journal — the one point that decides, so
 * an attempt that does not commit gives back what it took; credit the cashback (its ledger txn id
 * is derived from the cycle, so it posts once); free the lanes. A refusal at the counters is
 * journaled too, so overlapping runs agree. No multi-document transactions: every change is a
 * single-document update, and the journal's commit decides which attempt's changes stand.
 */
import { customerTiers } from '../customer-tiers.js';
import type { PeriodKeys } from '../../data/limit-counter.repository.js';
import { redemptionKey, type CycleFields, type RedemptionRecord } from '../../data/redemption-journal.repository.js';
import { budgetCents, budgetLeft, capResult, withinBudget, type BudgetLeft } from '../../domain/budget.js';
import type { DiscountResult } from '../../domain/discount.js';
import { evaluateCoupon, limitRefusal, type Refusal } from '../../domain/engine.js';
import { localParts, periodKeys } from '../../domain/periods.js';
import type { Campaign, UsageCounts } from '../../domain/types.js';
import type { DomainError } from '../../errors.js';
import type { RedeemInput } from '../../queue/job-payloads.js';
import type { Services } from '../../services.js';
import {
  changeOfCycle,
  clearAll,
  countersFor,
  newAttempt,
  readUsage,
  reserveAll,
  resultsCounter,
  undoAll,
  usageFrom,
  type Refused,
} from '../limit-counters.js';
import { orderOfAnotherCustomer, refusalOf } from '../../client-errors.js';
import type { JobRun } from '../job-run.js';
import { loadCampaign, MAX_ROUNDS, resultOf, type ApplyResult } from './apply-common.js';
import { cashbackTxnId, creditCashback } from './cashback.js';

const ZERO_USAGE: UsageCounts = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };

/**
 * What an order's existing cycles decide for a redeem, before anything is counted — a pure
 * decision the redeem carries out: done (this job's own cycle, or the order is redeemed already:
 * docs/decisions.md#17), refused (this job's journaled refusal; another customer's order), or the
 * cycle to commit (the next after a revert or a refusal).
 */
export type RedeemDecision = { done: ApplyResult; own: RedemptionRecord | null } | { refuse: DomainError } | { cycle: number };

export function decideRedeem(input: RedeemInput, cycles: RedemptionRecord[], jobId: string): RedeemDecision {
  const own = cycles.find((c) => c.redeemJobId === jobId);
  if (own?.state === 'refused') return { refuse: refusalOf(own.refusal!.reason, own.refusal!.message) };
  if (own) return { done: resultOf(input, 'completed'), own };
  const latest = cycles.at(-1);
  if (latest && latest.customerId !== input.customerId && latest.state !== 'reverted' && latest.state !== 'refused')
    return { refuse: orderOfAnotherCustomer() };
  if (latest && latest.state !== 'reverted' && latest.state !== 'refused') return { done: resultOf(input, 'completed'), own: null }; // docs/decisions.md#17
  return { cycle: (latest?.cycle ?? 0) + 1 };
}

/**
 * Worker side of redeem (docs/architecture.md, "Redeem"): evaluate the rules (the counters
 * arbitrate the limits), take every counter at once, commit the cycle in the journal, credit the
 * cashback, free the lanes. In the common case the order's cycles are not even read: cycle 1 is
 * assumed and the commit tells whether it was right. Safe to re-run from any line.
 */
export async function redeemCoupon(
  deps: Pick<Services, 'repos' | 'campaigns' | 'applications' | 'wallets' | 'now' | 'config'>,
  input: RedeemInput,
  run: JobRun,
): Promise<ApplyResult> {
  let cycle = 1;
  let capTo: number | null = null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { app, campaign } = await loadCampaign(deps, input);
    const now = deps.now();
    const periods = periodKeys(now, app.timezone);
    const tiers = await customerTiers(deps, app.id, input.customerId, [campaign]);
    const evaluation = evaluateCoupon({
      now,
      timezone: app.timezone,
      campaign,
      usage: ZERO_USAGE,
      customerKnown: true,
      order: input.order,
      ...(tiers ? { customerTiers: tiers } : {}),
    });
    if (!evaluation.applicable) {
      // A rule fails. An order already redeemed stays redeemed (docs/decisions.md#17); otherwise the refusal
      // must be the one validate would give, limits first (docs/decisions.md#20a): read the real usage.
      const [cycles, usage] = await Promise.all([
        deps.repos.redemptions.cycles(input.applicationId, campaign.id, input.orderId),
        readUsage(deps, app.id, [campaign], input.customerId, periods, input.bulkCodeId),
      ]);
      const d = decideRedeem(input, cycles, run.jobId);
      if ('done' in d) return d.done;
      if ('refuse' in d) throw d.refuse;
      const real = evaluateCoupon({
        now,
        timezone: app.timezone,
        campaign,
        usage: usage.get(campaign.id)!,
        customerKnown: true,
        order: input.order,
        ...(tiers ? { customerTiers: tiers } : {}),
      });
      throw real.applicable ? refusalOf(evaluation.reason, evaluation.message) : refusalOf(real.reason, real.message);
    }

    // A budget that had less left than asked, with `cap`: this round asks what was left (docs/budgets.md).
    const result = capTo === null ? evaluation.result : capResult(evaluation.result, capTo, evaluation.order?.sellingSubtotalCents ?? 0);
    const cents = campaign.budget ? budgetCents(result) : 0;
    const key = redemptionKey(campaign.id, input.orderId, cycle);
    const attempt = newAttempt();
    const counters = countersFor(campaign, input.applicationId, input.customerId, input.bulkCodeId);
    // Counted in the campaign's results of this local day and hour (docs/results.md), unless this worker counts none.
    const hour = deps.config.resultsCounters ? localParts(now, app.timezone).hour : undefined;
    if (hour !== undefined) counters.push(resultsCounter(campaign, input.applicationId, periods.day));
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
      discountCents: result.totalDiscountCents,
      cashbackCents: result.totalCashbackCents,
      ...(cents ? { budgetCents: cents } : {}),
      ...(evaluation.order?.sellingSubtotalCents ? { basketCents: evaluation.order.sellingSubtotalCents } : {}),
      ...(hour !== undefined ? { hour } : {}),
      ...(result.freeGifts?.length ? { gifts: result.freeGifts } : {}),
      cashbackWallet: campaign.discount.kind === 'cashback' ? (campaign.discount.walletId ?? null) : null,
      periods,
      counters: counters.map((c) => c.id),
      refusal: null,
      redeemJobId: run.jobId,
    };
    const taken = await reserveAll(deps, counters, { ...changeOfCycle(fields, attempt, 1), lane: run.lane });
    if (taken.refused.length > 0) {
      await undoAll(deps, taken.changed, run.lane, taken.entry);
      const d = decideRedeem(input, await deps.repos.redemptions.cycles(input.applicationId, campaign.id, input.orderId), run.jobId);
      if ('done' in d) return d.done;
      if ('refuse' in d) throw d.refuse;
      if (d.cycle !== cycle) {
        cycle = d.cycle;
        continue;
      }
      const refused = refusalAt(campaign, taken.refused, periods, result);
      if (!refused) continue; // freed meanwhile (a revert): try again
      if ('capTo' in refused) {
        capTo = refused.capTo; // less left than asked, and the campaign caps: ask for what is left
        continue;
      }
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
      const d = decideRedeem(input, await deps.repos.redemptions.cycles(input.applicationId, campaign.id, input.orderId), run.jobId);
      if ('refuse' in d) throw d.refuse;
      if ('done' in d) {
        if (d.own) await creditCashback(deps, d.own, campaign.discount.cashbackPending ?? null); // a re-run: finish what the first run may not have
        return d.own ? grantedOf(campaign, d.own, d.done) : d.done;
      }
      cycle = d.cycle;
      continue;
    }
    run.observe?.({ kind: 'cycle', state: 'completed', cycle: fields });
    const [posted] = await Promise.all([
      fields.cashbackCents > 0 ? creditCashback(deps, fields, campaign.discount.cashbackPending ?? null) : null,
      clearAll(deps, taken.changed, run.lane, taken.entry),
    ]);
    if (fields.cashbackCents > 0) run.observe?.({ kind: 'ledger', txnId: cashbackTxnId(key), posted });
    return grantedOf(campaign, fields, resultOf(input, 'completed'));
  }
  throw new Error(`redeem made no progress for order ${input.orderId}`);
}

/** The usage the counters that refused a take show. */
function usageAt(campaign: Campaign, refused: Refused[], periods: PeriodKeys): UsageCounts {
  const doc = (kind: string) => refused.find((r) => r.spec.kind === kind)?.doc;
  return usageFrom(doc('campaign'), doc('customer'), periods, {
    bulkCode: doc('code'),
    hasBulkCode: !!doc('code'),
    budget: !!campaign.budget,
  });
}

/** What is left of a budgeted campaign's budget by the counters that refused a take (a campaign without one: nothing). */
export const budgetLeftAt = (campaign: Campaign, refused: Refused[], periods: PeriodKeys): BudgetLeft =>
  budgetLeft(campaign.budget, usageAt(campaign, refused, periods).spent, true) ?? { cents: 0, cap: 'total' };

/**
 * What the counters that refused a take decide, in the engine's order: a limit's refusal; for a
 * budget with less left than `result` asks, its refusal or (`cap`) the amount to ask instead; null
 * when none is reached now (freed meanwhile).
 */
export function refusalAt(
  campaign: Campaign,
  refused: Refused[],
  periods: PeriodKeys,
  result: DiscountResult,
): Refusal | { capTo: number } | null {
  const usage = usageAt(campaign, refused, periods);
  const evaluation = limitRefusal(campaign, usage, true);
  if (evaluation && !evaluation.applicable) return evaluation;
  const fitted = withinBudget(campaign, result, budgetLeft(campaign.budget, usage.spent, true), 0);
  if (!('result' in fitted)) return fitted;
  return fitted.capped ? { capTo: budgetCents(fitted.result) } : null;
}

/**
 * A redeem's answer for a campaign with a budget: the amounts granted beside the contract's result
 * (the API sends them as headers, never in the body: docs/budgets.md) — with `cap` they can be
 * less than validate showed.
 */
function grantedOf(campaign: Campaign, cycle: Pick<CycleFields, 'discountCents' | 'cashbackCents'>, result: ApplyResult): ApplyResult {
  if (!campaign.budget) return result;
  return { ...result, granted: { discountCents: cycle.discountCents, cashbackCents: cycle.cashbackCents } };
}
