/**
 * Limit counters: which counters a redemption counts in, reading them for list/validate, and the
 * protocol that keeps them exact without multi-document transactions (docs/architecture.md,
 * "Limit counters"):
 *
 *  1. reserve: one guarded update per counter adds the step and records it in the worker's lane
 *     (`lanes.<lane>` = attempt, step, day, redemption key: {@link laneEntry}) — refused when a
 *     limit is reached or the lane holds another change;
 *  2. commit: the attempt writes the redemption's state in the journal (the commit point);
 *  3. clear: the lane is freed.
 * A lane left behind by a crash is settled by whoever next needs it: `settle` asks the journal
 * whether that attempt committed — atomically abandoning it if it had not — then either frees the
 * lane (committed) or undoes the step (abandoned). An abandoned attempt can never commit, so no
 * change is ever counted twice or lost, whatever runs overlap.
 *
 * Lanes are the partition queues under the partition count that queued the job (`p16_07`,
 * shared/queue/names.ts `laneOf`): at most one live job per
 * lane, so a counter holds at most one entry per lane whatever its volume — and jobs queued before
 * and after a change of QUEUE_PARTITIONS never share one (docs/scaling.md). Limits count completed redemptions plus
 * the changes in flight (docs/decisions.md#16).
 */
import { randomBytes } from 'node:crypto';
import {
  campaignCounterId,
  codeCounterId,
  customerCounterId,
  resultsCounterId,
  type CounterSpec,
  type LaneStep,
  type PeriodKeys,
  type Tally,
} from '../data/limit-counter.repository.js';
import { stackKeyOfAttempt, type CycleFields } from '../data/redemption-journal.repository.js';
import type { CounterKind, CounterLane, LimitCounterDoc } from '../data/limit-counter.schema.js';
import { periodKeysOfDay } from '../domain/periods.js';
import type { Campaign, UsageCounts } from '../domain/types.js';
import type { Services } from '../services.js';

export type { PeriodKeys };
type Deps = Pick<Services, 'repos'>;

/** A fresh attempt id (48 random bits): names one run's changes in lanes and in the journal. */
export const newAttempt = (): string => randomBytes(6).toString('base64url');

/**
 * An attempt of stack record n of an order (several coupons: docs/stacking.md): its changes on
 * every coupon's counters commit or are abandoned together, at the stack record, which
 * `~<n>` names (redemption-journal.repository.ts `stackKeyOfAttempt`). Not a dot: attempts are
 * field names in the journal (`att.<attempt>`), where a dot would be a path.
 */
export const newStackAttempt = (n: number): string => `${newAttempt()}~${n}`;

/** One run's change of its counters: what a lane records. */
export interface LaneChange {
  attempt: string;
  step: 1 | -1;
  /** The periods it counts in (a revert: those of the redemption it reverts); null when none. */
  periods: PeriodKeys | null;
  /** The redemption's key, `<campaign>:<order ref>:<cycle>` (the journal's `_id`). */
  key: string;
  /** The money it counts in a budget, in cents (docs/budgets.md); 0 or absent: none. */
  cents?: number;
  /** What it counts in the campaign's results (docs/results.md); absent: nothing (a change made before results were counted). */
  tally?: Tally;
}

/**
 * A change from a journaled cycle: its key, periods, budget amount and results, taken (`step` 1)
 * or given back (-1) by `attempt`. The one place a cycle's lane entry is made, so that every run
 * that writes, clears or undoes it writes the same string.
 */
export const changeOfCycle = (
  c: Pick<CycleFields, 'key' | 'periods' | 'budgetCents' | 'discountCents' | 'cashbackCents' | 'basketCents' | 'hour'>,
  attempt: string,
  step: 1 | -1,
): LaneChange => ({
  attempt,
  step,
  periods: c.periods,
  key: c.key,
  cents: c.budgetCents ?? 0,
  tally: { discount: c.discountCents, cashback: c.cashbackCents, basket: c.basketCents ?? 0, hour: c.hour ?? 0 },
});

/**
 * A change as its lanes hold it: `<attempt>/<+|-><cents>[,<discount>,<cashback>,<basket>,<hour>]/<day>/<key
 * without "<campaign>:">` — the week and the month follow from the day, the campaign from the
 * counter; the cents (a budget's amount) are left out when 0; the results' amounts (cents) and
 * local hour follow when the change counts in results. Attempt ids are base64url, the step a sign, digits and
 * commas, days digits and dashes, so the first three slashes separate the fields whatever the key holds.
 */
export function laneEntry(c: LaneChange): CounterLane {
  const t = c.tally;
  const step = `${c.step > 0 ? '+' : '-'}${c.cents ? c.cents : ''}${t ? `,${t.discount},${t.cashback},${t.basket},${t.hour}` : ''}`;
  return `${c.attempt}/${step}/${c.periods?.day ?? ''}/${c.key.slice(c.key.indexOf(':') + 1)}`;
}

/** The change a lane of a counter of campaign `campaignId` holds. */
export function laneChange(campaignId: string, held: CounterLane): LaneChange {
  const [attempt = '', step = '+', day = ''] = held.split('/', 3);
  const ref = held.slice(attempt.length + step.length + day.length + 3);
  const [cents, discount, cashback, basket, hour] = step.slice(1).split(',').map(Number);
  return {
    attempt,
    step: step.startsWith('-') ? -1 : 1,
    periods: day ? periodKeysOfDay(day) : null,
    key: `${campaignId}:${ref}`,
    ...(cents! > 0 ? { cents } : {}),
    ...(discount !== undefined ? { tally: { discount, cashback: cashback ?? 0, basket: basket ?? 0, hour: hour ?? 0 } } : {}),
  };
}

const hasCampaignBudget = (c: Campaign) =>
  !!(c.budget && (c.budget.totalCents || c.budget.perDayCents || c.budget.perWeekCents || c.budget.perMonthCents));
const hasCampaignLimit = (c: Campaign) =>
  !!(c.limits.total || c.limits.perDay || c.limits.perWeek || c.limits.perMonth || giftLimit(c)) || hasCampaignBudget(c);
const hasCustomerCounter = (c: Campaign) => !!(c.limits.perCustomer || c.budget?.perCustomerCents);

/** The redemptions a free gift's `max_gifts` allows (each gives `quantity`); undefined: no gift limit. */
function giftLimit(c: Campaign): number | undefined {
  const g = c.discount.type === 'free_gift' ? c.discount.gift : null;
  return g?.maxGifts ? Math.floor(g.maxGifts / g.quantity) : undefined;
}

/** The smaller of two optional limits. */
const least = (a: number | null | undefined, b: number | undefined): number | undefined =>
  a && b !== undefined ? Math.min(a, b) : (a ?? b ?? undefined);
const capOf = (cents: number | null | undefined) => (cents ? cents : undefined);

/** The counters a redemption counts in: only those of configured limits (and a bulk code's own). */
export function countersFor(campaign: Campaign, applicationId: string, customerId: string, bulkCodeId: string | null): CounterSpec[] {
  const l = campaign.limits;
  const base = { applicationId, campaignId: campaign.id };
  const out: CounterSpec[] = [];
  const b = campaign.budget;
  if (hasCampaignLimit(campaign)) {
    out.push({
      ...base,
      id: campaignCounterId(campaign.id),
      kind: 'campaign',
      limits: {
        total: least(l.total, giftLimit(campaign)),
        day: l.perDay ?? undefined,
        week: l.perWeek ?? undefined,
        month: l.perMonth ?? undefined,
      },
      ...(hasCampaignBudget(campaign)
        ? {
            budget: {
              total: capOf(b!.totalCents),
              day: capOf(b!.perDayCents),
              week: capOf(b!.perWeekCents),
              month: capOf(b!.perMonthCents),
            },
          }
        : {}),
    });
  }
  if (hasCustomerCounter(campaign))
    out.push({
      ...base,
      id: customerCounterId(campaign.id, customerId),
      kind: 'customer',
      limits: { total: l.perCustomer ?? undefined },
      ...(b?.perCustomerCents ? { budget: { total: b.perCustomerCents } } : {}),
    });
  if (bulkCodeId) {
    out.push({ ...base, id: codeCounterId(campaign.id, bulkCodeId), kind: 'code', limits: { total: campaign.bulkCodeUsageLimit ?? 1 } });
  }
  return out;
}

/**
 * The counter of a campaign's results in a local day (docs/results.md), its hours inside: every
 * redemption counts in it, in the same protocol as the limits, so that it is exact after any crash.
 */
export const resultsCounter = (campaign: Pick<Campaign, 'id'>, applicationId: string, day: string): CounterSpec => ({
  id: resultsCounterId(campaign.id, day),
  applicationId,
  campaignId: campaign.id,
  kind: 'results',
  limits: {},
});

/** The kind of a counter, from its id (limit-counter.schema.ts): the tag after the campaign's id. */
export function kindOfCounter(id: string): CounterKind {
  const at = id.indexOf(':');
  const tag = at < 0 ? '' : id.slice(at, at + 3);
  return tag === ':u:' ? 'customer' : tag === ':b:' ? 'code' : tag === ':r:' ? 'results' : 'campaign';
}

/** Counter specs to give back from their ids (a revert needs no limits). */
export const specsOf = (applicationId: string, campaignId: string, ids: string[]): CounterSpec[] =>
  ids.map((id) => ({ id, applicationId, campaignId, kind: kindOfCounter(id), limits: {} }));

/** Usage of each campaign as seen by `customerId` now, in one database round trip. */
export async function readUsage(
  deps: Deps,
  applicationId: string,
  campaigns: Campaign[],
  customerId: string | null,
  periods: PeriodKeys,
  /** The bulk code sent, for every campaign; or per campaign (several coupons: docs/stacking.md). */
  bulkCode: string | null | ((campaignId: string) => string | null) = null,
): Promise<Map<string, UsageCounts>> {
  const bulkCodeOf = typeof bulkCode === 'function' ? bulkCode : () => bulkCode;
  const ids: string[] = [];
  for (const c of campaigns) {
    const bulkCodeId = bulkCodeOf(c.id);
    if (hasCampaignLimit(c)) ids.push(campaignCounterId(c.id));
    if (customerId && hasCustomerCounter(c)) ids.push(customerCounterId(c.id, customerId));
    if (bulkCodeId) ids.push(codeCounterId(c.id, bulkCodeId));
  }
  const docs = await deps.repos.limitCounters.findMany(ids);
  return new Map(
    campaigns.map((c) => {
      const doc = docs.get(campaignCounterId(c.id));
      const bulkCodeId = bulkCodeOf(c.id);
      return [
        c.id,
        usageFrom(doc, customerId ? docs.get(customerCounterId(c.id, customerId)) : undefined, periods, {
          bulkCode: bulkCodeId ? docs.get(codeCounterId(c.id, bulkCodeId)) : undefined,
          hasBulkCode: !!bulkCodeId,
          budget: !!c.budget,
        }),
      ];
    }),
  );
}

/** Usage counts from counter documents (a period that is not the current one counts 0). */
export function usageFrom(
  campaign: LimitCounterDoc | null | undefined,
  customer: LimitCounterDoc | null | undefined,
  periods: PeriodKeys,
  bulk: { bulkCode: LimitCounterDoc | null | undefined; hasBulkCode: boolean; budget?: boolean },
): UsageCounts {
  const inPeriod = (p: { k: string; n: number } | undefined, key: string) => (p && p.k === key ? p.n : 0);
  const spentIn = (p: { k: string; a?: number } | undefined, key: string) => (p && p.k === key ? (p.a ?? 0) : 0);
  return {
    total: campaign?.total ?? 0,
    perCustomer: customer?.total ?? 0,
    perDay: inPeriod(campaign?.d, periods.day),
    perWeek: inPeriod(campaign?.w, periods.week),
    perMonth: inPeriod(campaign?.m, periods.month),
    ...(bulk.hasBulkCode ? { bulkCode: bulk.bulkCode?.total ?? 0 } : {}),
    ...(bulk.budget
      ? {
          spent: {
            total: campaign?.amt ?? 0,
            perCustomer: customer?.amt ?? 0,
            perDay: spentIn(campaign?.d, periods.day),
            perWeek: spentIn(campaign?.w, periods.week),
            perMonth: spentIn(campaign?.m, periods.month),
          },
        }
      : {}),
  };
}

/** A counter that refused a take, as it was then. */
export interface Refused {
  spec: CounterSpec;
  doc: LimitCounterDoc | null;
}

const MAX_SETTLES = 20;

/** What `change` does on `spec`'s counter (and undoing it gives back): the step, and the periods on a campaign counter. */
const undoneBy = (spec: CounterSpec, change: LaneChange): LaneStep =>
  spec.kind === 'results'
    ? { step: change.step, periods: null, cents: change.cents ?? 0, tally: change.tally ?? null }
    : { step: change.step, periods: spec.kind === 'campaign' ? change.periods : null, cents: change.cents ?? 0 };

/**
 * Step 1 for every counter at once (in parallel). Takes (`step` 1) are refused at a limit; gives
 * back (-1) skip counters that do not exist. Lanes held by another attempt are settled first.
 * Returns the lane entry written, which {@link undoAll} and {@link clearAll} take.
 */
export async function reserveAll(
  deps: Deps,
  specs: CounterSpec[],
  run: LaneChange & { lane: string },
): Promise<{ changed: CounterSpec[]; refused: Refused[]; entry: CounterLane }> {
  const entry = laneEntry(run);
  const outcomes = await Promise.all(
    specs.map(async (spec): Promise<Refused | 'changed' | 'absent'> => {
      const done = undoneBy(spec, run);
      for (let i = 0; i < MAX_SETTLES; i++) {
        const res = await deps.repos.limitCounters.change(spec, run.lane, entry, done);
        if (res.ok) return 'changed';
        const held = res.doc?.lanes?.[run.lane];
        if (!res.doc) return 'absent'; // a give-back of a counter that does not exist: nothing to give
        if (!held) {
          if (run.step > 0 && reached(spec, res.doc, run.periods, run.cents ?? 0)) return { spec, doc: res.doc }; // a limit is reached
          continue; // neither: the counter was being created by another taker (its upsert won): again
        }
        if (held === entry) return 'changed'; // ours already (a repeated call)
        await settle(deps, spec, run.lane, held);
      }
      throw new Error(`limit counter ${spec.id}: lane ${run.lane} stayed busy`);
    }),
  );
  return {
    changed: specs.filter((_, i) => outcomes[i] === 'changed'),
    refused: outcomes.filter((o): o is Refused => typeof o === 'object'),
    entry,
  };
}

/**
 * Whether `doc` is at one of `spec`'s limits now, or `cents` more would pass one of its money caps
 * (a period that is not the current one counts 0).
 */
function reached(spec: CounterSpec, doc: LimitCounterDoc, periods: PeriodKeys | null, cents: number): boolean {
  const l = spec.limits;
  const b = spec.budget ?? {};
  if (l.total && doc.total >= l.total) return true;
  if (b.total !== undefined && (doc.amt ?? 0) + cents > b.total) return true;
  if (spec.kind !== 'campaign' || !periods) return false;
  const at = (p: { k: string; n: number; a?: number } | undefined, key: string, limit: number | undefined, cap: number | undefined) =>
    !!p && p.k === key && ((!!limit && p.n >= limit) || (cap !== undefined && (p.a ?? 0) + cents > cap));
  return at(doc.d, periods.day, l.day, b.day) || at(doc.w, periods.week, l.week, b.week) || at(doc.m, periods.month, l.month, b.month);
}

/** Settles the change another attempt left in `lane`: frees the lane if it committed, undoes it if not. */
async function settle(deps: Deps, spec: CounterSpec, lane: string, held: CounterLane): Promise<void> {
  const change = laneChange(spec.campaignId, held);
  // A stack's attempt commits at its stack record, for every coupon at once.
  const commitPoint = stackKeyOfAttempt(spec.applicationId, change.key, change.attempt) ?? change.key;
  const fate = await deps.repos.redemptions.settle(commitPoint, change.attempt);
  if (fate === 'c') await deps.repos.limitCounters.clear(spec.id, lane, held);
  else await deps.repos.limitCounters.undo(spec, lane, held, undoneBy(spec, change));
}

/** Undoes this attempt's uncommitted changes (`entry`, from {@link reserveAll}: a refusal, or a commit that lost). Idempotent. */
export const undoAll = (deps: Deps, specs: CounterSpec[], lane: string, entry: CounterLane) =>
  Promise.all(specs.map((s) => deps.repos.limitCounters.undo(s, lane, entry, undoneBy(s, laneChange(s.campaignId, entry)))));

/** Step 3: frees this attempt's lanes (`entry`, from {@link reserveAll}) once it committed. Idempotent. */
export const clearAll = (deps: Deps, specs: CounterSpec[], lane: string, entry: CounterLane) =>
  Promise.all(specs.map((s) => deps.repos.limitCounters.clear(s.id, lane, entry)));
