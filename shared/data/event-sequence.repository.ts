import { CommandBatcher } from './batched.js';
import { isDuplicateKeyError, type Models } from './db.js';
import type { EventSequenceDoc } from './event-sequence.schema.js';

/** Numbers taken for one job's events: `first` … `first + count - 1`, taken at `at`. */
export interface Reservation {
  first: number;
  at: Date;
}

export function eventSequenceRepository({ EventSequence }: Models) {
  // Raw commands: no casting or hydration on the path of every recorded operation.
  const commands = new CommandBatcher(EventSequence);
  return {
    /**
     * Reserves `count` consecutive numbers for a customer's events, for `holder` (a job), in one
     * single-document update (two for a customer's first events). Idempotent per holder while it is the last one: a re-run of the job
     * (the stall check, an overlapping run after a lost lock, a retried write) gets the same
     * numbers and the same instant back. Another holder gets new numbers (gaps are harmless:
     * only the order counts).
     */
    async reserve(applicationId: string, customerId: string, count: number, holder: string, now: Date): Promise<Reservation> {
      const _id = `${applicationId}:${customerId}`;
      const of = (d: Pick<EventSequenceDoc, 'value' | 'at'>): Reservation => ({ first: d.value - count + 1, at: d.at ?? now });
      for (let round = 0; round < 3; round++) {
        // The usual case: the counter exists and another job took the last numbers.
        const taken = (await commands.findAndModify(
          { _id, holder: { $ne: holder } },
          { $inc: { value: count }, $set: { holder, at: now } },
        )) as EventSequenceDoc | null;
        if (taken) return of(taken);
        // A customer's first events: create the counter. (Not an upsert above: a duplicate key in
        // an upserting findAndModify is not reported as one by every MongoDB-wire store.)
        try {
          await EventSequence.create({ _id, value: count, holder, at: now });
          return of({ value: count, at: now });
        } catch (err) {
          if (!isDuplicateKeyError(err)) throw err;
        }
        // It exists: this holder took its numbers already (a re-run), or the counter was created
        // meanwhile (then the next round takes numbers).
        const d = await EventSequence.findById(_id).lean<EventSequenceDoc>();
        if (d?.holder === holder) return of(d);
      }
      throw new Error(`event sequence of ${_id}: no reservation after 3 rounds`);
    },
  };
}
export type EventSequenceRepository = ReturnType<typeof eventSequenceRepository>;
