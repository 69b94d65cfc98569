import { Types } from 'mongoose';
import type { Models } from './db.js';
import type { IdempotencyRecordDoc } from './idempotency-record.schema.js';

/** The stored outcome of the first request (a value, or a domain refusal). */
export type StoredResponse = unknown;

export function idempotencyRecordRepository({ IdempotencyRecord }: Models) {
  const claim = (applicationId: string, key: string, fingerprint: string, expiresAt: Date) =>
    IdempotencyRecord.collection.findOneAndUpdate(
      { application: new Types.ObjectId(applicationId), key },
      {
        $setOnInsert: {
          application: new Types.ObjectId(applicationId),
          key,
          fingerprint,
          state: 'in_progress',
          response: null,
          expiresAt,
          createdAt: new Date(),
        },
      },
      { upsert: true, returnDocument: 'before' },
    );
  return {
    /**
     * Claims a key in one round trip: null when this call created its record, otherwise the record
     * that was there (its fingerprint and state tell the caller what to do).
     */
    async claimOrFind(applicationId: string, key: string, fingerprint: string, expiresAt: Date): Promise<IdempotencyRecordDoc | null> {
      try {
        return (await claim(applicationId, key, fingerprint, expiresAt)) as IdempotencyRecordDoc | null;
      } catch {
        // Two first requests raced on the unique index (E11000 on MongoDB; FerretDB reports it as
        // an internal error): the loser's second upsert finds the winner's record. Any other error
        // fails the second attempt too and is thrown from there.
        return (await claim(applicationId, key, fingerprint, expiresAt)) as IdempotencyRecordDoc | null;
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
export type IdempotencyRecordRepository = ReturnType<typeof idempotencyRecordRepository>;
