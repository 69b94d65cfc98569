import { Types } from 'mongoose';
import type { Models } from './db.js';
import type { IdempotencyRecordDoc } from './idempotency-record.schema.js';

/** The stored outcome of the first request (a value, or a domain refusal). */
export type StoredResponse = unknown;

export function idempotencyRecordRepository({ IdempotencyRecord }: Models) {
  const col = IdempotencyRecord.collection;
  return {
    /**
     * Claims a key: null when this call created its record, otherwise the record that was there
     * (its fingerprint and state tell the caller what to do). One insert for a new key; when the
     * insert fails — the key exists (E11000), or concurrent first requests collided on the unique
     * index (FerretDB reports that as a deadlock or an internal error) — a read says whether a
     * record is there. A read takes no lock, so once any request of the key has claimed it, every
     * other one finds it; only when none is there is the insert's error thrown (the caller retries
     * transient ones). Not an upsert: concurrent duplicates of one deadlock each other on the
     * test database for as long as they retry.
     */
    async claimOrFind(applicationId: string, key: string, fingerprint: string, expiresAt: Date): Promise<IdempotencyRecordDoc | null> {
      const application = new Types.ObjectId(applicationId);
      try {
        await col.insertOne({
          application,
          key,
          fingerprint,
          state: 'in_progress',
          response: null,
          expiresAt,
          createdAt: new Date(),
        } as never);
        return null;
      } catch (err) {
        const existing = (await col.findOne({ application, key })) as IdempotencyRecordDoc | null;
        if (existing) return existing;
        throw err;
      }
    },
    /**
     * Stores the final response of a key still in progress. When another request with the key
     * stored one first (a concurrent duplicate), that one is returned instead (`mine` false):
     * every request with the key answers the same.
     */
    async complete(applicationId: string, key: string, response: StoredResponse): Promise<{ mine: boolean; response: StoredResponse }> {
      const filter = { application: new Types.ObjectId(applicationId), key };
      const updated = await IdempotencyRecord.collection.updateOne(
        { ...filter, state: 'in_progress' },
        { $set: { state: 'done', response } },
      );
      if (updated.matchedCount === 1) return { mine: true, response };
      const found = (await IdempotencyRecord.collection.findOne(filter)) as IdempotencyRecordDoc | null;
      // Gone (expired meanwhile): this response is the only one there is.
      return found?.state === 'done' ? { mine: false, response: found.response } : { mine: true, response };
    },
  };
}
