import { Schema, type Types } from 'mongoose';
import { auditStamped } from './audit-stamp.js';

/**
 * Every code, fixed or bulk, in one collection so that one unique index keeps codes unique per
 * application across both kinds. Bulk codes are never listed; they are found by code or id.
 */
export interface CouponCodeDoc {
  _id: Types.ObjectId;
  application: Types.ObjectId;
  campaign: Types.ObjectId;
  kind: 'fixed' | 'bulk';
  /** As configured (echoed in responses). */
  code: string;
  /** Upper-cased and trimmed: codes match case-insensitively (docs/decisions.md#5). */
  codeNormalized: string;
  createdAt: Date;
}

export const couponCodeSchema = new Schema<CouponCodeDoc>(
  {
    application: { type: Schema.Types.ObjectId, required: true },
    campaign: { type: Schema.Types.ObjectId, required: true },
    kind: { type: String, enum: ['fixed', 'bulk'], required: true },
    code: { type: String, required: true },
    codeNormalized: { type: String, required: true },
  },
  { collection: 'coupon_codes', timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
// Serves validate/apply lookup of a typed bulk code, and keeps codes unique within an application.
couponCodeSchema.index({ application: 1, codeNormalized: 1 }, { unique: true });
// Serves the admin listing of a campaign's codes.
couponCodeSchema.index({ application: 1, campaign: 1 });

/** The one normalisation of a code (docs/decisions.md#5). */
export const normalizeCode = (code: string): string => code.trim().toUpperCase();

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
couponCodeSchema.plugin(auditStamped);
