import { Schema } from 'mongoose';
import { auditStamped } from './audit-stamp.js';
import { ROLES } from '../domain/roles.js';
import type { DocOf } from './stored.js';

const operatorFields = {
  /** Lower case, unique. */
  email: { type: String, required: true },
  name: { type: String, default: '' },
  role: { type: String, enum: ROLES, required: true },
  /** The applications it may reach; null: all. */
  applications: { type: [Schema.Types.ObjectId], default: null },
  passwordHash: { type: String, default: null },
  disabled: { type: Boolean, default: false },
} as const;
const operatorOptions = { collection: 'operators', timestamps: true, versionKey: false } as const;

/**
 * A person who configures the service through the admin API (docs/admin-api.md#operators): a role,
 * optionally limited to some applications. The password is stored as an scrypt hash
 * (shared/domain/passwords.ts) and never returned or logged.
 */
export type OperatorDoc = DocOf<typeof operatorFields, typeof operatorOptions>;

export const operatorSchema = new Schema<OperatorDoc>(operatorFields, operatorOptions);
// Serves sign-in and the uniqueness of an address (one account per e-mail).
operatorSchema.index({ email: 1 }, { unique: true });

const operatorTokenFields = {
  operator: { type: Schema.Types.ObjectId, required: true },
  name: { type: String, default: '' },
  digest: { type: String, required: true },
  /** The token's first characters, to tell tokens apart in listings. */
  hint: { type: String, required: true },
  lastUsedAt: { type: Date, default: null },
  revokedAt: { type: Date, default: null },
} as const;
const operatorTokenOptions = { collection: 'operator_tokens', timestamps: true, versionKey: false } as const;

/**
 * A personal API token of an operator: only the SHA-256 of the token is stored (shown once at
 * creation). It acts with its operator's current role and applications.
 */
export type OperatorTokenDoc = DocOf<typeof operatorTokenFields, typeof operatorTokenOptions>;

export const operatorTokenSchema = new Schema<OperatorTokenDoc>(operatorTokenFields, operatorTokenOptions);
// Serves every admin request made with a token: the lookup by digest.
operatorTokenSchema.index({ digest: 1 }, { unique: true });
// Serves an operator's token listing.
operatorTokenSchema.index({ operator: 1, _id: 1 });

// Admin changes stamp what they write: docs/admin-api.md#audit-log.
operatorSchema.plugin(auditStamped);
operatorTokenSchema.plugin(auditStamped);

const operatorSessionFields = {
  operator: { type: Schema.Types.ObjectId, required: true },
  digest: { type: String, required: true },
  address: { type: String, default: '' },
  userAgent: { type: String, default: '' },
  expiresAt: { type: Date, required: true },
  lastSeenAt: { type: Date, required: true },
  revokedAt: { type: Date, default: null },
} as const;
const operatorSessionOptions = { collection: 'operator_sessions', timestamps: true, versionKey: false } as const;

/**
 * A browser session of an operator (docs/admin-api.md#sessions): only the SHA-256 of its cookie
 * is stored. It ends at `expiresAt` (absolute), after an idle time (`lastSeenAt`), or when revoked;
 * the TTL index removes it a day after it expired.
 */
export type OperatorSessionDoc = DocOf<typeof operatorSessionFields, typeof operatorSessionOptions>;

export const operatorSessionSchema = new Schema<OperatorSessionDoc>(operatorSessionFields, operatorSessionOptions);
operatorSessionSchema.index({ digest: 1 }, { unique: true });
operatorSessionSchema.index({ operator: 1, _id: 1 });
operatorSessionSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 86_400 });
operatorSessionSchema.plugin(auditStamped);
