import { Schema, type Types } from 'mongoose';

/**
 * One limit counter of a campaign: scope `total`, `customer:<id>`, `day:<YYYY-MM-DD>`,
 * `week:<YYYY-Www>`, `month:<YYYY-MM>` or `code:<coupon code id>`.
 * Invariant: `count == holders.length`; `holders` are the redemption keys counted, which makes
 * taking and giving back a slot idempotent (a re-run finds its key already there or gone).
 */
export interface UsageCounterDoc {
  _id: Types.ObjectId;
  application: Types.ObjectId;
  campaign: Types.ObjectId;
  scope: string;
  count: number;
  holders: string[];
}

export const usageCounterSchema = new Schema<UsageCounterDoc>(
  {
    application: { type: Schema.Types.ObjectId, required: true },
    campaign: { type: Schema.Types.ObjectId, required: true },
    scope: { type: String, required: true },
    count: { type: Number, required: true, default: 0 },
    holders: { type: [String], default: [] },
  },
  { collection: 'usage_counters', versionKey: false },
);
// Serves the batched usage read of list/validate ($in on campaigns and scopes) and the guarded
// single-document take/give-back of redeem and revert; one counter per scope.
usageCounterSchema.index({ application: 1, campaign: 1, scope: 1 }, { unique: true });
