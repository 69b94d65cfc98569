/**
 * A campaign's tallies outside the redemption protocol (campaign-tally.schema.ts): refusals by
 * reason and first-time customers per local hour, written in batches (shared/cache/results-tally.ts).
 */
import { Types, mongo } from 'mongoose';
import type { Models } from './db.js';
import type { CampaignTallyDoc } from './campaign-tally.schema.js';
import { hourField } from './limit-counter.repository.js';

/** A campaign's tally document of a local day `YYYY-MM-DD` (or {@link ALL_TIME}). */
export const tallyId = (campaignId: string, day: string) => `${campaignId}:${day}`;

/** The field of a tally document holding one local hour's figures (`h00` … `h23`), from an hour key `YYYY-MM-DDTHH`. */
const hourOf = (hour: string) => hourField(Number(hour.slice(11, 13)));

/** The tally of a campaign's whole life (its unique customers): `<campaign>:all`, outside every range of hours. */
export const ALL_TIME = 'all';

/** Refusals of one reason in one campaign and local hour (`YYYY-MM-DDTHH`). */
export interface RefusalCount {
  applicationId: string;
  campaignId: string;
  hour: string;
  reason: string;
  n: number;
}

/** A customer seen redeeming a campaign in a local hour (`YYYY-MM-DDTHH`). */
export interface CustomerSeen {
  applicationId: string;
  campaignId: string;
  customerId: string;
  hour: string;
}

/** The ids of the documents an unordered insert could not write because they exist (E11000); other errors are thrown. */
function duplicatesOf(err: unknown, size: number): Set<number> | null {
  if (!(err instanceof mongo.MongoBulkWriteError)) return null;
  const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
  if (!errors.every((e) => e.code === 11000)) return null;
  const out = new Set<number>();
  for (const e of errors) if (e.index < size) out.add(e.index);
  return out;
}

export function campaignTallyRepository({ CampaignTally, CampaignCustomer }: Models) {
  const tallies = CampaignTally.collection;
  const customers = CampaignCustomer.collection;
  const ids = (applicationId: string, campaignId: string) => ({
    application: new Types.ObjectId(applicationId),
    campaign: new Types.ObjectId(campaignId),
  });
  return {
    /** Adds refusal counts (one write per campaign and hour). */
    async addRefusals(rows: RefusalCount[]): Promise<void> {
      if (rows.length === 0) return;
      await tallies.bulkWrite(
        rows.map((r) => ({
          updateOne: {
            filter: { _id: tallyId(r.campaignId, r.hour.slice(0, 10)) as never },
            update: {
              $inc: { [`ref.${r.reason}`]: r.n, [`${hourOf(r.hour)}.ref.${r.reason}`]: r.n },
              $setOnInsert: ids(r.applicationId, r.campaignId),
            },
            upsert: true,
          },
        })),
        { ordered: false },
      );
    },
    /**
     * Records customers seen redeeming; those seen for the first time count in their hour's `nc`.
     * A customer already recorded is left as it is (its first hour stays).
     */
    async addCustomers(rows: CustomerSeen[]): Promise<void> {
      if (rows.length === 0) return;
      const docs = rows.map((r) => ({
        _id: `${r.campaignId}:${r.customerId}`,
        ...ids(r.applicationId, r.campaignId),
        customer: new Types.ObjectId(r.customerId),
        hour: r.hour,
      }));
      let existing = new Set<number>();
      try {
        await customers.insertMany(docs as never[], { ordered: false });
      } catch (err) {
        const dup = duplicatesOf(err, docs.length);
        if (!dup) throw err;
        existing = dup;
      }
      const fresh = new Map<string, RefusalCount>();
      // New customers per local hour (counted in its day's document) and in the campaign's whole life.
      const add = (r: CustomerSeen, hour: string) => {
        const key = `${r.campaignId}:${hour}`;
        const f = fresh.get(key);
        if (f) f.n++;
        else fresh.set(key, { ...r, hour, reason: '', n: 1 });
      };
      rows.forEach((r, i) => {
        if (existing.has(i)) return;
        add(r, r.hour);
        add(r, ALL_TIME);
      });
      if (fresh.size === 0) return;
      await tallies.bulkWrite(
        [...fresh.values()].map((r) => ({
          updateOne: {
            filter: { _id: tallyId(r.campaignId, r.hour === ALL_TIME ? ALL_TIME : r.hour.slice(0, 10)) as never },
            update: {
              $inc: r.hour === ALL_TIME ? { nc: r.n } : { nc: r.n, [`${hourOf(r.hour)}.nc`]: r.n },
              $setOnInsert: ids(r.applicationId, r.campaignId),
            },
            upsert: true,
          },
        })),
        { ordered: false },
      );
    },
    /** The campaigns' whole-life tallies ({@link ALL_TIME}), by campaign id. */
    async allTime(campaignIds: string[]): Promise<Map<string, CampaignTallyDoc>> {
      if (campaignIds.length === 0) return new Map();
      const docs = (await tallies
        .find({ _id: { $in: campaignIds.map((c) => tallyId(c, ALL_TIME)) } } as never)
        .toArray()) as unknown as CampaignTallyDoc[];
      return new Map(docs.map((d) => [String(d.campaign), d]));
    },
    /** The tallies of these campaigns' days from `fromDay` to `toDay` (both included), with their hours' fields when `hours`. */
    async range(campaignIds: string[], fromDay: string, toDay: string, hours: boolean): Promise<CampaignTallyDoc[]> {
      if (campaignIds.length === 0) return [];
      const filter = { $or: campaignIds.map((c) => ({ _id: { $gte: tallyId(c, fromDay), $lte: tallyId(c, toDay) } })) };
      const projection: Record<string, 1> = { ref: 1, nc: 1 };
      if (hours) for (let h = 0; h < 24; h++) projection[hourField(h)] = 1;
      return (await tallies.find(filter as never, { projection }).toArray()) as unknown as CampaignTallyDoc[];
    },
  };
}
