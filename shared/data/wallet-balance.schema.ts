import { Schema, type Types } from 'mongoose';

/**
 * A customer's balance in one wallet, in hundredths of a point.
 * Invariants: `points` equals the sum of the applied ledger entries; the balance moves from
 * `version` v to v + 1 only by applying the one ledger entry that holds slot v (see
 * shared/usecases/wallet-ledger.ts), which makes a re-run or a concurrent duplicate a no-op.
 */
export interface WalletBalanceDoc {
  /**
   * `<application>:<customer>:<wallet>`: found by `_id`, filtered also on the application and
   * customer it carries (the shard key, shared/data/shard-keys.ts; `balanceFilter`).
   */
  _id: string;
  application: Types.ObjectId;
  wallet: Types.ObjectId;
  customer: Types.ObjectId;
  points: number;
  /** Number of ledger entries applied so far; the next entry takes slot `version`. */
  version: number;
  updatedAt: Date;
}

export const walletBalanceSchema = new Schema<WalletBalanceDoc>(
  {
    _id: { type: String, required: true },
    application: { type: Schema.Types.ObjectId, required: true },
    wallet: { type: Schema.Types.ObjectId, required: true },
    customer: { type: Schema.Types.ObjectId, required: true },
    points: { type: Number, required: true, default: 0 },
    version: { type: Number, required: true, default: 0 },
  },
  { collection: 'wallet_balances', timestamps: { createdAt: false, updatedAt: true }, versionKey: false },
);
// Wallet read (a customer's balances) and the shard key's index. Not unique: the `_id` already is
// one per (application, customer, wallet) — and, carrying the shard key, unique across shards too —
// so a second unique index would only cost every balance move an index check.
walletBalanceSchema.index({ application: 1, customer: 1 });
