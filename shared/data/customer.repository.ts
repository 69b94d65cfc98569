import { Types } from 'mongoose';
import type { CustomerDoc } from './customer.schema.js';
import { CommandBatcher } from './batched.js';
import type { Models } from './db.js';
import { applicationScopedAdmin } from './admin-queries.js';
import type { RecordOf } from './stored.js';

/** A customer; `name` and `email` are absent when not given (or erased), as stored. */
export type CustomerRecord = RecordOf<CustomerDoc, 'application', 'name' | 'email' | 'createdAt' | 'updatedAt'> &
  Pick<CustomerDoc, 'name' | 'email'>;

const toRecord = (d: CustomerDoc): CustomerRecord => ({
  id: String(d._id),
  applicationId: String(d.application),
  sourceId: d.sourceId,
  ...(d.name !== undefined ? { name: d.name } : {}),
  ...(d.email !== undefined ? { email: d.email } : {}),
  archivedAt: d.archivedAt ?? null,
  erasedAt: d.erasedAt ?? null,
});

export function customerRepository({ Customer }: Models) {
  const batch = new CommandBatcher(Customer);
  return {
    /** Erases a person's data: name and e-mail removed, the source id replaced by `sourceId` (opaque). */
    async erase(applicationId: string, id: string, sourceId: string, now: Date): Promise<CustomerRecord | null> {
      const d = await Customer.findOneAndUpdate(
        { _id: id, application: applicationId },
        { $set: { sourceId, erasedAt: now }, $unset: { name: '', email: '' } },
        { returnDocument: 'after' },
      ).lean<CustomerDoc>();
      return d ? toRecord(d) : null;
    },
    /**
     * Resolves the client's `source_id` or, failing that, the service's customer id — both are
     * accepted where the contract says so. Always scoped by application (docs/decisions.md#25). An
     * archived customer is unknown to the client routes; the admin reads it with
     * `includeArchived`.
     */
    async resolve(applicationId: string, idOrSourceId: string, opts: { includeArchived?: boolean } = {}): Promise<CustomerRecord | null> {
      const live = opts.includeArchived ? {} : { archivedAt: null };
      const bySource = (await batch.findOne(
        { application: new Types.ObjectId(applicationId), sourceId: idOrSourceId },
        { where: live },
      )) as CustomerDoc | null;
      if (bySource) return toRecord(bySource);
      if (!Types.ObjectId.isValid(idOrSourceId) || String(new Types.ObjectId(idOrSourceId)) !== idOrSourceId) return null;
      const byId = await Customer.findOne({ application: applicationId, _id: idOrSourceId, ...live }).lean<CustomerDoc>();
      return byId ? toRecord(byId) : null;
    },
    async findBySourceIds(applicationId: string, sourceIds: string[]) {
      const ds = await Customer.find({ application: applicationId, sourceId: { $in: sourceIds } }).lean<CustomerDoc[]>();
      return ds.map(toRecord);
    },
    /**
     * Creates or updates one live customer by `sourceId` (an application's own sign-ups): `created`
     * says which. An archived customer is left unchanged and returned with `archivedAt` set. The
     * upsert only matches a live customer, so an archived one (or a concurrent first upsert of
     * the same `sourceId`) makes it collide on the unique index: MongoDB answers E11000, the test
     * database an internal error; either way the customer is then read and, if live, updated.
     */
    async upsertOne(
      applicationId: string,
      c: { sourceId: string; name?: string; email?: string },
    ): Promise<{ customer: CustomerRecord; created: boolean }> {
      const app = new Types.ObjectId(applicationId);
      const set = { ...(c.name !== undefined ? { name: c.name } : {}), ...(c.email !== undefined ? { email: c.email } : {}) };
      const id = new Types.ObjectId();
      try {
        const d = await Customer.findOneAndUpdate(
          { application: app, sourceId: c.sourceId, archivedAt: null },
          { ...(Object.keys(set).length ? { $set: set } : {}), $setOnInsert: { _id: id } },
          { upsert: true, returnDocument: 'after', lean: true },
        );
        return { customer: toRecord(d as CustomerDoc), created: String(d!._id) === String(id) };
      } catch (err) {
        const existing = await Customer.findOne({ application: app, sourceId: c.sourceId }).lean<CustomerDoc>();
        if (!existing) throw err;
        if (existing.archivedAt || Object.keys(set).length === 0) return { customer: toRecord(existing), created: false };
        const d = await Customer.findOneAndUpdate(
          { _id: existing._id, archivedAt: null },
          { $set: set },
          { returnDocument: 'after', lean: true },
        );
        return { customer: toRecord((d as CustomerDoc | null) ?? existing), created: false };
      }
    },
    /** Creates or updates customers by `sourceId`; returns them in input order. */
    async upsertMany(applicationId: string, customers: { sourceId: string; name?: string; email?: string }[]) {
      if (customers.length === 0) return [];
      await Customer.bulkWrite(
        customers.map((c) => ({
          updateOne: {
            filter: { application: new Types.ObjectId(applicationId), sourceId: c.sourceId },
            update: {
              $set: { ...(c.name !== undefined ? { name: c.name } : {}), ...(c.email !== undefined ? { email: c.email } : {}) },
              // The id made here, not by the server: listings page customers by id in creation
              // order, and ids a server makes on upsert need not follow it (each DocumentDB
              // backend has its own ObjectId generator; on a sharded cluster, each shard).
              $setOnInsert: { _id: new Types.ObjectId(), application: new Types.ObjectId(applicationId), sourceId: c.sourceId },
            },
            upsert: true,
          },
        })),
        { ordered: false },
      );
      const found = await this.findBySourceIds(
        applicationId,
        customers.map((c) => c.sourceId),
      );
      const bySource = new Map(found.map((c) => [c.sourceId, c]));
      return customers.map((c) => bySource.get(c.sourceId)!);
    },
    /**
     * A page of the customers whose `sourceId` starts with `prefix`, in `sourceId` order after
     * `after`: one range of the (application, sourceId) index, however many customers exist.
     */
    async pageBySourceIdPrefix(applicationId: string, prefix: string, q: { after?: string; limit: number; includeArchived: boolean }) {
      const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const ds = await Customer.find({
        application: new Types.ObjectId(applicationId),
        sourceId: { $regex: `^${escaped}`, ...(q.after !== undefined ? { $gt: q.after } : {}) },
        ...(q.includeArchived ? {} : { archivedAt: null }),
      })
        .sort({ sourceId: 1 })
        .limit(q.limit)
        .lean<CustomerDoc[]>();
      return ds.map(toRecord);
    },
    async findByIds(applicationId: string, ids: string[]) {
      const ds = await Customer.find({ application: applicationId, _id: { $in: ids } }).lean<CustomerDoc[]>();
      return ds.map(toRecord);
    },
    ...applicationScopedAdmin(Customer, toRecord),
  };
}
