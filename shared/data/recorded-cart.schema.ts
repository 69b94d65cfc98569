import { Schema } from 'mongoose';
import { typed, type DocOf } from './stored.js';
import type { RecordedOutcome } from '../domain/backtest.js';

const fields = {
  /**
   * `A<cycle key>` a redeem accepted, `R<job>` one refused, `U<cycle key>` its revert, `V…` a validate, `L…` a list: derived
   * from what a redeem decided (a job run twice records it once), and ordering a redeem accepted
   * before one refused within the same millisecond (docs/results.md "The order of a replay").
   */
  _id: { type: String, required: true },
  /** The application. */
  a: { type: Schema.Types.ObjectId, required: true },
  /**
   * Where the cart stands in the application's record: the order a backtest replays (docs/results.md
   * "The order of a replay"). A redeem's is the time its decision was taken at (accepted: before its
   * counters were taken; refused: after the refusal came back), a validate's or a list's when answered.
   */
  t: { type: Date, required: true },
  /** `l` list, `v` validate, `r` redeem, `u` a revert (undo) of a recorded redeem. */
  k: { type: String, required: true, enum: ['l', 'v', 'r', 'u'] },
  /** The customer (the service's id), or null (a validate without a known customer). */
  c: { type: Schema.Types.ObjectId, default: null },
  /** The order as the request sent it (null: none). */
  o: typed<unknown>()({ type: Schema.Types.Mixed, default: null }),
  /** The codes the request named, in its order (none for a list or automatic promotions). */
  q: typed<string[] | undefined>()({ type: [String], default: undefined }),
  /** The order's id (a redeem). */
  oi: { type: String },
  /** What it did for each campaign it named or used (validate and redeem). */
  x: typed<RecordedOutcome[] | undefined>()({ type: [Schema.Types.Mixed], default: undefined }),
  /** When the record goes (the application's retention); a TTL index removes it then. */
  e: { type: Date, required: true },
} as const;
const options = { collection: 'recorded_carts', versionKey: false } as const;

/**
 * A cart a list, validate or redeem saw, for an application that records them (docs/results.md
 * "Recorded carts"): appended, never changed; removed at the end of the application's retention
 * and with its customer (erasure). Short field names: there are many of them.
 */
export type RecordedCartDoc = DocOf<typeof fields, typeof options>;
export const recordedCartSchema = new Schema<RecordedCartDoc>(fields, options);
// A replay reads an application's carts of a period in their order; an erasure finds a customer's.
recordedCartSchema.index({ a: 1, t: 1, _id: 1 });
recordedCartSchema.index({ a: 1, c: 1 });
// TTL: the database removes a record once its retention has passed (MongoDB's monitor runs every 60 s).
recordedCartSchema.index({ e: 1 }, { expireAfterSeconds: 0 });
