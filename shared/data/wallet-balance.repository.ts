import { Types } from 'mongoose';
import { CommandBatcher } from './batched.js';
import type { Models } from './db.js';
import type { WalletBalanceDoc } from './wallet-balance.schema.js';

export interface BalanceRecord {
  id: string;
  walletDbId: string;
  points: number;
  version: number;
}

/** A balance's `_id`: `<application>:<customer>:<wallet>`. */
export const balanceIdOf = (applicationId: string, customerId: string, walletDbId: string) =>
  `${applicationId}:${customerId}:${walletDbId}`;

/**
 * The filter of one balance by `_id`, with the application and customer it carries: the shard
 * key of wallet_balances (shared/data/shard-keys.ts), so a sharded cluster reads one shard.
 */
export function balanceFilter(id: string) {
  const [application, customer] = id.split(':');
  return { _id: id, application: new Types.ObjectId(application), customer: new Types.ObjectId(customer) };
}

const toRecord = (d: WalletBalanceDoc): BalanceRecord => ({
  id: String(d._id),
  walletDbId: String(d.wallet),
  points: d.points,
  version: d.version ?? 0,
});

export function walletBalanceRepository({ WalletBalance }: Models) {
  const batch = new CommandBatcher(WalletBalance);
  return {
    /** The balance document of a customer in a wallet, created at 0 on first use (one round trip either way). */
    async getOrCreate(applicationId: string, customerId: string, walletDbId: string): Promise<BalanceRecord> {
      const filter = balanceFilter(balanceIdOf(applicationId, customerId, walletDbId));
      const found = (await batch.findOne(filter)) as WalletBalanceDoc | null;
      if (found) return toRecord(found);
      // First use: create it, or read the one a concurrent first use created (an upsert by `_id`
      // can still race on the unique index: the loser retries once and finds it).
      const create = () =>
        WalletBalance.collection.findOneAndUpdate(
          filter as never,
          {
            // `_id`, application and customer come from the filter's equalities.
            $setOnInsert: {
              wallet: new Types.ObjectId(walletDbId),
              points: 0,
              version: 0,
              updatedAt: new Date(),
            },
          },
          { upsert: true, returnDocument: 'after' },
        );
      // A concurrent first use that won the race makes this upsert fail (E11000; FerretDB reports it
      // as an internal error): whatever the error, the balance is there if someone created it.
      const doc = await create().catch(async (err) => {
        const existing = await WalletBalance.findOne(filter).lean<WalletBalanceDoc>();
        if (existing) return existing;
        throw err;
      });
      return toRecord(doc as unknown as WalletBalanceDoc);
    },
    async findById(id: string): Promise<BalanceRecord | null> {
      const d = await WalletBalance.findOne(balanceFilter(id)).lean<WalletBalanceDoc>();
      return d ? toRecord(d) : null;
    },
    /** A customer's balances in every wallet (wallet read). */
    async listByCustomer(applicationId: string, customerId: string): Promise<BalanceRecord[]> {
      const ds = await WalletBalance.find({ application: applicationId, customer: customerId }).lean<WalletBalanceDoc[]>();
      return ds.map(toRecord);
    },
    /**
     * Moves the balance from `version` to `version + 1` with the entry that holds that slot.
     * Matches nothing when someone already did: the version guard makes it apply once.
     */
    async applyAtVersion(id: string, version: number, after: number): Promise<void> {
      await batch.updateBlind({ ...balanceFilter(id), version }, { $set: { points: after, version: version + 1, updatedAt: new Date() } });
    },
  };
}
export type WalletBalanceRepository = ReturnType<typeof walletBalanceRepository>;
