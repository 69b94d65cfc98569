/**
 * Revert, worker side (docs/decisions.md#17: idempotent; docs/decisions.md#18: no rule re-check): give back every
 * counter the latest counted cycle took (in the periods it was redeemed in), commit `reverted`,
 * take back the cashback (or void it if it was never credited), free the lanes. Safe to re-run
 * from any line, like redeem.
 */
import type { RedemptionRecord } from '../../data/redemption-journal.repository.js';
import type { RevertInput, StackRevertInput } from '../../queue/job-payloads.js';
import type { Services } from '../../services.js';
import { changeOfCycle, clearAll, newAttempt, reserveAll, specsOf, undoAll } from '../limit-counters.js';
import { noRedemption } from '../../client-errors.js';
import type { JobRun } from '../job-run.js';
import { MAX_ROUNDS, resultOf, type ApplyResult, type StackApplyResult } from './apply-common.js';
import { cashbackRevertTxnId, revertCashback } from './cashback.js';
import { finishStackRevert, revertStackRecord, stackResult } from './stack-revert.usecase.js';

/** The counters a journaled redemption counts in. */
const countersOfCycle = (r: RedemptionRecord) => specsOf(r.applicationId, r.campaignId, r.counters);

/** Worker side of revert (see the file's header). */
export async function revertCoupon(
  deps: Pick<Services, 'repos' | 'campaigns' | 'applications' | 'wallets' | 'now' | 'config'>,
  input: RevertInput,
  run: JobRun,
): Promise<ApplyResult> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const cycles = await deps.repos.redemptions.cycles(input.applicationId, input.campaignId, input.orderId);
    const own = cycles.find((c) => c.revertJobId === run.jobId);
    const target = own ?? cycles.filter((c) => c.state !== 'refused').at(-1);
    if (!target || target.customerId !== input.customerId) throw noRedemption();
    if (target.state === 'reverted') {
      if (own) await revertCashback(deps, own); // a re-run: finish what the first run may not have
      return resultOf(input, 'reverted');
    }
    if (target.stack) {
      // Redeemed with other coupons: they all come back together (docs/stacking.md).
      const stack = (await deps.repos.redemptions.stacks(input.applicationId, input.orderId)).find((s) => s.key === target.stack);
      if (stack?.state === 'completed' && !(await revertStackRecord(deps, stack, run))) continue;
      return resultOf(input, 'reverted');
    }
    const attempt = newAttempt();
    const counters = countersOfCycle(target);
    const given = await reserveAll(deps, counters, { ...changeOfCycle(target, attempt, -1), lane: run.lane });
    if (!(await deps.repos.redemptions.commitRevert(target.key, attempt, run.jobId))) {
      await undoAll(deps, given.changed, run.lane, given.entry);
      continue; // reverted by someone else meanwhile, or this attempt was abandoned: read again
    }
    run.observe?.({ kind: 'cycle', state: 'reverted', cycle: target });
    const [posted] = await Promise.all([revertCashback(deps, target), clearAll(deps, given.changed, run.lane, given.entry)]);
    if (target.cashbackCents > 0) run.observe?.({ kind: 'ledger', txnId: cashbackRevertTxnId(target.key), posted });
    return resultOf(input, 'reverted');
  }
  throw new Error(`revert made no progress for order ${input.orderId}`);
}

/**
 * The revert of an application that stacks (docs/stacking.md): the order's live stack, whichever
 * of its coupons the request names; without one, the one coupon named, as for any application.
 */
export async function revertOrder(
  deps: Pick<Services, 'repos' | 'campaigns' | 'applications' | 'wallets' | 'now' | 'config'>,
  input: StackRevertInput,
  run: JobRun,
): Promise<ApplyResult | StackApplyResult> {
  const first = input.entries[0]!;
  const request = { orderId: input.orderId, requestId: input.requestId, first: { couponId: first.couponId, code: first.code } };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const stacks = await deps.repos.redemptions.stacks(input.applicationId, input.orderId);
    const own = stacks.find((s) => s.revertJobId === run.jobId);
    if (own) {
      await finishStackRevert(deps, own, run); // a re-run: finish what the first run may not have
      return stackResult(own, request, 'reverted');
    }
    const target = stacks.filter((s) => s.state !== 'refused').at(-1);
    if (target?.state === 'completed') {
      if (target.customerId !== input.customerId) throw noRedemption();
      if (await revertStackRecord(deps, target, run)) return stackResult(target, request, 'reverted');
      continue; // reverted meanwhile: read again
    }
    if (input.entries.length === 1) {
      const { entries: _, ...rest } = input;
      return revertCoupon(
        deps,
        { ...rest, campaignId: first.campaignId, bulkCodeId: first.bulkCodeId, couponId: first.couponId, code: first.code },
        run,
      );
    }
    if (target?.state === 'reverted' && target.customerId === input.customerId) return stackResult(target, request, 'reverted');
    throw noRedemption();
  }
  throw new Error(`revert made no progress for order ${input.orderId}`);
}
