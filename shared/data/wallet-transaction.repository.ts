import { Types } from 'mongoose';
import { isDuplicateKeyError, type Models } from './db.js';
import type { WalletTransactionDoc } from './wallet-transaction.schema.js';

export interface LedgerEntry {
  id: string;
  txnId: string;
  type: 'credit' | 'debit';
  points: number;
  seq: number | null;
  before: number | null;
  after: number | null;
  description: string;
  state: 'pending' | 'applied' | 'refused';
  origin: 'api' | 'cashback' | 'cashback_revert';
  createdAt: Date;
}

const toEntry = (d: WalletTransactionDoc): LedgerEntry => ({
  id: d._id,
  txnId: d.txnId,
  type: d.type,
  points: d.points,
  seq: d.seq ?? null,
  before: d.before ?? null,
  after: d.after ?? null,
  description: d.description ?? '',
  state: d.state,
  origin: d.origin,
  createdAt: d.createdAt,
});

export const slotOf = (balanceId: string, version: number) => `${balanceId}:${version}`;
export const refusedIdOf = (applicationId: string, txnId: string) => `refused:${applicationId}:${txnId}`;

export function walletTransactionRepository({ WalletTransaction }: Models) {
  return {
    async findByTxnId(applicationId: string, txnId: string): Promise<LedgerEntry | null> {
      const d = await WalletTransaction.findOne({ application: applicationId, txnId }).lean<WalletTransactionDoc>();
      return d ? toEntry(d) : null;
    },
    /** The entry holding a balance's slot `version`, if any (at most one: unique slot). */
    async findAtSlot(applicationId: string, balanceId: string, version: number): Promise<LedgerEntry | null> {
      const d = await WalletTransaction.findById(slotOf(balanceId, version)).lean<WalletTransactionDoc>();
      return d && String(d.application) === applicationId ? toEntry(d) : null;
    },
    /**
     * Writes the journal entry. Returns false when an entry with the same txnId or the same slot
     * exists already (a re-run, or another operation took the slot first).
     */
    async insert(
      entry: Omit<LedgerEntry, 'createdAt' | 'id'> & {
        applicationId: string;
        walletDbId: string;
        customerId: string;
        /** The entry's `_id`. */ slot: string;
      },
    ): Promise<boolean> {
      try {
        await WalletTransaction.create({
          _id: entry.slot,
          application: new Types.ObjectId(entry.applicationId),
          wallet: new Types.ObjectId(entry.walletDbId),
          customer: new Types.ObjectId(entry.customerId),
          txnId: entry.txnId,
          seq: entry.seq,
          type: entry.type,
          points: entry.points,
          before: entry.before,
          after: entry.after,
          description: entry.description,
          state: entry.state,
          origin: entry.origin,
        });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
    /** Idempotent: marking an applied entry again changes nothing. */
    async markApplied(entryId: string): Promise<void> {
      await WalletTransaction.updateOne({ _id: entryId }, { $set: { state: 'applied' } });
    },
    /** Sum of applied entries (credits minus debits) — the invariant the balance must equal. */
    async sumApplied(applicationId: string, customerId: string, walletDbId: string): Promise<number> {
      const ds = await WalletTransaction.find(
        { application: applicationId, customer: customerId, wallet: walletDbId, state: 'applied', seq: { $ne: null } },
        { type: 1, points: 1, state: 1 },
      ).lean<Pick<WalletTransactionDoc, 'type' | 'points'>[]>();
      return ds.reduce((s, d) => s + (d.type === 'credit' ? d.points : -d.points), 0);
    },
    /** A customer's entries in a wallet, oldest first; a page of `limit` after the entry `after` when given. */
    async listForCustomer(
      applicationId: string,
      customerId: string,
      walletDbId: string,
      page: { after?: { at: Date; id: string }; limit?: number } = {},
    ): Promise<LedgerEntry[]> {
      const after = page.after
        ? { $or: [{ createdAt: { $gt: page.after.at } }, { createdAt: page.after.at, _id: { $gt: page.after.id } }] }
        : {};
      const ds = await WalletTransaction.find({ application: applicationId, customer: customerId, wallet: walletDbId, ...after })
        .sort({ createdAt: 1, _id: 1 })
        .limit(page.limit ?? 0)
        .lean<WalletTransactionDoc[]>();
      return ds.map(toEntry);
    },
    /** Whether any entry exists for this customer and/or wallet (the admin's "has history" check). */
    async hasEntries(applicationId: string, of: { customerId?: string; walletDbId?: string }): Promise<boolean> {
      const filter = {
        application: applicationId,
        ...(of.customerId ? { customer: of.customerId } : {}),
        ...(of.walletDbId ? { wallet: of.walletDbId } : {}),
      };
      return (await WalletTransaction.exists(filter)) !== null;
    },
  };
}
export type WalletTransactionRepository = ReturnType<typeof walletTransactionRepository>;
