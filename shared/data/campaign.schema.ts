import { Schema, type Types } from 'mongoose';
import { auditStamped } from './audit-stamp.js';
import { typed, type DocOf } from './stored.js';
import {
  DISCOUNT_BASES,
  METADATA_SCOPES,
  OPERATORS,
  SELECTOR_OPERATORS,
  DISCOUNT_TYPES,
  type Budget,
  type Discount,
  type Limits,
  type MetadataType,
  type Schedule,
  type Stacking,
  type TierRequirement,
} from '../domain/types.js';

const subdocument = { _id: false } as const;

const conditionFields = {
  field: { type: String, required: true },
  operator: { type: String, enum: OPERATORS, required: true },
  value: typed<unknown>()(Schema.Types.Mixed),
} as const;
type ConditionDoc = DocOf<typeof conditionFields, typeof subdocument>;
const conditionSchema = new Schema<ConditionDoc>(conditionFields, subdocument);

const propertyMatchFields = {
  property: typed<string>()(String),
  operator: { type: String, enum: SELECTOR_OPERATORS },
  values: typed<unknown[]>()([Schema.Types.Mixed]),
} as const;
type PropertyMatchDoc = DocOf<typeof propertyMatchFields, typeof subdocument>;
const selectorFields = {
  match: { type: String, enum: ['AND', 'OR'], required: true },
  properties: typed<PropertyMatchDoc[]>()([new Schema<PropertyMatchDoc>(propertyMatchFields, subdocument)]),
} as const;
const selectorSchema = new Schema<DocOf<typeof selectorFields, typeof subdocument>>(selectorFields, subdocument);

const metadataKeyFields = {
  key: typed<string>()(String),
  type: typed<MetadataType>()({ type: String }),
  /** `scope` absent (a key stored without one) reads as `both`. */
  scope: { type: String, enum: METADATA_SCOPES },
} as const;
type MetadataKeyDoc = DocOf<typeof metadataKeyFields, typeof subdocument>;

const fields = {
  application: { type: Schema.Types.ObjectId, required: true },
  name: { type: String, required: true },
  description: { type: String, default: '' },
  termsAndConditions: { type: [String], default: [] as string[] },
  codeType: { type: String, enum: ['fixed', 'bulk'], required: true },
  code: String,
  bulkCodeUsageLimit: { type: Number, default: 1 },
  assignment: { type: String, enum: ['all_users', 'assigned_users'], default: 'all_users' },
  assignedCustomers: { type: [Schema.Types.ObjectId], default: [] as Types.ObjectId[] },
  status: { type: String, enum: ['active', 'disabled'], default: 'active' },
  /** Set when archived (docs/admin-api.md "Archive and delete"); null or absent otherwise. */
  archivedAt: { type: Date, default: null },
  validFrom: { type: Date, required: true },
  validUntil: { type: Date, default: null },
  schedule: typed<Schedule | null>()({ type: Schema.Types.Mixed, default: null }),
  limits: typed<Limits>()({
    total: { type: Number, default: null },
    perCustomer: { type: Number, default: null },
    perDay: { type: Number, default: null },
    perWeek: { type: Number, default: null },
    perMonth: { type: Number, default: null },
  }),
  /** A money budget (docs/budgets.md); null or absent: none. Shape checked by the admin API. */
  budget: typed<Budget | null | undefined>()({ type: Schema.Types.Mixed, default: null }),
  /** Points multiplier of the orders redeemed with it, in hundredths (docs/wallets.md); null: 1×. */
  earningMultiplier: { type: Number, default: null },
  /** The wallet tiers it is for (docs/wallets.md "Tiers"); null: every customer. */
  tierRequirement: typed<TierRequirement | null | undefined>()({ type: Schema.Types.Mixed, default: null }),
  discount: typed<Discount>()({
    kind: { type: String, enum: ['discount', 'cashback'], required: true },
    type: { type: String, enum: DISCOUNT_TYPES, required: true },
    value: { type: Number, required: true },
    /** A promotion kind's own settings (docs/campaigns.md "Promotion kinds"); shapes checked by the admin API. */
    buyXGetY: { type: Schema.Types.Mixed, default: null },
    gift: { type: Schema.Types.Mixed, default: null },
    tiered: { type: Schema.Types.Mixed, default: null },
    bundle: { type: Schema.Types.Mixed, default: null },
    maxCents: { type: Number, default: null },
    walletId: { type: String, default: null },
    /** A cashback's pending period (docs/wallets.md); null: the wallet's. Shape checked by the admin API. */
    cashbackPending: { type: Schema.Types.Mixed, default: null },
  }),
  discountCalculatedOn: { type: String, enum: DISCOUNT_BASES, required: true },
  cartConditions: { type: [conditionSchema], default: [] as ConditionDoc[] },
  itemSelector: { type: selectorSchema, default: null },
  selectedItemsValidations: { type: [conditionSchema], default: [] as ConditionDoc[] },
  productValidations: { type: [conditionSchema], default: [] as ConditionDoc[] },
  excludedItems: { type: selectorSchema, default: null },
  metadataKeys: {
    type: [new Schema<MetadataKeyDoc>(metadataKeyFields, subdocument)],
    default: [] as MetadataKeyDoc[],
  },
  /** How it combines with others on one cart (docs/stacking.md); null: the defaults (`DEFAULT_STACKING`). */
  stacking: typed<Stacking | null | undefined>()({ type: Schema.Types.Mixed, default: null }),
  /** `automatic`: a promotion without a code (docs/stacking.md); absent: `code`. */
  trigger: { type: String, enum: ['code', 'automatic'], default: 'code' },
} as const;
const options = { collection: 'campaigns', timestamps: true, versionKey: false, minimize: false } as const;

/** Stored form of a campaign (see shared/domain/types.ts `Campaign` and docs/campaigns.md). */
export type CampaignDoc = DocOf<typeof fields, typeof options>;

export const campaignSchema = new Schema<CampaignDoc>(fields, options);
// Serves loading an application's campaigns into the in-process cache (one query per change), and
// the admin's checks over an application's campaigns (wallet references, assigned customers).
campaignSchema.index({ application: 1, status: 1 });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
campaignSchema.plugin(auditStamped);
