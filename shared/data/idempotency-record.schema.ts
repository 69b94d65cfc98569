import { Schema } from 'mongoose';
import { typed, type DocOf } from './stored.js';

const fields = {
  application: { type: Schema.Types.ObjectId, required: true },
  key: { type: String, required: true },
  /** SHA-256 of route + body: the same key with another body is a conflict. */
  fingerprint: { type: String, required: true },
  state: { type: String, enum: ['in_progress', 'done'], default: 'in_progress' },
  /** The first request's outcome (shared/queue/outcome.ts), replayed for repeats. */
  response: typed<unknown>()({ type: Schema.Types.Mixed, default: null }),
  expiresAt: { type: Date, required: true },
} as const;
const options = {
  collection: 'idempotency_records',
  timestamps: { createdAt: true, updatedAt: false },
  versionKey: false,
  minimize: false,
} as const;

/**
 * A stored response for an `Idempotency-Key` (docs/decisions.md#24). The database removes it once
 * `expiresAt` has passed (a TTL index: MongoDB's TTL monitor runs every 60 s, DocumentDB's
 * every minute too).
 */
export type IdempotencyRecordDoc = DocOf<typeof fields, typeof options>;

export const idempotencyRecordSchema = new Schema<IdempotencyRecordDoc>(fields, options);
// Serves the lookup of a key within an application and makes a concurrent duplicate collide.
idempotencyRecordSchema.index({ application: 1, key: 1 }, { unique: true });
// TTL: the database deletes a record once its `expiresAt` has passed.
idempotencyRecordSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
