import { Schema, type Types } from 'mongoose';

/**
 * A stored response for an `Idempotency-Key` (docs/decisions.md#24). The database removes it once
 * `expiresAt` has passed (a TTL index: MongoDB's TTL monitor runs every 60 s, DocumentDB's
 * every minute too).
 */
export interface IdempotencyRecordDoc {
  _id: Types.ObjectId;
  application: Types.ObjectId;
  key: string;
  /** SHA-256 of route + body: the same key with another body is a conflict. */
  fingerprint: string;
  state: 'in_progress' | 'done';
  /** The first request's outcome (shared/queue/outcome.ts), replayed for repeats. */
  response: unknown;
  expiresAt: Date;
  createdAt: Date;
}

export const idempotencyRecordSchema = new Schema<IdempotencyRecordDoc>(
  {
    application: { type: Schema.Types.ObjectId, required: true },
    key: { type: String, required: true },
    fingerprint: { type: String, required: true },
    state: { type: String, enum: ['in_progress', 'done'], default: 'in_progress' },
    response: { type: Schema.Types.Mixed, default: null },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'idempotency_records', timestamps: { createdAt: true, updatedAt: false }, versionKey: false, minimize: false },
);
// Serves the lookup of a key within an application and makes a concurrent duplicate collide.
idempotencyRecordSchema.index({ application: 1, key: 1 }, { unique: true });
// TTL: the database deletes a record once its `expiresAt` has passed.
idempotencyRecordSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
