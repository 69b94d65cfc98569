/**
 * Deliveries of events to endpoints (webhook-delivery.schema.ts). Every state change is a
 * single-document update guarded by the delivery's `generation` and `status: pending` (and, to
 * record an attempt, its attempt count), so a stale or duplicated job changes nothing.
 */
import { Types, type UpdateQuery } from 'mongoose';
import { CommandBatcher } from './batched.js';
import type { Models } from './db.js';
import type { RecordOf } from './stored.js';
import type { DeliveryStatus, WebhookDeliveryDoc } from './webhook-delivery.schema.js';

/** A delivery as the use cases see it: the document with string ids. */
export type DeliveryRecord = RecordOf<WebhookDeliveryDoc, 'application' | 'endpoint' | 'customer' | 'event', 'job'>;

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
  /** The event as sent (`renderEvent`). */
  body: string;
  /** The job created with it, when it is queued in a run. */
  job?: string;
}

/** One delivery of a run, with what an attempt needs (it never changes). */
export interface RunItem extends DeliveryTicket {
  eventId: string;
  eventType: string;
  sequence: number;
  body: string;
}

/**
 * Deliveries of one stream (endpoint, customer) sent one after the other by one job, in sequence
 * order: those one operation made for one endpoint, or a single one.
 */
export interface DeliveryRun {
  applicationId: string;
  endpointId: string;
  customerId: string;
  items: RunItem[];
}

/**
 * The data of a delivery job (persisted with the job): the ticket of its first delivery and —
 * when queued by the recording job — the whole run, so that an attempt reads nothing it could
 * carry. A job with a ticket only (queued by the sweep or a redelivery)
 * reads its delivery.
 */
export interface DeliveryJobData extends DeliveryTicket {
  run?: DeliveryRun;
}

/** A pending delivery of a stream, as the ordering check reads it. */
export interface PendingDelivery {
  id: string;
  sequence: number;
  generation: number;
  attempts: number;
  nextAttemptAt: Date | null;
}

/** A pending delivery found by the sweep, with the job created with it (if any). */
export interface OverdueDelivery extends DeliveryTicket {
  job: string | null;
}

/** A guarded change of a pending delivery: applied only while `generation` owns it (and it has made `attempts`). */
export interface DeliveryChange extends DeliveryTicket {
  attempts?: number;
  set: Partial<
    Pick<WebhookDeliveryDoc, 'status' | 'attempts' | 'nextAttemptAt' | 'lastAttemptAt' | 'lastStatusCode' | 'lastError' | 'deliveredAt'>
  >;
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
  body: d.body,
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
  body: d.body,
});

export function webhookDeliveryRepository({ WebhookDelivery }: Models) {
  const batch = new CommandBatcher(WebhookDelivery);
  const streams = new StreamReads(batch);
  /** Upserts one document per delivery, in one round trip. */
  const upsertEach = (deliveries: NewDelivery[], ids: string[], updateOf: (d: NewDelivery) => UpdateQuery<WebhookDeliveryDoc>) =>
    WebhookDelivery.bulkWrite(
      deliveries.map((d, i) => ({ updateOne: { filter: { _id: ids[i] }, update: updateOf(d), upsert: true } })),
      { ordered: false },
    );

  return {
    /**
     * A customer's deliveries to `endpointIds` carry `sourceId` in their body from now on (an
     * erasure): those still to send, and the stored copies of those sent.
     */
    async replaceSourceId(endpointIds: string[], customerId: string, sourceId: string): Promise<number> {
      let changed = 0;
      for (const endpoint of endpointIds) {
        const docs = await WebhookDelivery.find({ endpoint, customer: customerId }, { body: 1 }).lean<{ _id: string; body: string }[]>();
        for (const d of docs) {
          const body = JSON.parse(d.body) as { data?: { source_id?: string } };
          if (!body.data || body.data.source_id === sourceId) continue;
          body.data.source_id = sourceId;
          await WebhookDelivery.updateOne({ _id: d._id }, { $set: { body: JSON.stringify(body) } });
          changed++;
        }
      }
      return changed;
    },
    /** Creates the deliveries that do not exist yet (`pending`, generation 0), in one round trip; the others stay as they are. */
    async createMissing(deliveries: NewDelivery[], now: Date): Promise<void> {
      // One `insert`, shared with other jobs' deliveries of the moment. A delivery that exists
      // (an earlier or overlapping run of the job wrote it) is refused by its `_id` and kept.
      await Promise.all(
        deliveries.map((d) =>
          batch.insert({
            _id: deliveryIdOf(d.eventId, d.endpointId),
            ...staticFields(d),
            job: d.job ?? null,
            status: 'pending',
            generation: 0,
            attempts: 0,
            nextAttemptAt: now,
            createdAt: now,
            updatedAt: now,
          }),
        ),
      );
    },
    /**
     * Redelivery: each delivery (created if missing) becomes `pending` again with a fresh attempt
     * count and a new generation. Returns the tickets of the jobs to queue.
     */
    async reopen(deliveries: NewDelivery[], now: Date): Promise<DeliveryTicket[]> {
      if (deliveries.length === 0) return [];
      const ids = deliveries.map((d) => deliveryIdOf(d.eventId, d.endpointId));
      await upsertEach(deliveries, ids, (d) => ({
        $setOnInsert: staticFields(d),
        $set: { status: 'pending', attempts: 0, nextAttemptAt: now, lastError: null, lastStatusCode: null, deliveredAt: null, job: null },
        $inc: { generation: 1 },
      }));
      const ds = await WebhookDelivery.find({ _id: { $in: ids }, status: 'pending' }, { generation: 1 }).lean<
        Pick<WebhookDeliveryDoc, '_id' | 'generation'>[]
      >();
      return ds.map((d) => ({ deliveryId: d._id, generation: d.generation }));
    },
    async get(id: string): Promise<DeliveryRecord | null> {
      const d = await WebhookDelivery.findById(id).lean<WebhookDeliveryDoc>();
      return d ? toRecord(d) : null;
    },
    /** The bodies of these deliveries (those that have one), by id: one read by `_id`. */
    async bodiesOf(ids: string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map();
      const ds = await WebhookDelivery.find({ _id: { $in: ids } }, { body: 1 }).lean<Pick<WebhookDeliveryDoc, '_id' | 'body'>[]>();
      return new Map(ds.filter((d) => d.body).map((d) => [d._id, d.body!]));
    },
    /**
     * The pending deliveries of a stream numbered up to `upTo`, lowest first, at most `limit`: one
     * indexed read that says both whether an earlier delivery is unfinished (the first one is
     * below the run) and which deliveries of the run are still pending, with their attempts.
     * Reads of concurrent runs share one command ({@link StreamReads}).
     */
    pendingOfStream(endpointId: string, customerId: string, upTo: number, limit: number): Promise<PendingDelivery[]> {
      return streams.read({ endpointId, customerId, upTo, limit });
    },
    /**
     * Applies guarded changes to pending deliveries (one round trip, shared with other runs' of the
     * moment): a change whose delivery moved on meanwhile (another generation, attempt or status)
     * applies to nothing.
     */
    async settle(changes: DeliveryChange[]): Promise<void> {
      const now = new Date();
      await Promise.all(
        changes.map((c) =>
          batch.updateBlind(
            {
              _id: c.deliveryId,
              generation: c.generation,
              status: 'pending',
              ...(c.attempts !== undefined ? { attempts: c.attempts } : {}),
            },
            { $set: { ...c.set, updatedAt: now } },
          ),
        ),
      );
    },
    /** The endpoint was disabled: its pending deliveries are cancelled; their jobs then stop. */
    async cancelPendingOfEndpoint(endpointId: string, reason: string): Promise<number> {
      const res = await WebhookDelivery.updateMany(
        { endpoint: endpointId, status: 'pending' },
        { $set: { status: 'cancelled', nextAttemptAt: null, lastError: reason } },
      );
      return res.modifiedCount;
    },
    /** Pending deliveries whose attempt was due before `before` (the sweep). */
    async listOverdue(before: Date, limit: number): Promise<OverdueDelivery[]> {
      const ds = await WebhookDelivery.find({ status: 'pending', nextAttemptAt: { $lt: before } }, { generation: 1, job: 1 })
        .sort({ nextAttemptAt: 1 })
        .limit(limit)
        .lean<Pick<WebhookDeliveryDoc, '_id' | 'generation' | 'job'>[]>();
      return ds.map((d) => ({ deliveryId: d._id, generation: d.generation, job: d.generation === 0 ? (d.job ?? null) : null }));
    },
    /** Hands a pending delivery to a new job (its old job was lost); null when something else moved it. */
    async takeOver(t: DeliveryTicket, now: Date): Promise<DeliveryTicket | null> {
      const res = await WebhookDelivery.updateOne(
        { _id: t.deliveryId, generation: t.generation, status: 'pending' },
        { $inc: { generation: 1 }, $set: { nextAttemptAt: now, job: null } },
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
      const ds = await WebhookDelivery.find(filter, { body: 0 })
        .sort({ createdAt: -1, _id: -1 })
        .limit(q.limit)
        .lean<WebhookDeliveryDoc[]>();
      return ds.map(toRecord);
    },
    /** Retention: finished deliveries created before `before`. */
    async deleteFinishedBefore(before: Date): Promise<number> {
      const res = await WebhookDelivery.deleteMany({ createdAt: { $lt: before }, status: { $ne: 'pending' } });
      return res.deletedCount ?? 0;
    },
  };
}

/** One stream read: its pending deliveries numbered up to `upTo`, lowest first, at most `limit`. */
interface StreamRead {
  endpointId: string;
  customerId: string;
  upTo: number;
  limit: number;
}

type PendingDoc = Pick<WebhookDeliveryDoc, '_id' | 'endpoint' | 'customer' | 'sequence' | 'generation' | 'attempts' | 'nextAttemptAt'>;

const PENDING_FIELDS = { endpoint: 1, customer: 1, sequence: 1, generation: 1, attempts: 1, nextAttemptAt: 1 };
/** At most this many streams per shared read. */
const MAX_STREAMS = 100;

const pendingOf = (d: PendingDoc): PendingDelivery => ({
  id: d._id,
  sequence: d.sequence,
  generation: d.generation,
  attempts: d.attempts,
  nextAttemptAt: d.nextAttemptAt ?? null,
});

/**
 * The stream reads of concurrent delivery runs, coalesced: those asked in one turn of the event
 * loop go out as one `find` of the pending deliveries of every (endpoint, customer) among them —
 * `$in` on both, the same index as a single read, a few rows per stream — and each run gets its own
 * stream's rows. When the streams hold more pending deliveries than the read takes (a backlog:
 * a receiver was down), the streams it did not read whole are read on their own, as alone, so no
 * answer is ever cut short. On the test database one read of 16 streams costs about what 1.5
 * single reads do.
 */
class StreamReads {
  private queue: (StreamRead & { resolve: (v: PendingDelivery[]) => void; reject: (err: unknown) => void })[] = [];

  constructor(private readonly batch: CommandBatcher) {}

  read(r: StreamRead): Promise<PendingDelivery[]> {
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => this.flush());
      this.queue.push({ ...r, resolve, reject });
    });
  }

  private flush() {
    const queue = this.queue;
    this.queue = [];
    for (let i = 0; i < queue.length; i += MAX_STREAMS) {
      const part = queue.slice(i, i + MAX_STREAMS);
      this.answer(part).then(
        (answers) => part.forEach((r, k) => r.resolve(answers[k]!)),
        (err: unknown) => part.forEach((r) => r.reject(err)),
      );
    }
  }

  private async answer(reads: StreamRead[]): Promise<PendingDelivery[][]> {
    if (reads.length === 1) return [await this.readOne(reads[0]!)];
    const cap = reads.reduce((n, r) => n + r.limit, 0) * 4 + 16;
    // In index order — stream by stream, each lowest first — so that when the read is cut short,
    // the streams before the first row left out are known to be whole.
    const docs = (await this.batch.findMany(
      {
        endpoint: { $in: unique(reads.map((r) => r.endpointId)).map((id) => new Types.ObjectId(id)) },
        customer: { $in: unique(reads.map((r) => r.customerId)).map((id) => new Types.ObjectId(id)) },
        status: 'pending',
        sequence: { $lte: Math.max(...reads.map((r) => r.upTo)) },
      },
      { projection: PENDING_FIELDS, sort: { endpoint: 1, customer: 1, sequence: 1 }, limit: cap + 1 },
    )) as PendingDoc[];
    const streamOf = (d: PendingDoc) => `${String(d.endpoint)}:${String(d.customer)}`;
    // Ids are 24 lowercase hex digits: their text sorts as their bytes do.
    const cut = docs.length > cap ? streamOf(docs[cap]!) : null;
    const byStream = new Map<string, PendingDoc[]>();
    for (const d of docs.slice(0, cap)) {
      const stream = byStream.get(streamOf(d));
      if (stream) stream.push(d);
      else byStream.set(streamOf(d), [d]);
    }
    return Promise.all(
      reads.map((r) => {
        const key = `${r.endpointId}:${r.customerId}`;
        if (cut !== null && key >= cut) return this.readOne(r);
        return (byStream.get(key) ?? [])
          .filter((d) => d.sequence <= r.upTo)
          .slice(0, r.limit)
          .map(pendingOf);
      }),
    );
  }

  private async readOne(r: StreamRead): Promise<PendingDelivery[]> {
    const docs = (await this.batch.findMany(
      {
        endpoint: new Types.ObjectId(r.endpointId),
        customer: new Types.ObjectId(r.customerId),
        status: 'pending',
        sequence: { $lte: r.upTo },
      },
      { projection: PENDING_FIELDS, sort: { sequence: 1 }, limit: r.limit },
    )) as PendingDoc[];
    return docs.map(pendingOf);
  }
}

const unique = (xs: string[]) => [...new Set(xs)];
