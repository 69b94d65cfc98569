import { Schema, type Types } from 'mongoose';

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

/**
 * One change made through the admin API or the command line (docs/admin-api.md#audit-log).
 * Written `pending` before the change; `committed` once the change is made (or found made: the
 * audit stamp, shared/data/audit-stamp.ts), `abandoned` when it was not. Only committed entries
 * are listed.
 */
export interface AuditEntryDoc {
  _id: Types.ObjectId;
  at: Date;
  state: 'pending' | 'committed' | 'abandoned';
  actor: AuditActor;
  /** `<target type>.<verb>`, e.g. `campaign.update`. */
  action: string;
  target: AuditTarget;
  /** The target as it was before the change (secrets redacted): what a recovered entry diffs against. */
  before: Record<string, unknown> | null;
  changes: AuditChanges | null;
  requestId: string | null;
  /** True when the entry was committed by a later reader, from the stamp (its process died before). */
  recovered: boolean;
}

export const auditEntrySchema = new Schema<AuditEntryDoc>(
  {
    at: { type: Date, required: true },
    state: { type: String, enum: ['pending', 'committed', 'abandoned'], required: true },
    actor: {
      kind: { type: String, required: true },
      operatorId: { type: String, default: null },
      email: { type: String, default: null },
      tokenId: { type: String, default: null },
    },
    action: { type: String, required: true },
    target: {
      type: { type: String, required: true },
      id: { type: String, default: null },
      application: { type: String, default: null },
    },
    before: { type: Schema.Types.Mixed, default: null },
    changes: { type: Schema.Types.Mixed, default: null },
    requestId: { type: String, default: null },
    recovered: { type: Boolean, default: false },
  },
  { collection: 'audit_entries', versionKey: false, minimize: false },
);
// The log's pages, newest first, filtered by target, actor or action; the pending ones to resolve.
auditEntrySchema.index({ state: 1, _id: -1 });
auditEntrySchema.index({ 'target.id': 1, _id: -1 });
auditEntrySchema.index({ 'actor.operatorId': 1, _id: -1 });
auditEntrySchema.index({ action: 1, _id: -1 });
