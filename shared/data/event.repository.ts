/**
 * The event outbox (event.schema.ts). Writes are keyed by the event's derived `_id`, so
 * recording the same change twice leaves one document with its first sequence number.
 */
import { Types } from 'mongoose';
import type { EventRecord, EventType } from '../domain/events.js';
import { CommandBatcher } from './batched.js';
import type { Models } from './db.js';
import type { EventDoc } from './event.schema.js';

export type StoredEvent = EventRecord;

const toRecord = (d: EventDoc): StoredEvent => ({
  id: d._id,
  applicationId: String(d.application),
  customerId: String(d.customer),
  type: d.type,
  sequence: d.sequence,
  requestId: d.requestId ?? '',
  createdAt: d.createdAt,
  data: d.data,
});

export function eventRepository({ Event }: Models) {
  const batch = new CommandBatcher(Event);
  return {
    /** A customer's stored events name it by `sourceId` from now on (an erasure). */
    async replaceSourceId(applicationId: string, customerId: string, sourceId: string): Promise<number> {
      const res = await Event.updateMany({ application: applicationId, customer: customerId }, { $set: { 'data.source_id': sourceId } });
      return res.modifiedCount;
    },
    /**
     * Writes the events that are not there yet (one `insert`, shared with other jobs' events of
     * the moment); existing ones are left as they are — one a concurrent re-run inserted first is
     * refused by the unique `_id`, which is all a re-run needs (an event's content is fixed by its
     * change and its job's reservation). Their deliveries are written before them.
     */
    async record(events: EventRecord[]): Promise<void> {
      await Promise.all(
        events.map((e) =>
          batch.insert({
            _id: e.id,
            application: new Types.ObjectId(e.applicationId),
            customer: new Types.ObjectId(e.customerId),
            type: e.type,
            sequence: e.sequence,
            requestId: e.requestId,
            data: e.data,
            // The event's `created`: the same instant in the body and here.
            createdAt: e.createdAt,
            updatedAt: e.createdAt,
          }),
        ),
      );
    },
    async get(id: string): Promise<StoredEvent | null> {
      const d = await Event.findById(id).lean<EventDoc>();
      return d ? toRecord(d) : null;
    },
    /** Which of these events are in the outbox (one read by `_id`). */
    async existing(ids: string[]): Promise<Set<string>> {
      const ds = await Event.find({ _id: { $in: ids } }, { _id: 1 }).lean<Pick<EventDoc, '_id'>[]>();
      return new Set(ds.map((d) => d._id));
    },
    /** An application's event by id (admin). */
    async find(applicationId: string, id: string): Promise<StoredEvent | null> {
      const d = await Event.findOne({ _id: id, application: applicationId }).lean<EventDoc>();
      return d ? toRecord(d) : null;
    },
    /**
     * Admin listing, newest first (then by `_id`, descending), optionally of one type and one
     * customer: a page of the events before `before`, the sort key of the last row of the previous page.
     */
    async list(
      applicationId: string,
      q: { type?: EventType; customerId?: string; before?: { at: Date; id: string }; limit: number },
    ): Promise<StoredEvent[]> {
      const filter = {
        application: applicationId,
        ...(q.type ? { type: q.type } : {}),
        ...(q.customerId ? { customer: q.customerId } : {}),
        ...(q.before ? { $or: [{ createdAt: { $lt: q.before.at } }, { createdAt: q.before.at, _id: { $lt: q.before.id } }] } : {}),
      };
      const ds = await Event.find(filter).sort({ createdAt: -1, _id: -1 }).limit(q.limit).lean<EventDoc[]>();
      return ds.map(toRecord);
    },
    /** An application's events in [from, to), oldest first, at most `limit` (redelivery of a range). */
    async inRange(applicationId: string, from: Date, to: Date, limit: number): Promise<StoredEvent[]> {
      const ds = await Event.find({ application: applicationId, createdAt: { $gte: from, $lt: to } })
        .sort({ createdAt: 1 })
        .limit(limit)
        .lean<EventDoc[]>();
      return ds.map(toRecord);
    },
    /** Retention: events written before `before`. */
    async deleteBefore(before: Date): Promise<number> {
      const res = await Event.deleteMany({ createdAt: { $lt: before } });
      return res.deletedCount ?? 0;
    },
  };
}
