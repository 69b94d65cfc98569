import { Schema } from 'mongoose';
import { auditStamped } from './audit-stamp.js';
import { typed, type DocOf } from './stored.js';

const fields = {
  application: { type: Schema.Types.ObjectId, required: true },
  /** The client application's own customer id. */
  sourceId: { type: String, required: true },
  name: typed<string | undefined>()(String),
  email: typed<string | undefined>()(String),
  /** Set when archived: the client routes then treat the customer as unknown. */
  archivedAt: { type: Date, default: null },
  /** Set when the person's data was erased (name, e-mail gone; `sourceId` replaced by `erased-<id>`). */
  erasedAt: { type: Date, default: null },
} as const;
const options = { collection: 'customers', timestamps: true, versionKey: false } as const;

export type CustomerDoc = DocOf<typeof fields, typeof options>;

export const customerSchema = new Schema<CustomerDoc>(fields, options);
// Serves resolving `source_id` within an application (list, validate, apply, wallets) and keeps it unique.
customerSchema.index({ application: 1, sourceId: 1 }, { unique: true });
// Serves the admin's pages of an application's customers (by _id, after a cursor).
customerSchema.index({ application: 1, _id: 1 });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
customerSchema.plugin(auditStamped);
