import type { Types } from 'mongoose';
import type { ApplicationDoc } from './application.schema.js';
import type { Models } from './db.js';
import type { RecordOf } from './stored.js';
import {
  DEFAULT_APP_CART_RECORDING,
  DEFAULT_APP_LOYALTY,
  DEFAULT_APP_STACKING,
  type AppCartRecording,
  type AppLoyalty,
  type AppStacking,
} from '../domain/types.js';
import { findIdPage, type IdPageQuery } from './admin-queries.js';

export type ApplicationRecord = Omit<RecordOf<ApplicationDoc, never, 'updatedAt'>, 'stacking' | 'loyalty' | 'cartRecording'> & {
  stacking: AppStacking;
  loyalty: AppLoyalty;
  cartRecording: AppCartRecording;
};

const toRecord = (d: ApplicationDoc): ApplicationRecord => ({
  id: String(d._id),
  name: d.name,
  timezone: d.timezone,
  currency: d.currency ?? null,
  rateLimit: d.rateLimit ?? null,
  stacking: d.stacking ? { ...DEFAULT_APP_STACKING, ...d.stacking } : DEFAULT_APP_STACKING,
  giftCardsAtCheckout: d.giftCardsAtCheckout ?? false,
  loyalty: d.loyalty ? { ...DEFAULT_APP_LOYALTY, ...d.loyalty } : DEFAULT_APP_LOYALTY,
  cartRecording: d.cartRecording ? { ...DEFAULT_APP_CART_RECORDING, ...d.cartRecording } : DEFAULT_APP_CART_RECORDING,
  apiKey: d.apiKey,
  secretHash: d.secretHash,
  status: d.status,
  archivedAt: d.archivedAt ?? null,
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
    /** Admin page of applications, by `_id` (creation order); only those of `within` when given (a limited operator's). */
    async page(q: IdPageQuery, within: readonly string[] | null = null) {
      return (await findIdPage(Application, within ? { _id: { $in: within } } : {}, q)).map(toRecord);
    },
    /**
     * Updates profile fields; bumps credentialsVersion when the status, the secret, the archive
     * state, the rate limit, the stacking settings, gift cards at checkout or cart recording change (credential caches then re-check
     * within their interval).
     */
    async update(
      id: string,
      set: Partial<
        Pick<
          ApplicationRecord,
          | 'name'
          | 'timezone'
          | 'currency'
          | 'status'
          | 'secretHash'
          | 'archivedAt'
          | 'rateLimit'
          | 'stacking'
          | 'loyalty'
          | 'giftCardsAtCheckout'
          | 'cartRecording'
        >
      >,
    ) {
      // The credential caches hold the record the client routes read (status, secret, rate limit, stacking, gift cards, cart recording).
      const touchesCredentials =
        set.status !== undefined ||
        set.secretHash !== undefined ||
        set.archivedAt !== undefined ||
        set.rateLimit !== undefined ||
        set.stacking !== undefined ||
        set.giftCardsAtCheckout !== undefined ||
        set.cartRecording !== undefined;
      const d = await Application.findByIdAndUpdate(
        id,
        { $set: set, ...(touchesCredentials ? { $inc: { credentialsVersion: 1, configVersion: 1 } } : { $inc: { configVersion: 1 } }) },
        { returnDocument: 'after' },
      ).lean<ApplicationDoc>();
      return d ? toRecord(d) : null;
    },
    async delete(id: string): Promise<boolean> {
      return (await Application.deleteOne({ _id: id })).deletedCount === 1;
    },
    /** Tells every process's campaign cache that this application's configuration changed. */
    async bumpConfigVersion(id: string) {
      await Application.updateOne({ _id: id }, { $inc: { configVersion: 1 } });
    },
  };
}
export type ApplicationRepository = ReturnType<typeof applicationRepository>;
