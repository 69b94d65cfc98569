/**
 * Limit counters (limit-counter.schema.ts): single-document updates, each guarded by the limit
 * and by the lane, written as update pipelines so that a period that has rolled over restarts at
 * 1 in the same update. The protocol that makes them exact (reserve → commit in the journal →
 * clear, and settling a lane left behind) is in shared/usecases/limit-counters.ts.
 */
import { Types } from 'mongoose';
import { CommandBatcher } from './batched.js';
import type { Models } from './db.js';
import type { CounterKind, CounterLane, LimitCounterDoc, PeriodCount } from './limit-counter.schema.js';
import type { PeriodKeys } from '../domain/periods.js';

export type { PeriodKeys };

/** What a redemption counts in one counter: its id and the limits that guard a take. */
export interface CounterSpec {
  id: string;
  applicationId: string;
  campaignId: string;
  kind: CounterKind;
  limits: { total?: number; day?: number; week?: number; month?: number };
  /** Money caps in cents (a budget, docs/budgets.md): a take is refused when its amount would pass one. */
  budget?: { total?: number; day?: number; week?: number; month?: number };
}

export const campaignCounterId = (campaignId: string) => campaignId;
export const customerCounterId = (campaignId: string, customerId: string) => `${campaignId}:u:${customerId}`;
export const codeCounterId = (campaignId: string, codeId: string) => `${campaignId}:b:${codeId}`;
/** A campaign's results in a local day `YYYY-MM-DD` (docs/results.md). */
export const resultsCounterId = (campaignId: string, day: string) => `${campaignId}:r:${day}`;

const PERIOD_FIELDS = [
  ['d', 'day'],
  ['w', 'week'],
  ['m', 'month'],
] as const;

export type ReserveResult = { ok: true } | { ok: false; doc: LimitCounterDoc | null };

/** What a lane's change did, for undoing it: its step and, on a campaign counter, the periods it counted in. */
export interface LaneStep {
  step: 1 | -1;
  periods: PeriodKeys | null;
  /** The money the change counts, in cents (a budget's amount; 0 without one). */
  cents: number;
  /** On a results counter: the amounts the change counts (docs/results.md); null or absent: none. */
  tally?: Tally | null;
}

/** What a redemption counts in its campaign's results, in cents: its discount, its cashback, the basket it was used on; and its local hour (0-23). */
export interface Tally {
  discount: number;
  cashback: number;
  basket: number;
  hour: number;
}

/** The field of a results counter holding one local hour's figures (`h00` … `h23`). */
export const hourField = (hour: number) => `h${String(hour).padStart(2, '0')}`;

/**
 * A results counter's fields changed by `step` of a change counting `tally` (and `cents` of a
 * budget), as pipeline expressions: the day's `total` counts the redemptions that stand, `rv`
 * those given back (a revert), the amounts are those of the redemptions that stand; the hour's
 * field (`h14`: {n, rv, d, c, b, a}) the same for the hour. `sign` -1 undoes the change.
 */
function tallied(step: 1 | -1, tally: Tally | null | undefined, cents: number, sign: 1 | -1): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  const by = step * sign;
  const reverted = step < 0 ? sign : 0;
  if (reverted) set.rv = plus('$rv', reverted);
  if (!tally) return set;
  if (tally.discount) set.disc = plus('$disc', by * tally.discount);
  if (tally.cashback) set.cb = plus('$cb', by * tally.cashback);
  if (tally.basket) set.bsk = plus('$bsk', by * tally.basket);
  const h = `$${hourField(tally.hour)}`;
  set[hourField(tally.hour)] = {
    n: plus(`${h}.n`, by),
    rv: plus(`${h}.rv`, reverted),
    d: plus(`${h}.d`, by * tally.discount),
    c: plus(`${h}.c`, by * tally.cashback),
    b: plus(`${h}.b`, by * tally.basket),
    a: plus(`${h}.a`, by * cents),
  };
  return set;
}

/** `$field + delta`, a missing field counting 0. */
const plus = (path: string, delta: number) => ({ $add: [{ $ifNull: [path, 0] }, delta] });

/** The filter of a lane holding exactly `held`. */
const holding = (lane: string, held: CounterLane) => ({ [`lanes.${lane}`]: held });

export function limitCounterRepository({ LimitCounter }: Models) {
  const col = LimitCounter.collection;
  const batch = new CommandBatcher(LimitCounter);

  /**
   * Applies `step` with lane `lane` → `entry`, unless the lane is taken or (for a take) a limit is
   * reached. A take creates the counter when it does not exist (upsert); a give-back never does.
   * On refusal returns the counter as it is now (null when there is none).
   */
  async function change(
    spec: CounterSpec,
    lane: string,
    entry: CounterLane,
    { step, periods, cents, tally }: LaneStep,
  ): Promise<ReserveResult> {
    const take = step > 0;
    const money = step * cents;
    const budget = spec.budget ?? {};
    // An amount above a whole cap can never fit (the engine caps below it): refused without a write.
    if (take && [budget.total, budget.day, budget.week, budget.month].some((cap) => cap !== undefined && cents > cap))
      return { ok: false, doc: await find(spec.id) };
    const filter: Record<string, unknown> = { _id: spec.id, [`lanes.${lane}`]: { $exists: false } };
    const guards: Record<string, unknown>[] = [];
    if (take && spec.limits.total) filter.total = { $lt: spec.limits.total };
    if (take && budget.total !== undefined) guards.push({ $or: [{ amt: { $lte: budget.total - cents } }, { amt: { $exists: false } }] });
    const set: Record<string, unknown> = {
      total: { $add: [{ $ifNull: ['$total', 0] }, step] },
      [`lanes.${lane}`]: { $literal: entry },
    };
    if (money !== 0) set.amt = plus('$amt', money);
    if (spec.kind === 'results') Object.assign(set, tallied(step, tally, cents, 1));
    if (spec.kind === 'campaign' && periods) {
      for (const [field, name] of PERIOD_FIELDS) {
        const key = periods[name];
        const limit = spec.limits[name];
        const cap = budget[name];
        // A period that is not the current one counts as 0: its limit no longer matters.
        if (take && limit) guards.push({ $or: [{ [`${field}.k`]: { $ne: key } }, { [`${field}.n`]: { $lt: limit } }] });
        if (take && cap !== undefined)
          guards.push({
            $or: [{ [`${field}.k`]: { $ne: key } }, { [`${field}.a`]: { $lte: cap - cents } }, { [`${field}.a`]: { $exists: false } }],
          });
        const same = { $eq: [`$${field}.k`, { $literal: key }] };
        const counted = { k: { $literal: key }, n: { $add: [`$${field}.n`, step] }, a: plus(`$${field}.a`, money) };
        set[field] = take
          ? { $cond: [same, counted, { k: { $literal: key }, n: 1, a: { $literal: cents } }] }
          : { $cond: [same, counted, `$${field}`] };
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
    /** Takes one (step 1, guarded by the limits) or gives one back (-1) in lane `lane`. */
    change,
    find,
    /**
     * Reverts the unsettled change `held` in `lane` (`done`: its step and periods) and frees the
     * lane. A no-op unless the lane still holds exactly that change: safe to repeat.
     */
    async undo(spec: Pick<CounterSpec, 'id' | 'kind'>, lane: string, held: CounterLane, done: LaneStep): Promise<void> {
      const money = done.step * done.cents;
      const set: Record<string, unknown> = { total: { $subtract: ['$total', done.step] } };
      if (money !== 0) set.amt = plus('$amt', -money);
      if (spec.kind === 'results') Object.assign(set, tallied(done.step, done.tally, done.cents, -1));
      if (spec.kind === 'campaign' && done.periods) {
        for (const [field, name] of PERIOD_FIELDS) {
          // A period that is no longer the current one keeps what it counted.
          const same = { $eq: [`$${field}.k`, { $literal: done.periods[name] }] };
          const undone = { k: `$${field}.k`, n: { $subtract: [`$${field}.n`, done.step] }, a: plus(`$${field}.a`, -money) };
          set[field] = { $cond: [same, undone, `$${field}`] };
        }
      }
      await batch.updateBlind({ _id: spec.id, ...holding(lane, held) }, [{ $set: set }, { $unset: `lanes.${lane}` }]);
    },
    /** Frees `lane` once its change `held` is settled for good. A no-op when the lane holds another. */
    async clear(id: string, lane: string, held: CounterLane): Promise<void> {
      await batch.updateBlind({ _id: id, ...holding(lane, held) }, { $unset: { [`lanes.${lane}`]: '' } });
    },
    /** The counters with these ids (list/validate: one query for any number of campaigns). */
    async findMany(ids: string[]): Promise<Map<string, LimitCounterDoc>> {
      if (ids.length === 0) return new Map();
      const ds = (await batch.findMany({ _id: { $in: ids } }, { projection: { total: 1, amt: 1, d: 1, w: 1, m: 1 } })) as LimitCounterDoc[];
      return new Map(ds.map((d) => [d._id, d]));
    },
    /**
     * The counters with these ids and their lanes (a sold-out refusal in the API: whether every
     * counted change is settled). Concurrent callers share one `find` (batched by `_id`).
     */
    async findWithLanes(ids: string[]): Promise<Map<string, LimitCounterDoc>> {
      const ds = await Promise.all(
        ids.map((id) => batch.findOne({ _id: id }, { projection: { total: 1, amt: 1, d: 1, w: 1, m: 1, lanes: 1 } })),
      );
      return new Map((ds.filter(Boolean) as LimitCounterDoc[]).map((d) => [d._id, d]));
    },
    /**
     * A page of a campaign's counters in `_id` order after `after` (null: from the campaign's own):
     * the campaign's counter (`<campaign>`), then its customers' and codes' (`<campaign>:…`). The
     * verifier's read, with the lanes.
     */
    async campaignPage(campaignId: string, after: string | null, limit: number): Promise<LimitCounterDoc[]> {
      const from = after === null ? { $gte: campaignId } : { $gt: after };
      return (await col
        .find({ _id: { ...from, $lt: `${campaignId};` } as never }, { sort: { _id: 1 }, limit })
        .toArray()) as unknown as LimitCounterDoc[];
    },
    /**
     * The results counters (docs/results.md) of these campaigns' days from `fromDay` to `toDay`
     * (both included, `YYYY-MM-DD`), with their lanes, and their hours' fields when `hours`: one
     * `_id` range per campaign, in one query.
     */
    async resultsRange(campaignIds: string[], fromDay: string, toDay: string, hours: boolean): Promise<LimitCounterDoc[]> {
      if (campaignIds.length === 0) return [];
      const ranges = campaignIds.map((c) => ({ _id: { $gte: resultsCounterId(c, fromDay), $lte: resultsCounterId(c, toDay) } }));
      const projection: Record<string, 1> = { total: 1, amt: 1, rv: 1, disc: 1, cb: 1, bsk: 1, lanes: 1 };
      if (hours) for (let h = 0; h < 24; h++) projection[hourField(h)] = 1;
      return (await col.find({ $or: ranges } as never, { projection }).toArray()) as unknown as LimitCounterDoc[];
    },
    /** How many counters a campaign has (the verifier sizes its passes by it). */
    async countOfCampaign(campaignId: string): Promise<number> {
      return col.countDocuments({ _id: { $gte: campaignId, $lt: `${campaignId};` } as never });
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
