import { Schema } from 'mongoose';
import { typed, type DocOf } from './stored.js';
import type { Bucket } from '../domain/point-buckets.js';
import type { EarnedInPeriod } from '../domain/earning.js';
import type { TierRecord } from '../domain/tiers.js';

const fields = {
  /**
   * `<application>:<customer>:<wallet>`: found by `_id`, filtered also on the application and
   * customer it carries (the shard key, shared/data/shard-keys.ts; `balanceFilter`).
   */
  _id: { type: String, required: true },
  application: { type: Schema.Types.ObjectId, required: true },
  wallet: { type: Schema.Types.ObjectId, required: true },
  customer: { type: Schema.Types.ObjectId, required: true },
  /** Spendable points (hundredths). */
  points: { type: Number, required: true, default: 0 },
  /** Number of ledger entries applied so far; the next entry takes slot `version`. */
  version: { type: Number, required: true, default: 0 },
  /** Credits that expire or are pending (shared/domain/point-buckets.ts); absent on balances that never had one. */
  buckets: typed<Bucket[] | undefined>()({
    type: [
      { _id: false, id: String, points: Number, availableAt: { type: Date, default: null }, expiresAt: { type: Date, default: null } },
    ],
    default: undefined,
  }),
  /**
   * What the customer earned under each capped earning rule in its current period
   * (shared/domain/earning.ts `capByPeriods`); absent on balances that never earned under a cap.
   * Moved with the points by the entry at the slot, so racing orders can never pass a cap.
   */
  periodCounters: typed<EarnedInPeriod[] | undefined>()({
    type: [{ _id: false, rule: String, period: String, hundredths: Number }],
    default: undefined,
  }),
  /**
   * The customer's tier in the wallet's tiers (shared/domain/tiers.ts): the level, the level held
   * until the period's end, the points earned per month the window needs, and when its
   * re-assessment is due. Absent on balances that never earned under tiers. Moved by the entries.
   */
  tier: typed<TierRecord | undefined>()({ type: Schema.Types.Mixed, default: undefined }),
  /** The earliest instant a bucket becomes available or expires, or the tier is re-assessed; absent when none will. */
  nextDue: { type: Date },
} as const;
const options = { collection: 'wallet_balances', timestamps: { createdAt: false, updatedAt: true }, versionKey: false } as const;

/**
 * A customer's balance in one wallet, in hundredths of a point.
 * Invariants: `points` equals the sum of the applied ledger entries; the balance moves from
 * `version` v to v + 1 only by applying the one ledger entry that holds slot v (see
 * shared/usecases/wallet-ledger.ts), which makes a re-run or a concurrent duplicate a no-op.
 */
export type WalletBalanceDoc = DocOf<typeof fields, typeof options>;

export const walletBalanceSchema = new Schema<WalletBalanceDoc>(fields, options);
// Wallet read (a customer's balances) and the shard key's index. Not unique: the `_id` already is
// one per (application, customer, wallet) — and, carrying the shard key, unique across shards too —
// so a second unique index would only cost every balance move an index check.
walletBalanceSchema.index({ application: 1, customer: 1 });
// The expiry sweep (listDue: balances with a transition due, soonest first, paged by (nextDue, _id):
// a million buckets can fall due at one instant). A balance without buckets has no `nextDue`: its
// entry's key stays (null, _id), so its writes never change the index, and a range of due instants
// never reads it. (Not sparse: a sparse compound index holds every document that has any of its
// fields, and every document has an `_id`.)
walletBalanceSchema.index({ nextDue: 1, _id: 1 });
