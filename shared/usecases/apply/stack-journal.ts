/**
 * Several coupons redeemed on one order, journal side (docs/stacking.md, docs/architecture.md
 * "Several coupons"): the stack record is the one commit point of every coupon's counters (their
 * lanes name its attempt, `<id>~<n>`: limit-counters.ts `settle` asks the stack record), and it
 * carries every cycle's fields. Once it is committed, any run writes the cycles from it — the
 * committing run, a re-run after a crash, a revert — so that a stack is either wholly counted and
 * journaled or not at all, without multi-document transactions.
 */
import { changeOfCycle, laneEntry, specsOf } from '../limit-counters.js';
import type { CycleFields, StackRecord } from '../../data/redemption-journal.repository.js';
import { fromCents } from '../../domain/money.js';
import type { Services } from '../../services.js';
import type { JobRun } from '../job-run.js';
import { resultOf, type ApplyResult, type StackApplyResult } from './apply-common.js';
import { cashbackRevertTxnId, cashbackTxnId, creditCashback, revertCashback } from './cashback.js';

type Deps = Pick<Services, 'repos' | 'campaigns' | 'applications' | 'wallets' | 'now'>;

/** The counters of one cycle and the lane entry its stack attempt wrote on them. */
export const lanesOf = (c: CycleFields, attempt: string, step: 1 | -1) => ({
  specs: specsOf(c.applicationId, c.campaignId, c.counters),
  entry: laneEntry(changeOfCycle(c, attempt, step)),
});

/** Frees the lanes a committed stack attempt holds (idempotent). */
export async function clearStackLanes(deps: Pick<Services, 'repos'>, stack: StackRecord, attempt: string, step: 1 | -1, lane: string) {
  await Promise.all(
    stack.cycles.map((c) => {
      const { specs, entry } = lanesOf(c, attempt, step);
      return Promise.all(specs.map((s) => deps.repos.limitCounters.clear(s.id, lane, entry)));
    }),
  );
}

/** The campaign's own pending period for a cycle's cashback, as this worker sees the campaign. */
async function pendingOf(deps: Pick<Services, 'applications' | 'campaigns'>, c: CycleFields) {
  const app = await deps.applications.get(c.applicationId);
  const campaign = app ? (await deps.campaigns.get(app)).byId.get(c.campaignId) : undefined;
  return campaign?.discount.cashbackPending ?? null;
}

/**
 * Writes a committed stack's cycles and credits their cashback (idempotent: a cycle already
 * written under the stack's attempt is left as it is; the cashback's txn id derives from the
 * cycle). `observe`: this run committed the stack just now, so it tells what it wrote.
 */
export async function writeStackCycles(deps: Deps, stack: StackRecord, run: JobRun | null): Promise<void> {
  const written = await Promise.all(
    stack.cycles.map(async (c) => {
      const wrote = await deps.repos.redemptions.commitCycle({ ...c, stack: stack.key }, stack.attempt, 'completed');
      const posted = c.cashbackCents > 0 ? await creditCashback(deps, c, await pendingOf(deps, c)) : undefined;
      return { wrote, posted };
    }),
  );
  // Told in the stack's order, not the order the writes finished in: its events follow the order
  // the coupons were computed (docs/events.md), each cycle's cashback after it.
  stack.cycles.forEach((c, i) => {
    const { wrote, posted } = written[i]!;
    if (!wrote) return;
    run?.observe?.({ kind: 'cycle', state: 'completed', cycle: c });
    if (posted) run?.observe?.({ kind: 'ledger', txnId: cashbackTxnId(c.key), posted });
  });
}

/** Moves a reverted stack's cycles to `reverted` and takes their cashback back (idempotent). */
export async function revertStackCycles(deps: Deps, stack: StackRecord, run: JobRun | null): Promise<void> {
  const attempt = stack.revertAttempt!;
  const moves = await Promise.all(
    stack.cycles.map(async (c) => {
      // The cycle may not be written yet (its redeem died after the commit): write it first.
      await deps.repos.redemptions.commitCycle({ ...c, stack: stack.key }, stack.attempt, 'completed');
      const moved = await deps.repos.redemptions.commitRevert(c.key, attempt, stack.revertJobId!);
      return { moved, posted: await revertCashback(deps, c) };
    }),
  );
  // In the stack's order, as the redeem's (above).
  stack.cycles.forEach((c, i) => {
    const { moved, posted } = moves[i]!;
    if (!moved) return;
    run?.observe?.({ kind: 'cycle', state: 'reverted', cycle: c });
    if (c.cashbackCents > 0) run?.observe?.({ kind: 'ledger', txnId: cashbackRevertTxnId(c.key), posted });
  });
}

/** A stacked redeem's or revert's answer: the first coupon in the contract's fields, every coupon in `coupons`. */
export function stackResult(
  stack: Pick<StackRecord, 'cycles'>,
  request: { orderId: string; requestId: string; first: { couponId: string; code: string } },
  status: ApplyResult['status'],
): StackApplyResult {
  return {
    ...resultOf({ ...request.first, orderId: request.orderId, requestId: request.requestId }, status),
    coupons: stack.cycles.map((c) => ({
      couponId: c.couponId,
      coupon_code: c.code,
      discount: fromCents(c.discountCents),
      cashback: fromCents(c.cashbackCents),
    })),
  };
}
