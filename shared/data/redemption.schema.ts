import { Schema, type Types } from 'mongoose';
import type { RefusalReason } from '../reasons.js';

/** The states of a stored redemption cycle. */
export const REDEMPTION_STATES = ['completed', 'refused', 'reverted'] as const;
export type RedemptionState = (typeof REDEMPTION_STATES)[number];

/**
 * The journal of one redemption of a campaign for one order (a "cycle"; a redeem after a revert
 * starts the next cycle, docs/decisions.md#17). It is also the commit point of the counters' protocol
 * (shared/usecases/limit-counters.ts): the attempt that writes the state `completed` (or, for a
 * revert, moves it to `reverted`) is recorded `c` in `att`; an attempt settled as abandoned is
 * recorded `x`, after which it can never commit. Both are single-document updates.
 *
 * A document with `att` only (no `state`) marks abandoned attempts of a cycle not written yet;
 * readers skip it and the next commit of that cycle fills it in.
 */
export interface RedemptionDoc {
  /** `<campaign>:<order ref>:<cycle>` (= `key`): every lookup of a redemption goes by `_id`. */
  _id: string;
  application: Types.ObjectId;
  campaign: Types.ObjectId;
  couponCode: Types.ObjectId | null;
  customer: Types.ObjectId;
  orderId: string;
  /** 1 for the first redemption of this order with this campaign, +1 after each revert. */
  cycle: number;
  key: string;
  state?: RedemptionState;
  /** The contract fields of the request, echoed in the result. */
  couponId: string;
  code: string;
  discountCents: number;
  cashbackCents: number;
  cashbackWallet: string | null;
  /** Period keys of the moment of redemption: a revert frees these, not today's. */
  periods: { day: string; week: string; month: string };
  /** Ids of the limit counters this redemption counts in (limit-counter.schema.ts). */
  counters: string[];
  refusal: { reason: RefusalReason; message: string } | null;
  /** The job that wrote this cycle / that reverted it: a re-run of either finds its own work. */
  redeemJobId: string;
  revertJobId: string | null;
  /** Attempts settled on this cycle: `c` committed, `x` abandoned. */
  att?: Record<string, 'c' | 'x'>;
  createdAt: Date;
  updatedAt: Date;
}

export const redemptionSchema = new Schema<RedemptionDoc>(
  {
    _id: { type: String, required: true },
    application: { type: Schema.Types.ObjectId, required: true },
    campaign: { type: Schema.Types.ObjectId, required: true },
    couponCode: { type: Schema.Types.ObjectId, default: null },
    customer: { type: Schema.Types.ObjectId, required: true },
    orderId: { type: String, required: true },
    cycle: { type: Number, required: true },
    key: { type: String, required: true },
    state: { type: String, enum: REDEMPTION_STATES },
    couponId: { type: String, default: '' },
    code: { type: String, default: '' },
    discountCents: { type: Number, default: 0 },
    cashbackCents: { type: Number, default: 0 },
    periods: { day: String, week: String, month: String },
    counters: { type: [String], default: undefined },
    refusal: { type: Schema.Types.Mixed, default: null },
    cashbackWallet: { type: String, default: null },
    redeemJobId: { type: String, default: '' },
    revertJobId: { type: String, default: null },
    att: { type: Schema.Types.Mixed },
  },
  { collection: 'redemptions', timestamps: true, versionKey: false },
);
// Serves the admin redemption listing of a customer, newest first.
redemptionSchema.index({ application: 1, customer: 1, createdAt: -1 });
// Serves the application's whole listing and its date ranges, newest first (a state or campaign
// filter reads along it); without it the listing sorted every redemption of the application.
redemptionSchema.index({ application: 1, createdAt: -1 });
