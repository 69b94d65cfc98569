/**
 * Limit counters (limit-counter.schema.ts): single-document updates, each guarded by the limit
 * and by the lane, written as update pipelines so that a period that has rolled over restarts at
 * 1 in the same update. The protocol that makes them exact (reserve → commit in the journal →
 * clear, and settling a lane left behind) is in shared/usecases/limit-counters.ts.
 */
import { Types } from 'mongoose';
import { CommandBatcher } from './batched.js';
import { isDuplicateKeyError, type Models } from './db.js';
import type { CounterKind, CounterLane, LimitCounterDoc, PeriodCount } from './limit-counter.schema.js';

export interface PeriodKeys {
  day: string;
  week: string;
  month: string;
}

/** What a redemption counts in one counter: its id and the limits that guard a take. */
export interface CounterSpec {
  id: string;
  applicationId: string;
  campaignId: string;
  kind: CounterKind;
  limits: { total?: number; day?: number; week?: number; month?: number };
}

export const campaignCounterId = (campaignId: string) => campaignId;
export const customerCounterId = (campaignId: string, customerId: string) => `${campaignId}:u:${customerId}`;
export const codeCounterId = (campaignId: string, codeId: string) => `${campaignId}:b:${codeId}`;

const PERIOD_FIELDS = [
  ['d', 'day'],
  ['w', 'week'],
  ['m', 'month'],
] as const;

export type ReserveResult = { ok: true } | { ok: false; doc: LimitCounterDoc | null };

export function limitCounterRepository({ LimitCounter }: Models) {
  const col = LimitCounter.collection;
  const batch = new CommandBatcher(LimitCounter);

  /**
   * Applies step `s` with lane entry `lane` → `entry`, unless the lane is taken or (for a take)
   * a limit is reached. A take creates the counter when it does not exist (upsert); a give-back
   * never does. On refusal returns the counter as it is now (null when there is none).
   */
  async function change(spec: CounterSpec, lane: string, entry: CounterLane, periods: PeriodKeys | null): Promise<ReserveResult> {
    const take = entry.s > 0;
    const filter: Record<string, unknown> = { _id: spec.id, [`lanes.${lane}`]: { $exists: false } };
    const guards: Record<string, unknown>[] = [];
    if (take && spec.limits.total) filter.total = { $lt: spec.limits.total };
    const set: Record<string, unknown> = {
      total: { $add: [{ $ifNull: ['$total', 0] }, entry.s] },
      [`lanes.${lane}`]: { $literal: entry },
    };
    if (spec.kind === 'campaign' && periods) {
      for (const [field, name] of PERIOD_FIELDS) {
        const key = periods[name];
        const limit = spec.limits[name];
        // A period that is not the current one counts as 0: its limit no longer matters.
        if (take && limit) guards.push({ $or: [{ [`${field}.k`]: { $ne: key } }, { [`${field}.n`]: { $lt: limit } }] });
        const same = { $eq: [`$${field}.k`, { $literal: key }] };
        set[field] = take
          ? { $cond: [same, { k: { $literal: key }, n: { $add: [`$${field}.n`, 1] } }, { k: { $literal: key }, n: 1 }] }
          : { $cond: [same, { k: { $literal: key }, n: { $subtract: [`$${field}.n`, 1] } }, `$${field}`] };
      }
    }
    if (guards.length) filter.$and = guards;
    if (take) {
      set.application = { $ifNull: ['$application', { $literal: new Types.ObjectId(spec.applicationId) }] };
      set.campaign = { $ifNull: ['$campaign', { $literal: new Types.ObjectId(spec.campaignId) }] };
      set.kind = { $literal: spec.kind };
    }
    if (take) {
      // Refused: the upsert found the counter but not the guards (a limit reached or the lane taken).
      if ((await batch.upsert(filter, [{ $set: set }])) !== 'refused') return { ok: true };
    } else if ((await col.updateOne(filter, [{ $set: set }])).matchedCount === 1) return { ok: true };
    return { ok: false, doc: await find(spec.id) };
  }

  async function find(id: string): Promise<LimitCounterDoc | null> {
    return (await col.findOne({ _id: id as never })) as LimitCounterDoc | null;
  }

  return {
    /** Takes one (`entry.s` = 1, guarded by the limits) or gives one back (-1) in lane `lane`. */
    change,
    find,
    /**
     * Reverts the unsettled change of attempt `attempt` in `lane` (its recorded step and periods)
     * and frees the lane. A no-op when that attempt holds no lane here: safe to repeat.
     */
    async undo(spec: Pick<CounterSpec, 'id' | 'kind'>, lane: string, attempt: string): Promise<void> {
      const at = `$lanes.${lane}`;
      const set: Record<string, unknown> = { total: { $subtract: ['$total', `${at}.s`] } };
      if (spec.kind === 'campaign') {
        for (const [field] of PERIOD_FIELDS) {
          const same = { $eq: [`$${field}.k`, `${at}.p.${field}`] };
          set[field] = { $cond: [same, { k: `$${field}.k`, n: { $subtract: [`$${field}.n`, `${at}.s`] } }, `$${field}`] };
        }
      }
      await batch.updateBlind({ _id: spec.id, [`lanes.${lane}.a`]: attempt }, [{ $set: set }, { $unset: `lanes.${lane}` }]);
    },
    /** Frees `lane` once attempt `attempt`'s change is settled for good. A no-op when it holds none. */
    async clear(id: string, lane: string, attempt: string): Promise<void> {
      await batch.updateBlind({ _id: id, [`lanes.${lane}.a`]: attempt }, { $unset: { [`lanes.${lane}`]: '' } });
    },
    /** The counters with these ids (list/validate: one query for any number of campaigns). */
    async findMany(ids: string[]): Promise<Map<string, LimitCounterDoc>> {
      if (ids.length === 0) return new Map();
      const ds = (await batch.findMany({ _id: { $in: ids } }, { projection: { total: 1, d: 1, w: 1, m: 1 } })) as LimitCounterDoc[];
      return new Map(ds.map((d) => [d._id, d]));
    },
    /** Writes a whole counter unless it exists (the legacy migration). True when written. */
    async create(doc: LimitCounterDoc): Promise<boolean> {
      try {
        await col.insertOne(doc as never);
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    /**
     * Adds `total` and sets period counts without the protocol (no lane, no guard): demo data,
     * benchmarks and tests that need a counter at a given value. Never on a redeem path.
     */
    async seed(
      spec: Pick<CounterSpec, 'id' | 'applicationId' | 'campaignId' | 'kind'>,
      add: { total?: number; d?: PeriodCount; w?: PeriodCount; m?: PeriodCount },
    ): Promise<void> {
      const { total = 0, ...periods } = add;
      await col.updateOne(
        { _id: spec.id as never },
        {
          $inc: { total },
          ...(Object.keys(periods).length ? { $set: periods } : {}),
          $setOnInsert: {
            application: new Types.ObjectId(spec.applicationId),
            campaign: new Types.ObjectId(spec.campaignId),
            kind: spec.kind,
          },
        },
        { upsert: true },
      );
    },
  };
}
export type LimitCounterRepository = ReturnType<typeof limitCounterRepository>;
