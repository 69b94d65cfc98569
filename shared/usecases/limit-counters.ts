/**
 * Limit counters: which counters a redemption counts in, reading them for list/validate, and the
 * protocol that keeps them exact without multi-document transactions (docs/architecture.md,
 * "Limit counters"):
 *
 *  1. reserve: one guarded update per counter adds the step and records it in the worker's lane
 *     (`lanes.<lane>` = redemption key, attempt, step, periods) — refused when a limit is reached
 *     or the lane holds another change;
 *  2. commit: the attempt writes the redemption's state in the journal (the commit point);
 *  3. clear: the lane is freed.
 * A lane left behind by a crash is settled by whoever next needs it: `settle` asks the journal
 * whether that attempt committed — atomically abandoning it if it had not — then either frees the
 * lane (committed) or undoes the step (abandoned). An abandoned attempt can never commit, so no
 * change is ever counted twice or lost, whatever runs overlap.
 *
 * Lanes are the partition queues under the partition count that queued the job (`p16_07`,
 * shared/queue/names.ts `laneOf`; jobs of an earlier release: `p07`): at most one live job per
 * lane, so a counter holds at most one entry per lane whatever its volume — and jobs queued before
 * and after a change of QUEUE_PARTITIONS never share one (docs/scaling.md). Limits count completed redemptions plus
 * the changes in flight (decision 16).
 */
import { randomBytes } from 'node:crypto';
import {
  campaignCounterId,
  codeCounterId,
  customerCounterId,
  type CounterSpec,
  type PeriodKeys,
} from '../data/limit-counter.repository.js';
import type { CounterKind, LimitCounterDoc } from '../data/limit-counter.schema.js';
import type { Campaign, UsageCounts } from '../domain/types.js';
import type { Services } from '../services.js';

export type { PeriodKeys };
type Deps = Pick<Services, 'repos'>;

/** A fresh attempt id (48 random bits): names one run's changes in lanes and in the journal. */
export const newAttempt = (): string => randomBytes(6).toString('base64url');

const hasCampaignLimit = (c: Campaign) => !!(c.limits.total || c.limits.perDay || c.limits.perWeek || c.limits.perMonth);

/** The counters a redemption counts in: only those of configured limits (and a bulk code's own). */
export function countersFor(campaign: Campaign, applicationId: string, customerId: string, bulkCodeId: string | null): CounterSpec[] {
  const l = campaign.limits;
  const base = { applicationId, campaignId: campaign.id };
  const out: CounterSpec[] = [];
  if (hasCampaignLimit(campaign)) {
    out.push({
      ...base,
      id: campaignCounterId(campaign.id),
      kind: 'campaign',
      limits: { total: l.total ?? undefined, day: l.perDay ?? undefined, week: l.perWeek ?? undefined, month: l.perMonth ?? undefined },
    });
  }
  if (l.perCustomer)
    out.push({ ...base, id: customerCounterId(campaign.id, customerId), kind: 'customer', limits: { total: l.perCustomer } });
  if (bulkCodeId) {
    out.push({ ...base, id: codeCounterId(campaign.id, bulkCodeId), kind: 'code', limits: { total: campaign.bulkCodeUsageLimit ?? 1 } });
  }
  return out;
}

/** The kind of a counter, from its id (limit-counter.schema.ts). */
export const kindOfCounter = (id: string): CounterKind => (id.includes(':u:') ? 'customer' : id.includes(':b:') ? 'code' : 'campaign');

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
  bulkCodeId: string | null = null,
): Promise<Map<string, UsageCounts>> {
  const ids: string[] = [];
  for (const c of campaigns) {
    if (hasCampaignLimit(c)) ids.push(campaignCounterId(c.id));
    if (customerId && c.limits.perCustomer) ids.push(customerCounterId(c.id, customerId));
    if (bulkCodeId) ids.push(codeCounterId(c.id, bulkCodeId));
  }
  const docs = await deps.repos.limitCounters.findMany(ids);
  return new Map(
    campaigns.map((c) => {
      const doc = docs.get(campaignCounterId(c.id));
      return [
        c.id,
        usageFrom(doc, customerId ? docs.get(customerCounterId(c.id, customerId)) : undefined, periods, {
          bulkCode: bulkCodeId ? docs.get(codeCounterId(c.id, bulkCodeId)) : undefined,
          hasBulkCode: !!bulkCodeId,
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
  bulk: { bulkCode: LimitCounterDoc | null | undefined; hasBulkCode: boolean },
): UsageCounts {
  const inPeriod = (p: { k: string; n: number } | undefined, key: string) => (p && p.k === key ? p.n : 0);
  return {
    total: campaign?.total ?? 0,
    perCustomer: customer?.total ?? 0,
    perDay: inPeriod(campaign?.d, periods.day),
    perWeek: inPeriod(campaign?.w, periods.week),
    perMonth: inPeriod(campaign?.m, periods.month),
    ...(bulk.hasBulkCode ? { bulkCode: bulk.bulkCode?.total ?? 0 } : {}),
  };
}

/** A counter that refused a take, as it was then. */
export interface Refused {
  spec: CounterSpec;
  doc: LimitCounterDoc | null;
}

const MAX_SETTLES = 20;

/**
 * Step 1 for every counter at once (in parallel). Takes (`step` 1) are refused at a limit; gives
 * back (-1) skip counters that do not exist. Lanes held by another attempt are settled first.
 */
export async function reserveAll(
  deps: Deps,
  specs: CounterSpec[],
  run: { lane: string; key: string; attempt: string; step: 1 | -1; periods: PeriodKeys | null },
): Promise<{ changed: CounterSpec[]; refused: Refused[] }> {
  const entry = {
    k: run.key,
    a: run.attempt,
    s: run.step,
    ...(run.periods ? { p: { d: run.periods.day, w: run.periods.week, m: run.periods.month } } : {}),
  };
  const outcomes = await Promise.all(
    specs.map(async (spec): Promise<Refused | 'changed' | 'absent'> => {
      for (let i = 0; i < MAX_SETTLES; i++) {
        const res = await deps.repos.limitCounters.change(spec, run.lane, entry, spec.kind === 'campaign' ? run.periods : null);
        if (res.ok) return 'changed';
        const held = res.doc?.lanes?.[run.lane];
        if (!res.doc) return 'absent'; // a give-back of a counter that does not exist: nothing to give
        if (!held) {
          if (run.step > 0 && reached(spec, res.doc, run.periods)) return { spec, doc: res.doc }; // a limit is reached
          continue; // neither: the counter was being created by another taker (its upsert won): again
        }
        if (held.a === run.attempt) return 'changed'; // ours already (a repeated call)
        await settle(deps, spec, run.lane, held);
      }
      throw new Error(`limit counter ${spec.id}: lane ${run.lane} stayed busy`);
    }),
  );
  return {
    changed: specs.filter((_, i) => outcomes[i] === 'changed'),
    refused: outcomes.filter((o): o is Refused => typeof o === 'object'),
  };
}

/** Whether `doc` is at one of `spec`'s limits now (a period that is not the current one counts 0). */
function reached(spec: CounterSpec, doc: LimitCounterDoc, periods: PeriodKeys | null): boolean {
  const l = spec.limits;
  if (l.total && doc.total >= l.total) return true;
  if (spec.kind !== 'campaign' || !periods) return false;
  const at = (p: { k: string; n: number } | undefined, key: string, limit: number | undefined) =>
    !!limit && !!p && p.k === key && p.n >= limit;
  return at(doc.d, periods.day, l.day) || at(doc.w, periods.week, l.week) || at(doc.m, periods.month, l.month);
}

/** Settles the change another attempt left in `lane`: frees the lane if it committed, undoes it if not. */
async function settle(deps: Deps, spec: CounterSpec, lane: string, held: { k: string; a: string }): Promise<void> {
  const fate = await deps.repos.redemptions.settle(held.k, held.a);
  if (fate === 'c') await deps.repos.limitCounters.clear(spec.id, lane, held.a);
  else await deps.repos.limitCounters.undo(spec, lane, held.a);
}

/** Undoes this attempt's uncommitted changes (a refusal, or a commit that lost). Idempotent. */
export const undoAll = (deps: Deps, specs: CounterSpec[], lane: string, attempt: string) =>
  Promise.all(specs.map((s) => deps.repos.limitCounters.undo(s, lane, attempt)));

/** Step 3: frees this attempt's lanes once it committed. Idempotent. */
export const clearAll = (deps: Deps, specs: CounterSpec[], lane: string, attempt: string) =>
  Promise.all(specs.map((s) => deps.repos.limitCounters.clear(s.id, lane, attempt)));
