import { Schema, type Types } from 'mongoose';
import { auditStamped } from './audit-stamp.js';
import { ROLES, type Role } from '../domain/roles.js';

/**
 * A person who configures the service through the admin API (docs/admin-api.md#operators): a role,
 * optionally limited to some applications. The password is stored as an scrypt hash
 * (shared/domain/passwords.ts) and never returned or logged.
 */
export interface OperatorDoc {
  _id: Types.ObjectId;
  /** Lower case, unique. */
  email: string;
  name: string;
  role: Role;
  /** The applications it may reach; null: all. */
  applications: Types.ObjectId[] | null;
  passwordHash: string | null;
  disabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const operatorSchema = new Schema<OperatorDoc>(
  {
    email: { type: String, required: true },
    name: { type: String, default: '' },
    role: { type: String, enum: ROLES, required: true },
    applications: { type: [Schema.Types.ObjectId], default: null },
    passwordHash: { type: String, default: null },
    disabled: { type: Boolean, default: false },
  },
  { collection: 'operators', timestamps: true, versionKey: false },
);
// Serves sign-in and the uniqueness of an address (one account per e-mail).
operatorSchema.index({ email: 1 }, { unique: true });

/**
 * A personal API token of an operator: only the SHA-256 of the token is stored (shown once at
 * creation). It acts with its operator's current role and applications.
 */
export interface OperatorTokenDoc {
  _id: Types.ObjectId;
  operator: Types.ObjectId;
  name: string;
  digest: string;
  /** The token's first characters, to tell tokens apart in listings. */
  hint: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const operatorTokenSchema = new Schema<OperatorTokenDoc>(
  {
    operator: { type: Schema.Types.ObjectId, required: true },
    name: { type: String, default: '' },
    digest: { type: String, required: true },
    hint: { type: String, required: true },
    lastUsedAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
  },
  { collection: 'operator_tokens', timestamps: true, versionKey: false },
);
// Serves every admin request made with a token: the lookup by digest.
operatorTokenSchema.index({ digest: 1 }, { unique: true });
// Serves an operator's token listing.
operatorTokenSchema.index({ operator: 1, _id: 1 });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
operatorSchema.plugin(auditStamped);
operatorTokenSchema.plugin(auditStamped);

/**
 * A browser session of an operator (docs/admin-api.md#sessions): only the SHA-256 of its cookie
 * is stored. It ends at `expiresAt` (absolute), after an idle time (`lastSeenAt`), or when revoked;
 * the TTL index removes it a day after it expired.
 */
export interface OperatorSessionDoc {
  _id: Types.ObjectId;
  operator: Types.ObjectId;
  digest: string;
  address: string;
  userAgent: string;
  expiresAt: Date;
  lastSeenAt: Date;
  revokedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const operatorSessionSchema = new Schema<OperatorSessionDoc>(
  {
    operator: { type: Schema.Types.ObjectId, required: true },
    digest: { type: String, required: true },
    address: { type: String, default: '' },
    userAgent: { type: String, default: '' },
    expiresAt: { type: Date, required: true },
    lastSeenAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
  },
  { collection: 'operator_sessions', timestamps: true, versionKey: false },
);
operatorSessionSchema.index({ digest: 1 }, { unique: true });
operatorSessionSchema.index({ operator: 1, _id: 1 });
operatorSessionSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 86_400 });
operatorSessionSchema.plugin(auditStamped);
