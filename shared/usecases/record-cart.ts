/**
 * What a request records of its cart, for an application that records carts (docs/results.md
 * "Recorded carts" and "The order of a replay"): a redeem job's, recorded by the worker after the
 * job's use case; a validate's outcomes, recorded by the API.
 */
import type { RecordedOutcome } from '../data/recorded-cart.repository.js';
import type { Evaluation } from '../domain/engine.js';
import type { StackResult } from '../domain/stacking.js';
import type { Outcome } from '../queue/outcome.js';
import type { Services } from '../services.js';
import type { Committed } from './job-run.js';

/** A redeem job's cart: the single coupon's or the stack's. */
export interface RedeemCart {
  applicationId: string;
  customerId: string;
  orderId: string;
  order: unknown;
  /** The coupons it named (a stack's automatic promotions are not named). */
  entries: readonly { campaignId: string; code: string }[];
}

/**
 * Records a finished redeem job's cart. Its place in the record (`t`) is what a replay orders by:
 *  - redeemed: `startedAt`, taken before the job ran — before any counter was taken;
 *  - refused: now, after the refusal came back — after the counters that refused were read.
 * So a redeem whose take filled a counter is always before every redeem that counter refused
 * (docs/results.md "The order of a replay"). Its id is derived from what it decided (the committed
 * cycle, or the job), so a job run twice records its cart once. A job that found its order
 * redeemed already (a repeat) decided nothing and records nothing.
 */
export async function recordRedeem(
  deps: Pick<Services, 'carts' | 'applications' | 'now'>,
  cart: RedeemCart,
  jobId: string,
  startedAt: Date,
  outcome: Outcome<unknown>,
  observed: readonly Committed[],
): Promise<void> {
  const app = await deps.applications.get(cart.applicationId);
  if (!app?.cartRecording.enabled) return;
  const base = {
    kind: 'r' as const,
    customerId: cart.customerId,
    order: cart.order,
    codes: cart.entries.map((e) => e.code),
    orderId: cart.orderId,
  };
  if (!outcome.ok) {
    const r = outcome.error.extra.reason ?? 'refused';
    const outcomes: RecordedOutcome[] = cart.entries.map((e) => ({ cp: e.campaignId, ok: false, r, k: e.code }));
    deps.carts.record(app, { ...base, id: `R${jobId}`, at: deps.now(), outcomes });
    return;
  }
  const cycles = observed.flatMap((c) => (c.kind === 'cycle' && c.state === 'completed' ? [c.cycle] : []));
  if (cycles.length === 0) return;
  const outcomes: RecordedOutcome[] = cycles.map((c) => {
    const code = cart.entries.find((e) => e.campaignId === c.campaignId)?.code;
    return {
      cp: c.campaignId,
      ok: true,
      d: c.discountCents,
      cb: c.cashbackCents,
      ...(c.basketCents ? { b: c.basketCents } : {}),
      ...(code !== undefined ? { k: code } : {}),
    };
  });
  deps.carts.record(app, { ...base, id: `A${cycles[0]!.key}`, at: startedAt, outcomes });
}

/** What an evaluation of one campaign, named by `code`, said, as a recorded cart keeps it. */
export function outcomeOf(campaignId: string, code: string, evaluation: Evaluation): RecordedOutcome {
  if (!evaluation.applicable) return { cp: campaignId, ok: false, r: evaluation.reason, k: code };
  const basket = evaluation.order?.sellingSubtotalCents ?? 0;
  return {
    cp: campaignId,
    ok: true,
    d: evaluation.result.totalDiscountCents,
    cb: evaluation.result.totalCashbackCents,
    ...(basket ? { b: basket } : {}),
    k: code,
  };
}

/** What a stack said of each coupon named (automatic promotions: only those it applied). */
export function outcomesOfStack(
  coupons: readonly { campaign: { id: string }; entry: number | null; code: string }[],
  stack: Pick<StackResult, 'coupons' | 'order'>,
): RecordedOutcome[] {
  const basket = stack.order?.sellingSubtotalCents ?? 0;
  return stack.coupons.flatMap((s): RecordedOutcome[] => {
    const c = coupons[s.candidate]!;
    const k = c.entry === null ? {} : { k: c.code };
    if (s.refusal) return c.entry === null ? [] : [{ cp: c.campaign.id, ok: false, r: s.refusal.reason, ...k }];
    return [{ cp: c.campaign.id, ok: true, d: s.discountCents, cb: s.cashbackCents, ...(basket ? { b: basket } : {}), ...k }];
  });
}

/**
 * Records a finished revert job's cycles (`u`, the undo of a recorded redeem), for an application
 * that records carts: a replay gives back what their orders took. Stamped now, after the give-back
 * came back: a redeem refused while the unit was still taken stays before it (docs/results.md
 * "The order of a replay"). One record per reverted cycle, named after it: a job run twice records
 * it once; a revert that found nothing to revert records nothing.
 */
export async function recordRevert(
  deps: Pick<Services, 'carts' | 'applications' | 'now'>,
  job: { applicationId: string; customerId: string; orderId: string },
  outcome: Outcome<unknown>,
  observed: readonly Committed[],
): Promise<void> {
  if (!outcome.ok) return;
  const cycles = observed.flatMap((c) => (c.kind === 'cycle' && c.state === 'reverted' ? [c.cycle] : []));
  if (cycles.length === 0) return;
  const app = await deps.applications.get(job.applicationId);
  if (!app?.cartRecording.enabled) return;
  const outcomes: RecordedOutcome[] = cycles.map((c) => ({ cp: c.campaignId, ok: true, d: c.discountCents, cb: c.cashbackCents }));
  deps.carts.record(app, {
    id: `U${cycles[0]!.key}`,
    kind: 'u',
    at: deps.now(),
    customerId: job.customerId,
    order: null,
    orderId: job.orderId,
    outcomes,
  });
}
