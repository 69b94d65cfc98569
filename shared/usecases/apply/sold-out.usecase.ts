/**
 * A sold-out coupon refused before it is queued (docs/architecture.md, "Sold-out refusals").
 *
 * After a campaign-wide limit is reached, every later redeem is refused — the stampede after a
 * sell-out is the largest load a flash sale sees — and a refusal through the queue costs what a
 * redeem does and waits behind the redeems. So the API refuses it itself when it can prove the
 * worker would: the campaign's counters (and the customer's and the bulk code's) are read with
 * their lanes, and the refusal is given only when
 *  - no change is in flight on them (no lane held: each count is exactly the completed
 *    redemptions, so a limit reached now is reached — a revert in flight holds a lane),
 *  - the order has no cycle in the journal (a redeem of an order already redeemed answers 200,
 *    docs/decisions.md#17; another customer's order has its own refusal),
 *  - no job of this operation can exist (`unqueued`: a job queued by an earlier request with the
 *    same Idempotency-Key may still apply, and its outcome is the answer — so also for a generated
 *    `auto-…` key a client sends back after a 503: its first request queued a job without an
 *    idempotency record, shared/usecases/idempotency.ts), and
 *  - no webhook endpoint of the application subscribes to `redemption.refused` (those refusals
 *    are recorded as events by the worker, docs/events.md),
 * and the answer is the engine's, with the usage read: the same body the worker gives.
 *
 * A budget that has nothing left (docs/budgets.md) is such a limit; one with a little left is not
 * (whether a discount fits depends on the cart), so those refusals go through the queue.
 *
 * Only campaigns this process saw refused at a campaign-wide limit are read
 * (shared/cache/sold-out-hints.ts): every other redeem pays nothing.
 */
import { campaignCounterId, codeCounterId, customerCounterId } from '../../data/limit-counter.repository.js';
import type { LimitCounterDoc } from '../../data/limit-counter.schema.js';
import { redemptionKey } from '../../data/redemption-journal.repository.js';
import { limitRefusal, refusalBeforeOrder } from '../../domain/engine.js';
import { subscribes } from '../../domain/events.js';
import { periodKeys } from '../../domain/periods.js';
import type { Campaign } from '../../domain/types.js';
import type { DomainError } from '../../errors.js';
import { reasonOf } from '../../errors.js';
import type { AnyQueuedJob, OutcomeListener } from '../../queue/gateway.js';
import type { RedeemInput } from '../../queue/job-payloads.js';
import { JOB } from '../../queue/names.js';
import type { Outcome } from '../../queue/outcome.js';
import type { Reason } from '../../reasons.js';
import type { Services } from '../../services.js';
import { countersFor, usageFrom } from '../limit-counters.js';
import { refusalOf } from '../../client-errors.js';

/** Limits reached for every customer at once: a refusal at one hints the campaign. */
const CAMPAIGN_WIDE = new Set<Reason>([
  'total_limit',
  'per_day_limit',
  'per_week_limit',
  'per_month_limit',
  'budget_exhausted',
  'gifts_given_out',
]);
/** Every limit's refusal: what the API may answer without the queue. */
const LIMITS = new Set<Reason>([...CAMPAIGN_WIDE, 'per_user_limit', 'per_user_budget', 'bulk_code_used']);

/** The job gateway's listener that feeds the hints: a redeem refused at a campaign-wide limit marks its campaign. */
export const soldOutListener =
  (hints: Services['soldOut']): OutcomeListener =>
  (job: AnyQueuedJob, _applicationId: string, outcome: Outcome<unknown>) => {
    if (job.name !== JOB.redeem || outcome.ok || !CAMPAIGN_WIDE.has(reasonOf(outcome.error))) return;
    hints.mark(job.payload.campaignId);
  };

/** What the API read for a redeem of a hinted campaign. */
export interface SoldOutFacts {
  campaign: Campaign;
  now: Date;
  timezone: string;
  input: Pick<RedeemInput, 'customerId' | 'bulkCodeId'>;
  /** The redemption's counters that exist, by id, with their lanes. */
  counters: Map<string, LimitCounterDoc>;
  /** Whether the order has a cycle with this campaign (its first). */
  journaled: boolean;
}

/**
 * The refusal the worker would give now, when it is provable from the facts (pure); `soldOut`:
 * a campaign-wide limit is reached (the hint stays).
 */
export function soldOutDecision(f: SoldOutFacts): { refuse: DomainError | null; soldOut: boolean } {
  const { campaign, input } = f;
  const periods = periodKeys(f.now, f.timezone);
  const doc = (id: string) => f.counters.get(id);
  const usage = usageFrom(
    doc(campaignCounterId(campaign.id)),
    campaign.limits.perCustomer || campaign.budget?.perCustomerCents ? doc(customerCounterId(campaign.id, input.customerId)) : undefined,
    periods,
    {
      bulkCode: input.bulkCodeId ? doc(codeCounterId(campaign.id, input.bulkCodeId)) : undefined,
      hasBulkCode: !!input.bulkCodeId,
      budget: !!campaign.budget,
    },
  );
  const soldOut = limitRefusal(campaign, { ...usage, bulkCode: undefined }, false) !== null;
  const inFlight = [...f.counters.values()].some((d) => Object.keys(d.lanes ?? {}).length > 0);
  if (f.journaled || inFlight) return { refuse: null, soldOut };
  // The rules that read no order come first (availability, then the limits), so the worker's
  // answer is a limit's refusal exactly when theirs is, whatever the cart.
  const refused = refusalBeforeOrder({ now: f.now, timezone: f.timezone, campaign, usage, customerKnown: true });
  if (!refused || !LIMITS.has(refused.reason)) return { refuse: null, soldOut };
  return { refuse: refusalOf(refused.reason, refused.message), soldOut };
}

/**
 * API side, before a redeem is queued: the refusal of a sold-out coupon when it is provable now
 * (see above), else null (queue it). Two reads, each shared with concurrent requests.
 */
export async function refuseIfSoldOut(
  deps: Pick<Services, 'repos' | 'soldOut' | 'webhookEndpoints' | 'now'>,
  app: { id: string; timezone: string },
  campaign: Campaign,
  input: RedeemInput,
  op: { unqueued: boolean },
): Promise<DomainError | null> {
  if (!op.unqueued || !deps.soldOut.has(campaign.id)) return null;
  if ((await deps.webhookEndpoints.get(app.id)).some((e) => subscribes(e.eventTypes, 'redemption.refused'))) return null;
  const ids = countersFor(campaign, app.id, input.customerId, input.bulkCodeId).map((c) => c.id);
  const [counters, journaled] = await Promise.all([
    deps.repos.limitCounters.findWithLanes(ids),
    deps.repos.redemptions.hasCycle(redemptionKey(campaign.id, input.orderId, 1)),
  ]);
  const decided = soldOutDecision({ campaign, now: deps.now(), timezone: app.timezone, input, counters, journaled });
  if (!decided.soldOut) deps.soldOut.drop(campaign.id);
  return decided.refuse;
}
