import { Schema } from 'mongoose';
import { auditStamped } from './audit-stamp.js';
import { typed, type DocOf } from './stored.js';
import type { ExpiryRule, PendingRule } from '../domain/point-buckets.js';
import type { NamedEarningRule } from '../domain/earning.js';
import type { TierProgram } from '../domain/tiers.js';

const fields = {
  application: { type: Schema.Types.ObjectId, required: true },
  walletId: { type: String, required: true },
  name: { type: String, required: true },
  currency: { type: String, required: true },
  singularUnitName: { type: String, required: true },
  pluralUnitName: { type: String, required: true },
  timezone: { type: String, required: true },
  // Shapes checked by the admin API (shared/usecases/admin/wallets.usecase.ts): stored as given.
  /** When credited points expire (docs/wallets.md); null or absent: never. Applies to later credits only. */
  pointsExpiry: typed<ExpiryRule | undefined>()({ type: Schema.Types.Mixed, default: null }),
  /** How long credits stay pending before they can be spent; null or absent: spendable at once. */
  pendingCredits: typed<PendingRule | undefined>()({ type: Schema.Types.Mixed, default: null }),
  /** What orders earn (docs/wallets.md "Earning rules"); null or absent: none. What a reported order earns (shared/usecases/order-report.usecase.ts). */
  earningRules: typed<NamedEarningRule[] | null | undefined>()({ type: Schema.Types.Mixed, default: null }),
  /** Its tiers (docs/wallets.md "Tiers"): levels by points earned in a window of months; null or absent: none. */
  tiers: typed<TierProgram | null | undefined>()({ type: Schema.Types.Mixed, default: null }),
  /** Set when archived: the client routes then treat the wallet as unknown. */
  archivedAt: { type: Date, default: null },
} as const;
const options = { collection: 'wallets', timestamps: true, versionKey: false } as const;

/** A custom wallet defined by an application (contract: Wallet object, minus the balance). */
export type WalletDoc = DocOf<typeof fields, typeof options>;

export const walletSchema = new Schema<WalletDoc>(fields, options);
// Serves wallet read (all wallets of an application) and update (one wallet by its wallet_id),
// and keeps wallet ids unique within an application (archived wallets' ids stay taken).
walletSchema.index({ application: 1, walletId: 1 }, { unique: true });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
walletSchema.plugin(auditStamped);
