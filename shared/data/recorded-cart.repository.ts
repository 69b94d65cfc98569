/**
 * Recorded carts (recorded-cart.schema.ts): appended in batches (shared/cache/cart-recorder.ts),
 * read in their order by a backtest, removed with their customer.
 */
import { Types, mongo } from 'mongoose';
import type { Models } from './db.js';
import type { RecordedCartDoc } from './recorded-cart.schema.js';
import type { RecordedOutcome } from '../domain/backtest.js';

export type { RecordedOutcome };

/** A cart to record. */
export interface CartToRecord {
  /** Its id: a redeem's is derived from what it decided, so that a job run twice records it once. */
  id: string;
  applicationId: string;
  at: Date;
  kind: 'l' | 'v' | 'r' | 'u';
  customerId: string | null;
  order: unknown;
  codes?: string[];
  orderId?: string;
  outcomes?: RecordedOutcome[];
  expiresAt: Date;
}

/** A recorded cart as a replay reads it. */
export interface RecordedCart {
  id: string;
  at: Date;
  kind: 'l' | 'v' | 'r' | 'u';
  customerId: string | null;
  order: unknown;
  codes: string[];
  orderId: string | null;
  outcomes: RecordedOutcome[];
}

const toCart = (d: RecordedCartDoc): RecordedCart => ({
  id: d._id,
  at: d.t,
  kind: d.k as RecordedCart['kind'],
  customerId: d.c ? String(d.c) : null,
  order: d.o ?? null,
  codes: d.q ?? [],
  orderId: d.oi ?? null,
  outcomes: d.x ?? [],
});

/**
 * The carts of an unordered insert the database refused one by one, other than those recorded
 * already (a duplicate id): a document it will never take (a field name it refuses). The others of
 * the batch were written. Null: not such an error (the whole insert may be tried again).
 */
function refusedOf(err: unknown): { index: number; message: string }[] | null {
  if (!(err instanceof mongo.MongoBulkWriteError)) return null;
  const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  if (errors.length === 0) return null;
  return errors.filter((e) => e.code !== 11000).map((e) => ({ index: e.index, message: e.errmsg ?? String(e.code) }));
}

/** What a replay reads of an application's carts of a period. */
export interface CartRange {
  applicationId: string;
  start: Date;
  end: Date;
  /** Only the carts that named or used one of these campaigns (their outcomes say so). */
  campaignIds?: string[];
}

const filterOf = (r: CartRange) => ({
  a: new Types.ObjectId(r.applicationId),
  t: { $gte: r.start, $lt: r.end },
  ...(r.campaignIds ? { 'x.cp': { $in: r.campaignIds } } : {}),
});

export function recordedCartRepository({ RecordedCart }: Models) {
  const carts = RecordedCart.collection;
  return {
    /**
     * Appends carts in one unordered insert; one recorded already (the same id) is left as it is.
     * Returns the carts the database refused (never to be taken: not worth another try); throws
     * when the insert as a whole failed (worth another: it is idempotent).
     */
    async append(rows: CartToRecord[]): Promise<{ index: number; message: string }[]> {
      if (rows.length === 0) return [];
      const docs = rows.map((r) => ({
        _id: r.id as never,
        a: new Types.ObjectId(r.applicationId),
        t: r.at,
        k: r.kind,
        c: r.customerId ? new Types.ObjectId(r.customerId) : null,
        o: r.order ?? null,
        ...(r.codes?.length ? { q: r.codes } : {}),
        ...(r.orderId !== undefined ? { oi: r.orderId } : {}),
        ...(r.outcomes?.length ? { x: r.outcomes } : {}),
        e: r.expiresAt,
      }));
      try {
        await carts.insertMany(docs, { ordered: false });
        return [];
      } catch (err) {
        const refused = refusedOf(err);
        if (!refused) throw err;
        return refused;
      }
    },
    /** How many carts a replay of `range` reads. */
    count(range: CartRange): Promise<number> {
      return carts.countDocuments(filterOf(range));
    },
    /**
     * The carts of `range` in their order (`t`, then id: a redeem accepted before one refused at the
     * same millisecond, docs/results.md "The order of a replay"), streamed.
     */
    async *inOrder(range: CartRange, batchSize = 2000): AsyncGenerator<RecordedCart> {
      const cursor = carts.find(filterOf(range)).sort({ t: 1, _id: 1 }).batchSize(batchSize);
      try {
        for await (const d of cursor) yield toCart(d as unknown as RecordedCartDoc);
      } finally {
        await cursor.close();
      }
    },
    /** Removes a customer's recorded carts (erasure); how many there were. */
    async eraseCustomer(applicationId: string, customerId: string): Promise<number> {
      const r = await carts.deleteMany({ a: new Types.ObjectId(applicationId), c: new Types.ObjectId(customerId) });
      return r.deletedCount;
    },
    /** A customer's recorded carts, oldest first (tests, and a person's data). */
    async ofCustomer(applicationId: string, customerId: string): Promise<RecordedCart[]> {
      const ds = await carts
        .find({ a: new Types.ObjectId(applicationId), c: new Types.ObjectId(customerId) })
        .sort({ t: 1, _id: 1 })
        .toArray();
      return ds.map((d) => toCart(d as unknown as RecordedCartDoc));
    },
  };
}
export type RecordedCartRepository = ReturnType<typeof recordedCartRepository>;
