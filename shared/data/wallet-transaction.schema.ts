import { Schema } from 'mongoose';
import { typed, type DocOf } from './stored.js';
import type { Bucket } from '../domain/point-buckets.js';
import type { EarnedInPeriod } from '../domain/earning.js';
import type { TierCounted, TierRecord } from '../domain/tiers.js';

/** A return of (part of) an order's earning, recorded on the earning's entry: `returnId` `*` is the whole order. */
export interface OrderReturn {
  returnId: string;
  /** Hundredths of a point it takes back from the earning (before the balance's clamp). */
  points: number;
  /** What it gives back to the rules' period caps. */
  releases?: EarnedInPeriod[];
}

const fields = {
  /** The slot it holds (`<balance>:<version>`), or `refused:`/`void:<application>:<customer>:<txnId>`: found by `_id`. */
  _id: { type: String, required: true },
  application: { type: Schema.Types.ObjectId, required: true },
  wallet: { type: Schema.Types.ObjectId, required: true },
  customer: { type: Schema.Types.ObjectId, required: true },
  /** Deterministic per operation (job id or redemption cycle), so a re-run collides with it. */
  txnId: { type: String, required: true },
  /** `available` / `expired` / `tier`: a transition time made (a pending credit became spendable, points expired, a tier re-assessed: docs/wallets.md). */
  type: { type: String, enum: ['credit', 'debit', 'available', 'expired', 'tier'], required: true },
  /** Hundredths of a point, > 0. */
  points: { type: Number, required: true },
  /** The balance version this entry applies at (null for a refused entry). */
  seq: { type: Number, default: null },
  before: { type: Number, default: null },
  after: { type: Number, default: null },
  description: { type: String, default: '' },
  state: { type: String, enum: ['posted', 'refused', 'void'], default: 'posted' },
  /** What caused it: a wallet update, an operator's adjustment, a cashback credit / its revert, or time (a transition). */
  origin: { type: String, enum: ['api', 'admin', 'cashback', 'cashback_revert', 'order', 'order_return', 'time'], default: 'api' },
  /** The balance's buckets after this entry (only on balances that have or had buckets): rolling it forward restores them. */
  buckets: typed<Bucket[] | undefined>()({
    type: [
      { _id: false, id: String, points: Number, availableAt: { type: Date, default: null }, expiresAt: { type: Date, default: null } },
    ],
    default: undefined,
  }),
  /**
   * The bucket the entry concerns (docs/wallets.md), with its dates: a credit that went `pending`, a
   * pending credit `cancelled` by a revert (neither moves the spendable points), or a transition
   * (`available`, `expired`). Absent on the other entries.
   */
  bucket: typed<
    { move: 'pending' | 'cancelled' | 'available' | 'expired'; availableAt: Date | null; expiresAt: Date | null } | null | undefined
  >()({
    type: { _id: false, move: String, availableAt: Date, expiresAt: Date },
    default: null,
  }),
  /**
   * An order's earning under capped rules (docs/wallets.md "Caps per period"): the balance's
   * counters after this entry (rolling it forward restores them), and what it counted — or, for
   * a return, gave back. Absent on the other entries.
   */
  periodCounters: typed<EarnedInPeriod[] | undefined>()({
    type: [{ _id: false, rule: String, period: String, hundredths: Number }],
    default: undefined,
  }),
  periodCounted: typed<EarnedInPeriod[] | undefined>()({
    type: [{ _id: false, rule: String, period: String, hundredths: Number }],
    default: undefined,
  }),
  /**
   * An order's earning (a credit of origin `order`): the returns that took part or all of it back,
   * in the order they were decided (docs/wallets.md "Partial returns"), each with what it takes
   * back and gives back to the caps; `returnsCount` guards the next one (compare and set). The
   * debit of each is posted after it is recorded here.
   */
  returns: typed<OrderReturn[] | undefined>()({
    type: [
      {
        _id: false,
        returnId: String,
        points: Number,
        releases: { type: [{ _id: false, rule: String, period: String, hundredths: Number }], default: undefined },
      },
    ],
    default: undefined,
  }),
  returnsCount: { type: Number },
  /**
   * Tiers (docs/wallets.md "Tiers"): the balance's tier state after this entry, recorded on every
   * entry of a balance that has one (rolling it forward restores it; null: a re-assessment cleared
   * it), what a credit counted toward it (a return gives it back) and the level change it made.
   */
  tier: typed<TierRecord | null | undefined>()({ type: Schema.Types.Mixed, default: undefined }),
  tierCounted: typed<TierCounted | undefined>()({ type: Schema.Types.Mixed, default: undefined }),
  tierChange: typed<{ from: string | null; to: string | null } | undefined>()({ type: Schema.Types.Mixed, default: undefined }),
  /** A transition's: the txnId of the operation (or the sweep's settle job) that posted it. */
  trigger: { type: String, default: null },
} as const;
const options = { collection: 'wallet_transactions', timestamps: true, versionKey: false } as const;

/**
 * Ledger entry. Written first, at the balance's current slot, then applied to the balance: an
 * entry at slot `seq` is applied exactly when the balance's `version` is past `seq` (readers
 * derive `applied`/`pending` from that). A
 * `refused` entry records a refused debit; a `void` entry holds a txnId that must never post (a
 * cashback whose redemption was reverted before it was credited).
 */
export type WalletTransactionDoc = DocOf<typeof fields, typeof options>;

export const walletTransactionSchema = new Schema<WalletTransactionDoc>(fields, options);
// Serves the journal write of a wallet operation: a re-run of the same operation collides here.
// It starts with the shard key (application, customer), as a unique index of a sharded collection
// must (shared/data/shard-keys.ts); a txnId is one customer's. (An existing database may also hold
// the stricter unique { application, txnId } index: drop it before sharding, docs/scaling.md.)
walletTransactionSchema.index({ application: 1, customer: 1, txnId: 1 }, { unique: true });
// Serves the admin ledger read (a customer's entries in a wallet, newest first).
walletTransactionSchema.index({ application: 1, customer: 1, wallet: 1, createdAt: -1 });
// The transitions an operation or a settle job posted (`trigger`), for their events (change-facts.ts).
// Sparse, and on `trigger` alone (a compound sparse index would hold every entry: each has an
// application): only transitions carry a trigger, so the other entries' writes do not pay for it.
// Queries also filter on (application, customer), the shard key, so a sharded cluster reads one shard.
walletTransactionSchema.index({ trigger: 1 }, { sparse: true });
