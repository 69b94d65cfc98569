import type { Types } from 'mongoose';
import type { ApplicationDoc } from './application.schema.js';
import type { Models } from './db.js';

export interface ApplicationRecord {
  id: string;
  name: string;
  timezone: string;
  currency: string;
  apiKey: string;
  secretHash: string;
  status: 'active' | 'disabled';
  configVersion: number;
  credentialsVersion: number;
  createdAt: Date;
}

const toRecord = (d: ApplicationDoc): ApplicationRecord => ({
  id: String(d._id),
  name: d.name,
  timezone: d.timezone,
  currency: d.currency,
  apiKey: d.apiKey,
  secretHash: d.secretHash,
  status: d.status,
  configVersion: d.configVersion ?? 0,
  credentialsVersion: d.credentialsVersion ?? 0,
  createdAt: d.createdAt,
});

export function applicationRepository({ Application }: Models) {
  return {
    async create(input: Pick<ApplicationRecord, 'name' | 'timezone' | 'currency' | 'apiKey' | 'secretHash'>) {
      const doc = await Application.create({ ...input, status: 'active' });
      return toRecord(doc.toObject());
    },
    async findByApiKey(apiKey: string) {
      const d = await Application.findOne({ apiKey }).lean<ApplicationDoc>();
      return d ? toRecord(d) : null;
    },
    async findById(id: string | Types.ObjectId) {
      const d = await Application.findById(id).lean<ApplicationDoc>();
      return d ? toRecord(d) : null;
    },
    async list() {
      const ds = await Application.find({}).sort({ createdAt: 1 }).lean<ApplicationDoc[]>();
      return ds.map(toRecord);
    },
    /** Updates profile fields; bumps credentialsVersion when the status or secret changes. */
    async update(id: string, set: Partial<Pick<ApplicationRecord, 'name' | 'timezone' | 'currency' | 'status' | 'secretHash'>>) {
      const touchesCredentials = set.status !== undefined || set.secretHash !== undefined;
      const d = await Application.findByIdAndUpdate(
        id,
        { $set: set, ...(touchesCredentials ? { $inc: { credentialsVersion: 1, configVersion: 1 } } : { $inc: { configVersion: 1 } }) },
        { returnDocument: 'after' },
      ).lean<ApplicationDoc>();
      return d ? toRecord(d) : null;
    },
    /** Tells every process's campaign cache that this application's configuration changed. */
    async bumpConfigVersion(id: string) {
      await Application.updateOne({ _id: id }, { $inc: { configVersion: 1 } });
    },
  };
}
export type ApplicationRepository = ReturnType<typeof applicationRepository>;
