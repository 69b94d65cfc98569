/** A redeem job's part in its campaigns' results that is not a counter (docs/results.md): first-time customers and refusals. */
import { hourKey } from '../domain/periods.js';
import type { Outcome } from '../queue/outcome.js';
import type { Services } from '../services.js';
import type { Committed } from './job-run.js';
import { kindOfCounter } from './limit-counters.js';

/**
 * Counts a finished redeem job in its campaigns' results: the customer of each cycle it committed
 * (in the cycle's local hour), or its refusal (`campaignId`: the one coupon it
 * named; null, several coupons: a refusal is not counted, as it names no campaign).
 */
export async function tallyRedeem(
  deps: Pick<Services, 'tally' | 'applications' | 'now'>,
  applicationId: string,
  campaignId: string | null,
  outcome: Outcome<unknown>,
  observed: readonly Committed[],
): Promise<void> {
  if (!outcome.ok) {
    const reason = outcome.error.extra.reason;
    const app = campaignId && reason ? await deps.applications.get(applicationId) : null;
    if (app && reason) deps.tally.refused(applicationId, campaignId!, hourKey(deps.now(), app.timezone), reason);
    return;
  }
  for (const c of observed) {
    if (c.kind !== 'cycle' || c.state !== 'completed') continue;
    // Its local hour: the day of its results counter, and the hour the cycle recorded.
    const results = c.cycle.counters?.find((id) => kindOfCounter(id) === 'results');
    if (!results) continue;
    const hour = `${results.slice(results.indexOf(':r:') + 3)}T${String(c.cycle.hour ?? 0).padStart(2, '0')}`;
    deps.tally.redeemed(applicationId, c.cycle.campaignId, c.cycle.customerId, hour);
  }
}
