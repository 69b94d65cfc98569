/**
 * Business outcome counters, counted in the API where each operation's outcome is answered: a
 * listener the job gateway is built with (api/queues.ts), so every queued route is counted without
 * calling anything itself.
 */
import { reasonOf } from '../../shared/errors.js';
import type { AnyQueuedJob, OutcomeListener } from '../../shared/queue/gateway.js';
import { JOB } from '../../shared/queue/names.js';
import type { Outcome } from '../../shared/queue/outcome.js';
import type { Metrics } from '../../shared/ops/metrics.js';

/**
 * Counts each answered operation:
 * - redeem / revert (one coupon or several) → `coupons_redemptions_total{type, outcome="completed"|"refused", reason}`;
 *   `reason` is the refusal's short category (`total_limit`, `cart_rule`, `insufficient_points`, …,
 *   else the error kind), empty when completed.
 * - wallet-transaction → `coupons_wallet_transactions_total{type="credit"|"debit", outcome="applied"|"refused"}`.
 * - order-report → `coupons_order_reports_total{status="completed"|"returned", outcome="earned"|"taken_back"|"nothing"|"refused"}`.
 * Other jobs (the benchmark's noop) are not business outcomes and are ignored.
 */
export const outcomeCounter =
  (metrics: Metrics): OutcomeListener =>
  (job: AnyQueuedJob, _applicationId: string, outcome: Outcome<unknown>) => {
    if (job.name === JOB.redeem || job.name === JOB.revert || job.name === JOB.redeemStack || job.name === JOB.revertStack) {
      // The reason is a fixed category chosen by the domain, never free text: label cardinality stays bounded.
      const reason = outcome.ok ? '' : reasonOf(outcome.error);
      // A stacked redeem or revert counts once, as the request it answers (docs/stacking.md).
      const type = job.name === JOB.redeem || job.name === JOB.redeemStack ? 'redeem' : 'revert';
      metrics.redemptions.inc({ type, outcome: outcome.ok ? 'completed' : 'refused', reason });
    } else if (job.name === JOB.walletTransaction) {
      metrics.walletTransactions.inc({ type: job.payload.type, outcome: outcome.ok ? 'applied' : 'refused' });
    } else if (job.name === JOB.orderReport) {
      const moved = outcome.ok && (outcome.value as { points?: number }).points! > 0;
      const kind = job.payload.status === 'completed' ? 'earned' : 'taken_back';
      metrics.orderReports.inc({ status: job.payload.status, outcome: !outcome.ok ? 'refused' : moved ? kind : 'nothing' });
    }
  };
