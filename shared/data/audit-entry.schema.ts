import { Schema } from 'mongoose';
import { typed, type DocOf } from './stored.js';

/** What an audited change is about: its kind of resource and which one (null until a created one has its id). */
export interface AuditTarget {
  type: string;
  id: string | null;
  /** The application it belongs to (null: an application itself, an operator). */
  application: string | null;
}

/** Who made a change: the service's ADMIN_TOKEN, or an operator (through a personal token or a session). */
export interface AuditActor {
  kind: 'admin_token' | 'operator';
  operatorId: string | null;
  email: string | null;
  tokenId: string | null;
}

/** One changed field: its value before and after (`"[redacted]"` for a secret). */
export type AuditChanges = Record<string, { before: unknown; after: unknown }>;

const fields = {
  at: { type: Date, required: true },
  state: { type: String, enum: ['pending', 'committed', 'abandoned'], required: true },
  actor: typed<AuditActor>()({
    kind: { type: String, required: true },
    operatorId: { type: String, default: null },
    email: { type: String, default: null },
    tokenId: { type: String, default: null },
  }),
  /** `<target type>.<verb>`, e.g. `campaign.update`. */
  action: { type: String, required: true },
  target: typed<AuditTarget>()({
    type: { type: String, required: true },
    id: { type: String, default: null },
    application: { type: String, default: null },
  }),
  /** The target as it was before the change (secrets redacted): what a recovered entry diffs against. */
  before: typed<Record<string, unknown> | null>()({ type: Schema.Types.Mixed, default: null }),
  changes: typed<AuditChanges | null>()({ type: Schema.Types.Mixed, default: null }),
  requestId: { type: String, default: null },
  /** True when the entry was committed by a later reader, from the stamp (its process died before). */
  recovered: { type: Boolean, default: false },
} as const;
const options = { collection: 'audit_entries', versionKey: false, minimize: false } as const;

/**
 * One change made through the admin API or the command line (docs/admin-api.md#audit-log).
 * Written `pending` before the change; `committed` once the change is made (or found made: the
 * audit stamp, shared/data/audit-stamp.ts), `abandoned` when it was not. Only committed entries
 * are listed.
 */
export type AuditEntryDoc = DocOf<typeof fields, typeof options>;

export const auditEntrySchema = new Schema<AuditEntryDoc>(fields, options);
// The log's pages, newest first, filtered by target, actor or action; the pending ones to resolve.
auditEntrySchema.index({ state: 1, _id: -1 });
auditEntrySchema.index({ 'target.id': 1, _id: -1 });
auditEntrySchema.index({ 'actor.operatorId': 1, _id: -1 });
auditEntrySchema.index({ action: 1, _id: -1 });
