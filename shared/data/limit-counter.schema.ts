import { Schema } from 'mongoose';
import { typed, type DocOf } from './stored.js';

/**
 * A period count: `k` the period key (`2026-11-23`, `2026-W48`, `2026-11`), `n` the count in it,
 * `a` the money counted in it in cents (a budget's spending, docs/budgets.md; absent: 0).
 */
export interface PeriodCount {
  k: string;
  n: number;
  a?: number;
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

const fields = {
  _id: { type: String, required: true },
  application: { type: Schema.Types.ObjectId, required: true },
  campaign: { type: Schema.Types.ObjectId, required: true },
  kind: { type: String, enum: ['campaign', 'customer', 'code', 'results'], required: true },
  total: { type: Number, required: true, default: 0 },
  /** Money counted, in cents: what a budgeted campaign gave away (docs/budgets.md); absent: 0. */
  amt: { type: Number },
  /** A results counter's reverts: redemptions of its hour given back since (docs/results.md); absent: 0. */
  rv: { type: Number },
  /** A results counter's amounts of the redemptions that stand, in cents: discount, cashback, basket; absent: 0. */
  disc: { type: Number },
  cb: { type: Number },
  bsk: { type: Number },
  d: typed<PeriodCount | undefined>()({ type: Schema.Types.Mixed }),
  w: typed<PeriodCount | undefined>()({ type: Schema.Types.Mixed }),
  m: typed<PeriodCount | undefined>()({ type: Schema.Types.Mixed }),
  lanes: typed<Record<string, CounterLane> | undefined>()({ type: Schema.Types.Mixed }),
} as const;
const options = { collection: 'limit_counters', versionKey: false } as const;

/**
 * A limit counter. Its size never depends on how many redemptions it has counted: a total, the
 * current day/week/month (campaign counters only) and the in-flight changes, one per lane.
 *  - `campaign`: `_id` `<campaign>`; counts every redemption of a campaign that has any
 *    campaign-wide limit (total, per day, per week, per month).
 *  - `customer`: `_id` `<campaign>:u:<customer>`; per-customer limit.
 *  - `code`: `_id` `<campaign>:b:<coupon code>`; a bulk code's own usage limit.
 *  - `results`: `_id` `<campaign>:r:<local day>`; every redemption of the campaign made in that
 *    day of the application's timezone, without a limit (docs/results.md): `total` those that
 *    stand, `rv` those reverted since, `disc` / `cb` / `bsk` the amounts of those that stand, `amt`
 *    what they count in a budget (a campaign with one); `h00` … `h23` the same for each local hour
 *    (`{n, rv, d, c, b, a}`, written by pipeline, so not declared here).
 * Invariant: `total` (and each period's `n`) = completed redemptions + the lanes' steps that are
 * not settled yet; `amt` (and each period's `a`) the same in money — the completed redemptions'
 * budget amounts plus the lanes' amounts not settled yet. Changed only by single-document updates guarded by the limit and the lane.
 */
export type LimitCounterDoc = DocOf<typeof fields, typeof options>;
export type CounterKind = LimitCounterDoc['kind'];

export const limitCounterSchema = new Schema<LimitCounterDoc>(fields, options);
// No secondary index: every read and write goes by `_id` (list/validate read a batch with `$in`).
