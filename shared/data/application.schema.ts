import { Schema, type Types } from 'mongoose';
import { auditStamped } from './audit-stamp.js';

export interface ApplicationDoc {
  _id: Types.ObjectId;
  name: string;
  timezone: string;
  /** ISO 4217; optional (the client contract never uses it): the default of its wallets' currency. */
  currency: string | null;
  /** Basic-auth username. Random, not secret. */
  apiKey: string;
  /** HMAC-SHA256 of the secret under the service's pepper-free scheme (see credentials.ts). */
  secretHash: string;
  status: 'active' | 'disabled';
  /**
   * Its own limit on the client routes (`requests` per `windowSeconds`; 0 requests = none), or
   * null for the service's default (RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_SECONDS).
   */
  rateLimit?: { requests: number; windowSeconds: number } | null;
  /** Set when archived: its credentials are then refused, whatever its status. */
  archivedAt?: Date | null;
  /** Bumped on every campaign or code change: the in-process campaign caches compare it. */
  configVersion: number;
  /** Bumped on secret rotation or status change: credential caches compare it. */
  credentialsVersion: number;
  createdAt: Date;
  updatedAt: Date;
}

export const applicationSchema = new Schema<ApplicationDoc>(
  {
    name: { type: String, required: true },
    timezone: { type: String, required: true },
    rateLimit: { type: Schema.Types.Mixed, default: null },
    currency: { type: String, default: null },
    apiKey: { type: String, required: true },
    secretHash: { type: String, required: true },
    status: { type: String, enum: ['active', 'disabled'], default: 'active' },
    archivedAt: { type: Date, default: null },
    configVersion: { type: Number, default: 0 },
    credentialsVersion: { type: Number, default: 0 },
  },
  { collection: 'applications', timestamps: true, versionKey: false },
);
// Serves the Basic-auth lookup by API key (every client request, behind the credential cache).
applicationSchema.index({ apiKey: 1 }, { unique: true });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
applicationSchema.plugin(auditStamped);
