/**
 * The `usage_counters` collection of releases before limit counters: one document per scope
 * (`total`, `customer:<id>`, `day:<key>`, `week:<key>`, `month:<key>`, `code:<id>`) with a
 * `holders` array that grew with every redemption. Read once by the counter migration
 * (shared/usecases/migrate-counters.usecase.ts), which then deletes what it converted.
 */
import type { Types } from 'mongoose';
import type { Database } from './db.js';

export interface LegacyUsageCounterDoc {
  _id: Types.ObjectId;
  application: Types.ObjectId;
  campaign: Types.ObjectId;
  scope: string;
  count: number;
  holders: string[];
}

export function legacyUsageCounterRepository(db: Pick<Database, 'connection'>) {
  const col = () => db.connection.collection<LegacyUsageCounterDoc>('usage_counters');
  return {
    /** Whether any legacy counter is left (cheap: at most one document read). */
    async any(): Promise<boolean> {
      return (await col().findOne({}, { projection: { _id: 1 } })) !== null;
    },
    /** The legacy counters, one campaign's at a time (in the order of their unique index). */
    async *byCampaign(): AsyncGenerator<LegacyUsageCounterDoc[]> {
      let current: LegacyUsageCounterDoc[] = [];
      for await (const d of col().find({}).sort({ application: 1, campaign: 1, scope: 1 })) {
        if (current.length && String(current[0]!.campaign) !== String(d.campaign)) {
          yield current;
          current = [];
        }
        current.push(d);
      }
      if (current.length) yield current;
    },
    async deleteMany(ids: Types.ObjectId[]): Promise<void> {
      if (ids.length) await col().deleteMany({ _id: { $in: ids } });
    },
  };
}
export type LegacyUsageCounterRepository = ReturnType<typeof legacyUsageCounterRepository>;
