/**
 * Business outcome counters, counted in the API where a job's outcome comes back. Wired once in
 * app.ts as the JobGateway's `onOutcome` listener, so every route that runs a job through the
 * gateway is counted without calling anything itself; `countOutcome` is the same helper for a
 * caller that obtains an outcome another way.
 */
import { JOB, type JobName, type JobPayloads } from '../../shared/queue/names.js';
import { reasonOf } from '../../shared/errors.js';
import type { Outcome } from '../../shared/queue/outcome.js';
import type { Metrics } from '../../shared/ops/metrics.js';

/**
 * Counts one answered job:
 * - redeem / revert → `coupons_redemptions_total{type, outcome="completed"|"refused", reason}`;
 *   `reason` is the refusal's short category (`total_limit`, `cart_rule`, `insufficient_points`, …,
 *   else the error kind), empty when completed.
 * - wallet-transaction → `coupons_wallet_transactions_total{type="credit"|"debit", outcome="applied"|"refused"}`.
 * Other jobs (the benchmark's noop) are not business outcomes and are ignored.
 */
export function countOutcome<N extends JobName>(metrics: Metrics, name: N, payload: JobPayloads[N], outcome: Outcome<unknown>): void {
  if (name === JOB.redeem || name === JOB.revert) {
    // The reason is a fixed category chosen by the domain, never free text: label cardinality stays bounded.
    const reason = outcome.ok ? '' : reasonOf(outcome.error);
    metrics.redemptions.inc({ type: name, outcome: outcome.ok ? 'completed' : 'refused', reason });
  } else if (name === JOB.walletTransaction) {
    const { type } = payload as JobPayloads['wallet-transaction'];
    metrics.walletTransactions.inc({ type, outcome: outcome.ok ? 'applied' : 'refused' });
  }
}

/** The JobGateway `onOutcome` listener that feeds {@link countOutcome}. */
export function outcomeRecorder(metrics: Metrics) {
  return <N extends JobName>(name: N, payload: JobPayloads[N], outcome: Outcome<unknown>): void =>
    countOutcome(metrics, name, payload, outcome);
}
