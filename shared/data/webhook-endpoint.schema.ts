import { Schema, type Types } from 'mongoose';
import { auditStamped } from './audit-stamp.js';

/**
 * A receiver of an application's events (docs/events.md). The signing secret is stored as is:
 * the service needs it to sign (it is never shown again after creation or rotation). During a
 * rotation's overlap the previous secret signs too, so receivers can switch without a gap.
 */
export interface WebhookEndpointDoc {
  _id: Types.ObjectId;
  application: Types.ObjectId;
  url: string;
  /** Event types it receives, or `['*']` for all. */
  eventTypes: string[];
  description: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  status: 'active' | 'disabled';
  /** Why it is disabled: by an operator, or the receiver answered 410 Gone. */
  disabledReason: 'admin' | 'gone' | null;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const webhookEndpointSchema = new Schema<WebhookEndpointDoc>(
  {
    application: { type: Schema.Types.ObjectId, required: true },
    url: { type: String, required: true },
    eventTypes: { type: [String], required: true },
    description: { type: String, default: '' },
    secret: { type: String, required: true },
    previousSecret: { type: String, default: null },
    previousSecretExpiresAt: { type: Date, default: null },
    status: { type: String, enum: ['active', 'disabled'], default: 'active' },
    disabledReason: { type: String, enum: ['admin', 'gone', null], default: null },
    disabledAt: { type: Date, default: null },
  },
  { collection: 'webhook_endpoints', timestamps: true, versionKey: false },
);
// Serves every read of endpoints: an application's endpoints (the in-process cache that recording
// and delivery read, the admin listing) and one of them by id.
webhookEndpointSchema.index({ application: 1, _id: 1 });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
webhookEndpointSchema.plugin(auditStamped);
