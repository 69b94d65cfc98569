import { Schema } from 'mongoose';
import { auditStamped } from './audit-stamp.js';
import { typed, type DocOf } from './stored.js';
import type { AppCartRecording, AppLoyalty, AppStacking } from '../domain/types.js';

const fields = {
  name: { type: String, required: true },
  timezone: { type: String, required: true },
  /**
   * Its own limit on the client routes (`requests` per `windowSeconds`; 0 requests = none), or
   * null for the service's default (RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_SECONDS).
   */
  rateLimit: typed<{ requests: number; windowSeconds: number } | null | undefined>()({ type: Schema.Types.Mixed, default: null }),
  /** ISO 4217; optional (the client contract never uses it): the default of its wallets' currency. */
  currency: { type: String, default: null },
  /** Basic-auth username. Random, not secret. */
  apiKey: { type: String, required: true },
  /** HMAC-SHA256 of the secret under the service's pepper-free scheme (see credentials.ts). */
  secretHash: { type: String, required: true },
  status: { type: String, enum: ['active', 'disabled'], default: 'active' },
  /** Set when archived: its credentials are then refused, whatever its status. */
  archivedAt: { type: Date, default: null },
  /** Several promotions on one cart (docs/stacking.md); null: one coupon per request, no automatic promotions. */
  stacking: typed<AppStacking | null | undefined>()({ type: Schema.Types.Mixed, default: null }),
  /** Gift cards and store credit at checkout, through `coupon_details` (docs/gift-cards.md); false: a card's code is an unknown code there. */
  giftCardsAtCheckout: { type: Boolean, default: false },
  /** Loyalty settings (docs/wallets.md "A redeem as the order's report"); null: none of them on. */
  loyalty: typed<AppLoyalty | null | undefined>()({ type: Schema.Types.Mixed, default: null }),
  /** Carts recorded for backtests (docs/results.md "Recorded carts"); null: none recorded. */
  cartRecording: typed<AppCartRecording | null | undefined>()({ type: Schema.Types.Mixed, default: null }),
  /** Bumped on every campaign or code change: the in-process campaign caches compare it. */
  configVersion: { type: Number, default: 0 },
  /** Bumped on secret rotation or status change: credential caches compare it. */
  credentialsVersion: { type: Number, default: 0 },
} as const;
const options = { collection: 'applications', timestamps: true, versionKey: false } as const;

export type ApplicationDoc = DocOf<typeof fields, typeof options>;

export const applicationSchema = new Schema<ApplicationDoc>(fields, options);
// Serves the Basic-auth lookup by API key (every client request, behind the credential cache).
applicationSchema.index({ apiKey: 1 }, { unique: true });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
applicationSchema.plugin(auditStamped);
