/**
 * The revert of an order redeemed with several coupons (docs/stacking.md), worker side: every
 * coupon of its stack comes back together — each counter given back under one stack attempt, the
 * stack record moved to `reverted` (the one commit point), then every cycle and its cashback.
 * Safe to re-run from any line, like every apply job.
 */
import type { StackRecord } from '../../data/redemption-journal.repository.js';
import type { Services } from '../../services.js';
import type { JobRun } from '../job-run.js';
import { changeOfCycle, newStackAttempt, reserveAll, specsOf, undoAll } from '../limit-counters.js';
import { clearStackLanes, revertStackCycles, stackResult } from './stack-journal.js';
import { failpoint } from '../failpoint.js';

type Deps = Pick<Services, 'repos' | 'campaigns' | 'applications' | 'wallets' | 'now' | 'config'>;

/**
 * Reverts a completed stack: true when this call committed its revert, false when it was
 * reverted meanwhile (the caller reads the journal again). Finishes the cycles either way it committed.
 */
export async function revertStackRecord(deps: Deps, stack: StackRecord, run: JobRun): Promise<boolean> {
  const attempt = newStackAttempt(stack.cycle);
  const given = await Promise.all(
    stack.cycles.map((c) =>
      reserveAll(deps, specsOf(c.applicationId, c.campaignId, c.counters), { ...changeOfCycle(c, attempt, -1), lane: run.lane }),
    ),
  );
  failpoint(deps, 'stack-revert-after-reserve');
  if (!(await deps.repos.redemptions.commitStackRevert(stack.key, attempt, run.jobId))) {
    await Promise.all(given.map((g) => undoAll(deps, g.changed, run.lane, g.entry)));
    return false;
  }
  failpoint(deps, 'stack-revert-after-commit');
  const reverted: StackRecord = { ...stack, state: 'reverted', revertJobId: run.jobId, revertAttempt: attempt };
  await revertStackCycles(deps, reverted, run);
  failpoint(deps, 'stack-revert-after-cycles');
  await clearStackLanes(deps, reverted, attempt, -1, run.lane);
  return true;
}

/** A re-run of a revert that committed: finish the cycles and free the lanes. */
export async function finishStackRevert(deps: Deps, stack: StackRecord, run: JobRun): Promise<void> {
  await revertStackCycles(deps, stack, null);
  await clearStackLanes(deps, stack, stack.revertAttempt!, -1, run.lane);
}

export { stackResult };
