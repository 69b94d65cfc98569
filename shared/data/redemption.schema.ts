import { Schema, type Types } from 'mongoose';

/**
 * The journal of one redemption of a campaign for one order. Written first (`pending`), then the
 * counters are taken (each recorded in `taken`), then it is marked `completed` (or `refused`,
 * with every taken counter given back). A revert marks it `reverting`, gives the counters back,
 * and marks it `reverted`. A redeem after a revert starts a new `cycle` (decision 17).
 */
export interface RedemptionDoc {
  /** `<campaign>:<order>:<cycle>` (= `key`): every lookup of a redemption goes by `_id`. */
  _id: string;
  application: Types.ObjectId;
  campaign: Types.ObjectId;
  couponCode: Types.ObjectId | null;
  customer: Types.ObjectId;
  orderId: string;
  /** 1 for the first redemption of this order with this campaign, +1 after each revert. */
  cycle: number;
  /** `<campaign>:<order>:<cycle>`: the holder key written into counters. */
  key: string;
  state: 'pending' | 'completed' | 'refused' | 'reverting' | 'reverted';
  /** The contract fields of the request, echoed in the result. */
  couponId: string;
  code: string;
  discountCents: number;
  cashbackCents: number;
  /** Period keys of the moment of redemption: a revert frees these, not today's. */
  periods: { day: string; week: string; month: string };
  /** Counter scopes to take (decided by the engine) and the ones taken so far. */
  scopes: string[];
  refusal: { reason: string; message: string } | null;
  cashbackWallet: string | null;
  /** The limit of each scope, in `scopes` order. */
  scopeLimits: number[];
  /** The job that wrote this cycle / that reverted it: a re-run of either finds its own work. */
  redeemJobId: string;
  revertJobId: string | null;
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
    state: { type: String, enum: ['pending', 'completed', 'refused', 'reverting', 'reverted'], required: true },
    couponId: { type: String, default: '' },
    code: { type: String, default: '' },
    discountCents: { type: Number, default: 0 },
    cashbackCents: { type: Number, default: 0 },
    periods: { day: String, week: String, month: String },
    scopes: { type: [String], default: [] },
    refusal: { type: Schema.Types.Mixed, default: null },
    cashbackWallet: { type: String, default: null },
    scopeLimits: { type: [Number], default: [] },
    redeemJobId: { type: String, default: '' },
    revertJobId: { type: String, default: null },
  },
  { collection: 'redemptions', timestamps: true, versionKey: false },
);
// Serves the admin redemption listing of a customer, newest first.
redemptionSchema.index({ application: 1, customer: 1, createdAt: -1 });
