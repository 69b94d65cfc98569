import { Types } from 'mongoose';
import type { CustomerDoc } from './customer.schema.js';
import type { Models } from './db.js';

export interface CustomerRecord {
  id: string;
  applicationId: string;
  sourceId: string;
  name?: string;
  email?: string;
}

const toRecord = (d: CustomerDoc): CustomerRecord => ({
  id: String(d._id),
  applicationId: String(d.application),
  sourceId: d.sourceId,
  ...(d.name !== undefined ? { name: d.name } : {}),
  ...(d.email !== undefined ? { email: d.email } : {}),
});

export function customerRepository({ Customer }: Models) {
  return {
    /**
     * Resolves the client's `source_id` or, failing that, the service's customer id — both are
     * accepted where the contract says so. Always scoped by application (decision 25).
     */
    async resolve(applicationId: string, idOrSourceId: string): Promise<CustomerRecord | null> {
      const bySource = await Customer.findOne({ application: applicationId, sourceId: idOrSourceId }).lean<CustomerDoc>();
      if (bySource) return toRecord(bySource);
      if (!Types.ObjectId.isValid(idOrSourceId) || String(new Types.ObjectId(idOrSourceId)) !== idOrSourceId) return null;
      const byId = await Customer.findOne({ application: applicationId, _id: idOrSourceId }).lean<CustomerDoc>();
      return byId ? toRecord(byId) : null;
    },
    async findBySourceIds(applicationId: string, sourceIds: string[]) {
      const ds = await Customer.find({ application: applicationId, sourceId: { $in: sourceIds } }).lean<CustomerDoc[]>();
      return ds.map(toRecord);
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
              $setOnInsert: { application: new Types.ObjectId(applicationId), sourceId: c.sourceId },
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
    async findByIds(applicationId: string, ids: string[]) {
      const ds = await Customer.find({ application: applicationId, _id: { $in: ids } }).lean<CustomerDoc[]>();
      return ds.map(toRecord);
    },
    async list(applicationId: string, limit: number, skip: number) {
      const ds = await Customer.find({ application: applicationId }).sort({ _id: 1 }).skip(skip).limit(limit).lean<CustomerDoc[]>();
      return ds.map(toRecord);
    },
  };
}
export type CustomerRepository = ReturnType<typeof customerRepository>;
