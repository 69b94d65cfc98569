import { Schema, type Types } from 'mongoose';
import { auditStamped } from './audit-stamp.js';

export interface CustomerDoc {
  _id: Types.ObjectId;
  application: Types.ObjectId;
  /** The client application's own customer id. */
  sourceId: string;
  name?: string;
  email?: string;
  /** Set when archived: the client routes then treat the customer as unknown. */
  archivedAt?: Date | null;
  /** Set when the person's data was erased (name, e-mail gone; `sourceId` replaced by `erased-<id>`). */
  erasedAt?: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const customerSchema = new Schema<CustomerDoc>(
  {
    application: { type: Schema.Types.ObjectId, required: true },
    sourceId: { type: String, required: true },
    name: String,
    email: String,
    archivedAt: { type: Date, default: null },
    erasedAt: { type: Date, default: null },
  },
  { collection: 'customers', timestamps: true, versionKey: false },
);
// Serves resolving `source_id` within an application (list, validate, apply, wallets) and keeps it unique.
customerSchema.index({ application: 1, sourceId: 1 }, { unique: true });
// Serves the admin's pages of an application's customers (by _id, after a cursor).
customerSchema.index({ application: 1, _id: 1 });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
customerSchema.plugin(auditStamped);
