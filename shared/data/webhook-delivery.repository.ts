/**
 * Deliveries of events to endpoints (webhook-delivery.schema.ts). Every state change is a
 * single-document update guarded by the delivery's `generation` (and, to start an attempt, its
 * attempt count), so a stale or duplicated job changes nothing.
 */
import { Types, type UpdateQuery } from 'mongoose';
import type { Models } from './db.js';
import type { DeliveryStatus, WebhookDeliveryDoc } from './webhook-delivery.schema.js';

/** A delivery as the use cases see it: the document with string ids. */
export type DeliveryRecord = Omit<WebhookDeliveryDoc, '_id' | 'application' | 'endpoint' | 'customer' | 'event'> & {
  id: string;
  applicationId: string;
  endpointId: string;
  customerId: string;
  eventId: string;
};

/** What identifies one queued job of a delivery. */
export interface DeliveryTicket {
  deliveryId: string;
  generation: number;
}

/** A delivery to create: one event for one endpoint. */
export interface NewDelivery {
  applicationId: string;
  endpointId: string;
  customerId: string;
  eventId: string;
  eventType: string;
  sequence: number;
}

export const deliveryIdOf = (eventId: string, endpointId: string) => `${eventId}-${endpointId}`;

const toRecord = (d: WebhookDeliveryDoc): DeliveryRecord => ({
  id: d._id,
  applicationId: String(d.application),
  endpointId: String(d.endpoint),
  customerId: String(d.customer),
  eventId: d.event,
  eventType: d.eventType,
  sequence: d.sequence,
  status: d.status,
  generation: d.generation,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt ?? null,
  lastAttemptAt: d.lastAttemptAt ?? null,
  lastStatusCode: d.lastStatusCode ?? null,
  lastError: d.lastError ?? null,
  deliveredAt: d.deliveredAt ?? null,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

const staticFields = (d: NewDelivery) => ({
  application: new Types.ObjectId(d.applicationId),
  endpoint: new Types.ObjectId(d.endpointId),
  customer: new Types.ObjectId(d.customerId),
  event: d.eventId,
  eventType: d.eventType,
  sequence: d.sequence,
});

/** Of one stream (endpoint, customer), the unfinished delivery with the lowest sequence in `range`. */
type SequenceRange = { $lt: number } | { $gt: number };

export function webhookDeliveryRepository({ WebhookDelivery }: Models) {
  const firstPending = async (endpointId: string, customerId: string, range: SequenceRange) => {
    const d = await WebhookDelivery.findOne({ endpoint: endpointId, customer: customerId, sequence: range, status: 'pending' })
      .sort({ sequence: 1 })
      .lean<WebhookDeliveryDoc>();
    return d ? toRecord(d) : null;
  };
  /** The tickets of the given deliveries that are pending. */
  const ticketsOf = async (ids: string[]): Promise<DeliveryTicket[]> => {
    const ds = await WebhookDelivery.find({ _id: { $in: ids }, status: 'pending' }, { generation: 1 }).lean<
      Pick<WebhookDeliveryDoc, '_id' | 'generation'>[]
    >();
    return ds.map((d) => ({ deliveryId: d._id, generation: d.generation }));
  };
  /** Upserts one document per delivery (one round trip), then returns the tickets of those pending. */
  const upsertEach = async (deliveries: NewDelivery[], updateOf: (d: NewDelivery) => UpdateQuery<WebhookDeliveryDoc>) => {
    if (deliveries.length === 0) return [];
    const ids = deliveries.map((d) => deliveryIdOf(d.eventId, d.endpointId));
    await WebhookDelivery.bulkWrite(
      deliveries.map((d, i) => ({ updateOne: { filter: { _id: ids[i] }, update: updateOf(d), upsert: true } })),
      { ordered: false },
    );
    return ticketsOf(ids);
  };
  /** A guarded change of a pending delivery owned by `generation`; true when it applied. */
  const changePending = async (t: DeliveryTicket, set: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const res = await WebhookDelivery.updateOne(
      { _id: t.deliveryId, generation: t.generation, status: 'pending', ...extra },
      { $set: set },
    );
    return res.modifiedCount === 1;
  };

  return {
    /**
     * Creates the deliveries that do not exist yet (`pending`, generation 0) and returns the
     * tickets of every one of them still pending: a re-run after a crash queues what the first run
     * could not (queueing is deduplicated by ticket).
     */
    async createMissing(deliveries: NewDelivery[], now: Date): Promise<DeliveryTicket[]> {
      return upsertEach(deliveries, (d) => ({
        $setOnInsert: { ...staticFields(d), status: 'pending', generation: 0, attempts: 0, nextAttemptAt: now },
      }));
    },
    /**
     * Redelivery: each delivery (created if missing) becomes `pending` again with a fresh attempt
     * count and a new generation. Returns the tickets of the jobs to queue.
     */
    async reopen(deliveries: NewDelivery[], now: Date): Promise<DeliveryTicket[]> {
      return upsertEach(deliveries, (d) => ({
        $setOnInsert: staticFields(d),
        $set: { status: 'pending', attempts: 0, nextAttemptAt: now, lastError: null, lastStatusCode: null, deliveredAt: null },
        $inc: { generation: 1 },
      }));
    },
    async get(id: string): Promise<DeliveryRecord | null> {
      const d = await WebhookDelivery.findById(id).lean<WebhookDeliveryDoc>();
      return d ? toRecord(d) : null;
    },
    /** The earliest unfinished delivery of the stream before `sequence`: it must finish first. */
    firstPendingBefore: (endpointId: string, customerId: string, sequence: number) =>
      firstPending(endpointId, customerId, { $lt: sequence }),
    /** The next unfinished delivery of the stream after `sequence`: woken when this one finishes. */
    firstPendingAfter: (endpointId: string, customerId: string, sequence: number) =>
      firstPending(endpointId, customerId, { $gt: sequence }),
    /** Claims attempt `attempts + 1`; false when another run claimed it, or the job is stale. */
    startAttempt: (t: DeliveryTicket, attempts: number, now: Date, deadline: Date) =>
      changePending(t, { attempts: attempts + 1, lastAttemptAt: now, nextAttemptAt: deadline }, { attempts }),
    /** Records when the job runs next (a retry, or an ordering wait). */
    scheduleAt: (t: DeliveryTicket, at: Date, failure?: { statusCode: number | null; error: string }) =>
      changePending(t, { nextAttemptAt: at, ...(failure ? { lastStatusCode: failure.statusCode, lastError: failure.error } : {}) }),
    /** Ends a delivery: `succeeded`, `dead` or `cancelled`. */
    finish: (
      t: DeliveryTicket,
      status: Exclude<DeliveryStatus, 'pending'>,
      o: { statusCode?: number | null; error?: string | null; at: Date },
    ) =>
      changePending(t, {
        status,
        nextAttemptAt: null,
        ...(o.statusCode !== undefined ? { lastStatusCode: o.statusCode } : {}),
        ...(o.error !== undefined ? { lastError: o.error } : {}),
        ...(status === 'succeeded' ? { deliveredAt: o.at, lastError: null } : {}),
      }),
    /** The endpoint was disabled: its pending deliveries (but `exceptId`) are cancelled; their jobs then stop. */
    async cancelPendingOfEndpoint(endpointId: string, reason: string, exceptId?: string): Promise<number> {
      const res = await WebhookDelivery.updateMany(
        { endpoint: endpointId, status: 'pending', ...(exceptId ? { _id: { $ne: exceptId } } : {}) },
        { $set: { status: 'cancelled', nextAttemptAt: null, lastError: reason } },
      );
      return res.modifiedCount;
    },
    /** Pending deliveries whose job should have run before `before` (the sweep). */
    async listOverdue(before: Date, limit: number): Promise<DeliveryTicket[]> {
      const ds = await WebhookDelivery.find({ status: 'pending', nextAttemptAt: { $lt: before } }, { generation: 1 })
        .sort({ nextAttemptAt: 1 })
        .limit(limit)
        .lean<Pick<WebhookDeliveryDoc, '_id' | 'generation'>[]>();
      return ds.map((d) => ({ deliveryId: d._id, generation: d.generation }));
    },
    /** Hands a pending delivery to a new job (its old job was lost); null when something else moved it. */
    async takeOver(t: DeliveryTicket, now: Date): Promise<DeliveryTicket | null> {
      const res = await WebhookDelivery.updateOne(
        { _id: t.deliveryId, generation: t.generation, status: 'pending' },
        { $inc: { generation: 1 }, $set: { nextAttemptAt: now } },
      );
      return res.modifiedCount === 1 ? { deliveryId: t.deliveryId, generation: t.generation + 1 } : null;
    },
    /**
     * Admin listing of an endpoint's deliveries, newest first (then by `_id`, descending): a page
     * of the deliveries before `before`, the sort key of the last row of the previous page.
     */
    async list(
      applicationId: string,
      endpointId: string,
      q: { status?: DeliveryStatus; eventId?: string; before?: { at: Date; id: string }; limit: number },
    ): Promise<DeliveryRecord[]> {
      const filter = {
        application: applicationId,
        endpoint: endpointId,
        ...(q.status ? { status: q.status } : {}),
        // One delivery per event and endpoint: its id is derived, so the `_id` index finds it.
        ...(q.eventId ? { _id: deliveryIdOf(q.eventId, endpointId) } : {}),
        ...(q.before ? { $or: [{ createdAt: { $lt: q.before.at } }, { createdAt: q.before.at, _id: { $lt: q.before.id } }] } : {}),
      };
      const ds = await WebhookDelivery.find(filter).sort({ createdAt: -1, _id: -1 }).limit(q.limit).lean<WebhookDeliveryDoc[]>();
      return ds.map(toRecord);
    },
    /** Retention: finished deliveries created before `before`. */
    async deleteFinishedBefore(before: Date): Promise<number> {
      const res = await WebhookDelivery.deleteMany({ createdAt: { $lt: before }, status: { $ne: 'pending' } });
      return res.deletedCount ?? 0;
    },
  };
}
export type WebhookDeliveryRepository = ReturnType<typeof webhookDeliveryRepository>;
