import { Types } from 'mongoose';
import { isDuplicateKeyError, type Models } from './db.js';
import type { IdempotencyRecordDoc } from './idempotency-record.schema.js';

/** The stored outcome of the first request (a value, or a domain refusal). */
export type StoredResponse = unknown;

export function idempotencyRecordRepository({ IdempotencyRecord }: Models) {
  return {
    /** Claims a key; false when it exists already (then `find` tells its state). */
    async claim(applicationId: string, key: string, fingerprint: string, expiresAt: Date): Promise<boolean> {
      try {
        await IdempotencyRecord.create({
          application: new Types.ObjectId(applicationId),
          key,
          fingerprint,
          state: 'in_progress',
          expiresAt,
        });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    async find(applicationId: string, key: string) {
      return IdempotencyRecord.findOne({ application: applicationId, key }).lean<IdempotencyRecordDoc>();
    },
    async complete(applicationId: string, key: string, response: StoredResponse): Promise<void> {
      await IdempotencyRecord.updateOne({ application: applicationId, key }, { $set: { state: 'done', response } });
    },
    async release(applicationId: string, key: string): Promise<void> {
      await IdempotencyRecord.deleteOne({ application: applicationId, key, state: 'in_progress' });
    },
    /** The periodic cleanup (no TTL index: not every MongoDB-wire store has them). */
    async deleteExpired(now: Date): Promise<number> {
      const res = await IdempotencyRecord.deleteMany({ expiresAt: { $lt: now } });
      return res.deletedCount ?? 0;
    },
  };
}
export type IdempotencyRecordRepository = ReturnType<typeof idempotencyRecordRepository>;
