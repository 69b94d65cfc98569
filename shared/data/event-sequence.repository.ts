import { isDuplicateKeyError, type Models } from './db.js';
import type { EventSequenceDoc } from './event-sequence.schema.js';

export function eventSequenceRepository({ EventSequence }: Models) {
  return {
    /**
     * Reserves `count` consecutive numbers for a customer's events and returns the first. One
     * single-document update; a re-run reserves new numbers (gaps are harmless: only the order counts).
     */
    async reserve(applicationId: string, customerId: string, count: number): Promise<number> {
      const bump = () =>
        EventSequence.findOneAndUpdate(
          { _id: `${applicationId}:${customerId}` },
          { $inc: { value: count } },
          { upsert: true, returnDocument: 'after' },
        ).lean<EventSequenceDoc>();
      let d: EventSequenceDoc | null;
      try {
        d = await bump();
      } catch (err) {
        // Two first upserts of one counter may race; the loser's retry finds the document.
        if (!isDuplicateKeyError(err)) throw err;
        d = await bump();
      }
      return d!.value - count + 1;
    },
  };
}
export type EventSequenceRepository = ReturnType<typeof eventSequenceRepository>;
