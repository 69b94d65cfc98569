import { Schema } from 'mongoose';
import { auditStamped } from './audit-stamp.js';
import type { DocOf } from './stored.js';

const fields = {
  application: { type: Schema.Types.ObjectId, required: true },
  url: { type: String, required: true },
  /** Event types it receives, or `['*']` for all. */
  eventTypes: { type: [String], required: true },
  description: { type: String, default: '' },
  secret: { type: String, required: true },
  previousSecret: { type: String, default: null },
  previousSecretExpiresAt: { type: Date, default: null },
  status: { type: String, enum: ['active', 'disabled'], default: 'active' },
  /** Why it is disabled: by an operator, or the receiver answered 410 Gone. */
  disabledReason: { type: String, enum: ['admin', 'gone', null], default: null },
  disabledAt: { type: Date, default: null },
} as const;
const options = { collection: 'webhook_endpoints', timestamps: true, versionKey: false } as const;

/**
 * A receiver of an application's events (docs/events.md). The signing secret is stored as is:
 * the service needs it to sign (it is never shown again after creation or rotation). During a
 * rotation's overlap the previous secret signs too, so receivers can switch without a gap.
 */
export type WebhookEndpointDoc = DocOf<typeof fields, typeof options>;

export const webhookEndpointSchema = new Schema<WebhookEndpointDoc>(fields, options);
// Serves every read of endpoints: an application's endpoints (the in-process cache that recording
// and delivery read, the admin listing) and one of them by id.
webhookEndpointSchema.index({ application: 1, _id: 1 });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
webhookEndpointSchema.plugin(auditStamped);
