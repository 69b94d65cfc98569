import { Schema, type Types } from 'mongoose';
import { auditStamped } from './audit-stamp.js';
import { DISCOUNT_BASES, METADATA_SCOPES, OPERATORS, SELECTOR_OPERATORS } from '../domain/types.js';

/** Stored form of a campaign (see shared/domain/types.ts `Campaign` and docs/campaigns.md). */
export interface CampaignDoc {
  _id: Types.ObjectId;
  application: Types.ObjectId;
  name: string;
  description: string;
  termsAndConditions: string[];
  codeType: 'fixed' | 'bulk';
  code?: string;
  bulkCodeUsageLimit: number;
  assignment: 'all_users' | 'assigned_users';
  assignedCustomers: Types.ObjectId[];
  status: 'active' | 'disabled';
  /** Set when archived (docs/admin-api.md "Archive and delete"); null or absent otherwise. */
  archivedAt?: Date | null;
  validFrom: Date;
  validUntil: Date | null;
  schedule: { daysOfWeek?: number[]; hours?: { from: string; to: string }[] } | null;
  limits: { total?: number | null; perCustomer?: number | null; perDay?: number | null; perWeek?: number | null; perMonth?: number | null };
  discount: {
    kind: 'discount' | 'cashback';
    type: 'percentage' | 'flat';
    value: number;
    maxCents?: number | null;
    walletId?: string | null;
    /** A cashback's pending period (docs/wallets.md); null: the wallet's. Shape checked by the admin API. */
    cashbackPending?: { days: number } | { until: string } | null;
  };
  discountCalculatedOn: string;
  cartConditions: { field: string; operator: string; value: unknown }[];
  itemSelector: { match: 'AND' | 'OR'; properties: { property: string; operator?: string; values: unknown[] }[] } | null;
  selectedItemsValidations: { field: string; operator: string; value: unknown }[];
  productValidations: { field: string; operator: string; value: unknown }[];
  excludedItems: { match: 'AND' | 'OR'; properties: { property: string; operator?: string; values: unknown[] }[] } | null;
  /** `scope` absent (campaigns written before scopes had a default) reads as `both`. */
  metadataKeys: { key: string; type: 'string' | 'number' | 'boolean'; scope?: 'both' | 'order' | 'item' }[];
  createdAt: Date;
  updatedAt: Date;
}

const conditionSchema = new Schema(
  { field: { type: String, required: true }, operator: { type: String, enum: OPERATORS, required: true }, value: Schema.Types.Mixed },
  { _id: false },
);
const selectorSchema = new Schema(
  {
    match: { type: String, enum: ['AND', 'OR'], required: true },
    properties: [
      new Schema({ property: String, operator: { type: String, enum: SELECTOR_OPERATORS }, values: [Schema.Types.Mixed] }, { _id: false }),
    ],
  },
  { _id: false },
);

export const campaignSchema = new Schema<CampaignDoc>(
  {
    application: { type: Schema.Types.ObjectId, required: true },
    name: { type: String, required: true },
    description: { type: String, default: '' },
    termsAndConditions: { type: [String], default: [] },
    codeType: { type: String, enum: ['fixed', 'bulk'], required: true },
    code: String,
    bulkCodeUsageLimit: { type: Number, default: 1 },
    assignment: { type: String, enum: ['all_users', 'assigned_users'], default: 'all_users' },
    assignedCustomers: { type: [Schema.Types.ObjectId], default: [] },
    status: { type: String, enum: ['active', 'disabled'], default: 'active' },
    archivedAt: { type: Date, default: null },
    validFrom: { type: Date, required: true },
    validUntil: { type: Date, default: null },
    schedule: { type: Schema.Types.Mixed, default: null },
    limits: {
      total: { type: Number, default: null },
      perCustomer: { type: Number, default: null },
      perDay: { type: Number, default: null },
      perWeek: { type: Number, default: null },
      perMonth: { type: Number, default: null },
    },
    discount: {
      kind: { type: String, enum: ['discount', 'cashback'], required: true },
      type: { type: String, enum: ['percentage', 'flat'], required: true },
      value: { type: Number, required: true },
      maxCents: { type: Number, default: null },
      walletId: { type: String, default: null },
      cashbackPending: { type: Schema.Types.Mixed, default: null },
    },
    discountCalculatedOn: { type: String, enum: DISCOUNT_BASES, required: true },
    cartConditions: { type: [conditionSchema], default: [] },
    itemSelector: { type: selectorSchema, default: null },
    selectedItemsValidations: { type: [conditionSchema], default: [] },
    productValidations: { type: [conditionSchema], default: [] },
    excludedItems: { type: selectorSchema, default: null },
    metadataKeys: {
      type: [new Schema({ key: String, type: { type: String }, scope: { type: String, enum: METADATA_SCOPES } }, { _id: false })],
      default: [],
    },
  },
  { collection: 'campaigns', timestamps: true, versionKey: false, minimize: false },
);
// Serves loading an application's campaigns into the in-process cache (one query per change), and
// the admin's checks over an application's campaigns (wallet references, assigned customers).
campaignSchema.index({ application: 1, status: 1 });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
campaignSchema.plugin(auditStamped);
