import { Schema, type Types } from 'mongoose';

/** A period count: `k` the period key (`2026-11-23`, `2026-W48`, `2026-11`), `n` the count in it. */
export interface PeriodCount {
  k: string;
  n: number;
}

/**
 * One in-flight change of a counter, at most one per lane (docs/architecture.md, "Limit
 * counters"), as one short string: `<attempt>/<+|->/<day>/<ref>` — the attempt that made it, its
 * step (+ taken, - given back), the day whose period counts it changed (empty when none), and the
 * redemption's key without its `<campaign>:` prefix (shared/usecases/limit-counters.ts `laneEntry`).
 * About 40 characters (some 50 bytes in the document) with a hashed order reference, so a counter
 * with a change in each of 64 lanes stays under 4 KB.
 */
export type CounterLane = string;

export type CounterKind = 'campaign' | 'customer' | 'code';

/**
 * A limit counter. Its size never depends on how many redemptions it has counted: a total, the
 * current day/week/month (campaign counters only) and the in-flight changes, one per lane.
 *  - `campaign`: `_id` `<campaign>`; counts every redemption of a campaign that has any
 *    campaign-wide limit (total, per day, per week, per month).
 *  - `customer`: `_id` `<campaign>:u:<customer>`; per-customer limit.
 *  - `code`: `_id` `<campaign>:b:<coupon code>`; a bulk code's own usage limit.
 * Invariant: `total` (and each period's `n`) = completed redemptions + the lanes' steps that are
 * not settled yet. Changed only by single-document updates guarded by the limit and the lane.
 */
export interface LimitCounterDoc {
  _id: string;
  application: Types.ObjectId;
  campaign: Types.ObjectId;
  kind: CounterKind;
  total: number;
  d?: PeriodCount;
  w?: PeriodCount;
  m?: PeriodCount;
  lanes?: Record<string, CounterLane>;
}

export const limitCounterSchema = new Schema<LimitCounterDoc>(
  {
    _id: { type: String, required: true },
    application: { type: Schema.Types.ObjectId, required: true },
    campaign: { type: Schema.Types.ObjectId, required: true },
    kind: { type: String, enum: ['campaign', 'customer', 'code'], required: true },
    total: { type: Number, required: true, default: 0 },
    d: { type: Schema.Types.Mixed },
    w: { type: Schema.Types.Mixed },
    m: { type: Schema.Types.Mixed },
    lanes: { type: Schema.Types.Mixed },
  },
  { collection: 'limit_counters', versionKey: false },
);
// No secondary index: every read and write goes by `_id` (list/validate read a batch with `$in`).
