import { Types } from 'mongoose';
import { CommandBatcher } from './batched.js';
import type { Models } from './db.js';
import { applicationScopedAdmin } from './admin-queries.js';
import type { RecordOf } from './stored.js';
import type { WalletDoc } from './wallet.schema.js';

export type WalletRecord = RecordOf<WalletDoc, never, 'application' | 'createdAt' | 'updatedAt'>;

export const toWalletRecord = (d: WalletDoc): WalletRecord => ({
  id: String(d._id),
  walletId: d.walletId,
  name: d.name,
  currency: d.currency,
  singularUnitName: d.singularUnitName,
  pluralUnitName: d.pluralUnitName,
  timezone: d.timezone,
  pointsExpiry: d.pointsExpiry ?? null,
  pendingCredits: d.pendingCredits ?? null,
  earningRules: d.earningRules ?? null,
  tiers: d.tiers ?? null,
  archivedAt: d.archivedAt ?? null,
});

export function walletRepository({ Wallet }: Models) {
  const batch = new CommandBatcher(Wallet);
  return {
    /**
     * Wallet update and cashback: the application's wallet by its client-visible `wallet_id`.
     * An archived wallet is unknown to the client routes; the admin reads it with `includeArchived`.
     */
    async findByWalletId(applicationId: string, walletId: string, opts: { includeArchived?: boolean } = {}): Promise<WalletRecord | null> {
      const d = (await batch.findOne(
        { application: new Types.ObjectId(applicationId), walletId },
        { where: opts.includeArchived ? {} : { archivedAt: null } },
      )) as WalletDoc | null;
      return d ? toWalletRecord(d) : null;
    },
    /** Wallets of an application by their ids, archived ones included (the expiry sweep names a balance's wallet). */
    async findByIds(applicationId: string, ids: string[]): Promise<WalletRecord[]> {
      const ds = await Wallet.find({ application: applicationId, _id: { $in: ids } }).lean<WalletDoc[]>();
      return ds.map(toWalletRecord);
    },
    /** Wallet read: every unarchived wallet of the application, in creation order. */
    async listByApplication(applicationId: string): Promise<WalletRecord[]> {
      const ds = await Wallet.find({ application: applicationId, archivedAt: null }).sort({ _id: 1 }).lean<WalletDoc[]>();
      return ds.map(toWalletRecord);
    },
    ...applicationScopedAdmin(Wallet, toWalletRecord),
    async create(
      applicationId: string,
      input: Omit<WalletRecord, 'id' | 'archivedAt' | 'pointsExpiry' | 'pendingCredits' | 'earningRules' | 'tiers'> &
        Partial<Pick<WalletRecord, 'pointsExpiry' | 'pendingCredits' | 'earningRules' | 'tiers'>>,
    ): Promise<WalletRecord> {
      const doc = await Wallet.create({ ...input, application: new Types.ObjectId(applicationId) });
      return toWalletRecord(doc.toObject());
    },
    /** Changes a wallet's settings (admin PATCH); null when it is not the application's. */
    async update(
      applicationId: string,
      id: string,
      change: Partial<
        Pick<WalletRecord, 'name' | 'singularUnitName' | 'pluralUnitName' | 'pointsExpiry' | 'pendingCredits' | 'earningRules' | 'tiers'>
      >,
    ): Promise<WalletRecord | null> {
      const d = await Wallet.findOneAndUpdate(
        { _id: id, application: applicationId },
        { $set: change },
        { returnDocument: 'after' },
      ).lean<WalletDoc>();
      return d ? toWalletRecord(d) : null;
    },
  };
}
