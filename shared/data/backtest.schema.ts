import { Schema } from 'mongoose';
import { typed, type DocOf } from './stored.js';

const fields = {
  application: { type: Schema.Types.ObjectId, required: true },
  status: { type: String, required: true, enum: ['queued', 'running', 'done', 'failed'] },
  /** `live`: a campaign as it is; `change`: a campaign with changes; `draft`: a campaign not saved. */
  kind: { type: String, required: true, enum: ['live', 'change', 'draft'] },
  /** The live campaign (null: a draft). */
  campaign: { type: Schema.Types.ObjectId, default: null },
  name: { type: String, required: true },
  /** The campaign replayed, as the engine reads it (shared/domain/types.ts `Campaign`). */
  definition: typed<Record<string, unknown>>()({ type: Schema.Types.Mixed, required: true }),
  /** The period, local days of the application's timezone (inclusive), and the instants they span. */
  from: { type: String, required: true },
  to: { type: String, required: true },
  start: { type: Date, required: true },
  end: { type: Date, required: true },
  /** `presented`: the carts that named or used the campaign; `all`: every recorded cart. */
  carts: { type: String, required: true, enum: ['presented', 'all'] },
  /** Carts replayed so far, of how many. */
  done: { type: Number, default: 0 },
  total: { type: Number, default: 0 },
  /** The figures, once done (backtests.usecase.ts presents them). */
  result: typed<Record<string, unknown> | null | undefined>()({ type: Schema.Types.Mixed, default: null }),
  error: { type: String, default: null },
  startedAt: { type: Date, default: null },
  finishedAt: { type: Date, default: null },
} as const;
// minimize off: the campaign's empty objects (no limits: `{}`) are kept as the engine reads them.
const options = { collection: 'backtests', timestamps: true, versionKey: false, minimize: false } as const;

/** A backtest (docs/results.md "Backtests"): asked through the admin API, run by a worker's backtest pool. */
export type BacktestDoc = DocOf<typeof fields, typeof options>;
export const backtestSchema = new Schema<BacktestDoc>(fields, options);
// An application's backtests, newest first.
backtestSchema.index({ application: 1, _id: -1 });
