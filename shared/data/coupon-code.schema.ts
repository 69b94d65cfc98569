import { Schema } from 'mongoose';
import { auditStamped } from './audit-stamp.js';
import type { DocOf } from './stored.js';

const fields = {
  application: { type: Schema.Types.ObjectId, required: true },
  campaign: { type: Schema.Types.ObjectId, required: true },
  kind: { type: String, enum: ['fixed', 'bulk'], required: true },
  /** As configured (echoed in responses). */
  code: { type: String, required: true },
  /** Upper-cased and trimmed: codes match case-insensitively (docs/decisions.md#5). */
  codeNormalized: { type: String, required: true },
} as const;
const options = { collection: 'coupon_codes', timestamps: { createdAt: true, updatedAt: false }, versionKey: false } as const;

/**
 * Every code, fixed or bulk, in one collection so that one unique index keeps codes unique per
 * application across both kinds. Bulk codes are never listed; they are found by code or id.
 */
export type CouponCodeDoc = DocOf<typeof fields, typeof options>;

export const couponCodeSchema = new Schema<CouponCodeDoc>(fields, options);
// Serves validate/apply lookup of a typed bulk code, and keeps codes unique within an application.
couponCodeSchema.index({ application: 1, codeNormalized: 1 }, { unique: true });
// Serves the admin listing of a campaign's codes.
couponCodeSchema.index({ application: 1, campaign: 1 });

/** The one normalisation of a code (docs/decisions.md#5). */
export const normalizeCode = (code: string): string => code.trim().toUpperCase();

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
couponCodeSchema.plugin(auditStamped);
