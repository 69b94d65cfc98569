import { Types } from 'mongoose';
import type { Models } from './db.js';
import type { UsageCounterDoc } from './usage-counter.schema.js';

export function usageCounterRepository({ UsageCounter }: Models) {
  return {
    /** One query for any number of campaigns and scopes (list/validate hot path). */
    async read(applicationId: string, campaignIds: string[], scopes: string[]) {
      if (campaignIds.length === 0) return new Map<string, number>();
      const ds = await UsageCounter.find(
        { application: applicationId, campaign: { $in: campaignIds }, scope: { $in: scopes } },
        { campaign: 1, scope: 1, count: 1 },
      ).lean<Pick<UsageCounterDoc, 'campaign' | 'scope' | 'count'>[]>();
      return new Map(ds.map((d) => [`${String(d.campaign)}|${d.scope}`, d.count]));
    },
    /**
     * Takes one slot for `holder` unless `limit` is reached. Idempotent: a holder already
     * counted is reported as taken without counting again.
     */
    async take(applicationId: string, campaignId: string, scope: string, holder: string, limit: number): Promise<boolean> {
      const filter = { application: new Types.ObjectId(applicationId), campaign: new Types.ObjectId(campaignId), scope };
      const guarded = () =>
        UsageCounter.updateOne(
          { ...filter, holders: { $ne: holder }, count: { $lt: limit } },
          { $inc: { count: 1 }, $push: { holders: holder } },
        );
      if ((await guarded()).modifiedCount === 1) return true;
      // Nothing matched: already held, at the limit, or the counter does not exist yet. Make
      // sure it exists, then try once more: with the document there, a miss is final.
      if (!(await UsageCounter.exists(filter))) {
        try {
          await UsageCounter.create({ ...filter, count: 0, holders: [] });
        } catch (err) {
          // Two first-takers may race to create it; the loser's E11000 is harmless.
          if ((err as { code?: number }).code !== 11000) throw err;
        }
      }
      if ((await guarded()).modifiedCount === 1) return true;
      return (await UsageCounter.countDocuments({ ...filter, holders: holder })) === 1;
    },
    /** Gives back the slot of `holder`; a no-op when it holds none. */
    async giveBack(applicationId: string, campaignId: string, scope: string, holder: string): Promise<void> {
      await UsageCounter.updateOne(
        { application: applicationId, campaign: campaignId, scope, holders: holder },
        { $inc: { count: -1 }, $pull: { holders: holder } },
      );
    },
  };
}
export type UsageCounterRepository = ReturnType<typeof usageCounterRepository>;
