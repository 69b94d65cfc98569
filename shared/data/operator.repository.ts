import { Types } from 'mongoose';
import type { Role } from '../domain/roles.js';
import { findIdPage } from './admin-queries.js';
import type { Models } from './db.js';
import type { OperatorDoc, OperatorTokenDoc } from './operator.schema.js';

/** An operator as the use cases see it: string ids, no password hash. */
export interface OperatorRecord {
  id: string;
  email: string;
  name: string;
  role: Role;
  applications: string[] | null;
  hasPassword: boolean;
  disabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface OperatorTokenRecord {
  id: string;
  operatorId: string;
  name: string;
  hint: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

const toRecord = (d: OperatorDoc): OperatorRecord => ({
  id: String(d._id),
  email: d.email,
  name: d.name ?? '',
  role: d.role,
  applications: d.applications ? d.applications.map(String) : null,
  hasPassword: Boolean(d.passwordHash),
  disabled: Boolean(d.disabled),
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

const toTokenRecord = (d: OperatorTokenDoc): OperatorTokenRecord => ({
  id: String(d._id),
  operatorId: String(d.operator),
  name: d.name ?? '',
  hint: d.hint,
  lastUsedAt: d.lastUsedAt ?? null,
  revokedAt: d.revokedAt ?? null,
  createdAt: d.createdAt,
});

const isObjectId = (id: string) => /^[0-9a-f]{24}$/.test(id);
const ids = (xs: string[] | null) => (xs ? xs.map((x) => new Types.ObjectId(x)) : null);

export type OperatorChanges = Partial<Pick<OperatorRecord, 'name' | 'role' | 'applications' | 'disabled'>> & { passwordHash?: string };

/** A token's last use is written at most this often: not one write per admin request. */
const LAST_USED_EVERY_MS = 60_000;

export function operatorRepository({ Operator, OperatorToken }: Models) {
  return {
    async create(
      input: Pick<OperatorRecord, 'email' | 'name' | 'role' | 'applications'> & { passwordHash: string | null },
    ): Promise<OperatorRecord> {
      const doc = await Operator.create({ ...input, email: input.email.toLowerCase(), applications: ids(input.applications) });
      return toRecord(doc.toObject());
    },
    async findById(id: string): Promise<OperatorRecord | null> {
      if (!isObjectId(id)) return null;
      const d = await Operator.findById(id).lean<OperatorDoc>();
      return d ? toRecord(d) : null;
    },
    /** With its password hash, for sign-in only. */
    async findForSignIn(email: string): Promise<(OperatorRecord & { passwordHash: string | null }) | null> {
      const d = await Operator.findOne({ email: email.toLowerCase() }).lean<OperatorDoc>();
      return d ? { ...toRecord(d), passwordHash: d.passwordHash ?? null } : null;
    },
    async page(q: { limit: number; after?: string }): Promise<OperatorRecord[]> {
      return (await findIdPage(Operator, {}, { limit: q.limit, ...(q.after ? { after: q.after } : {}) })).map(toRecord);
    },
    /** The number of enabled owners (the last one cannot be demoted or disabled). */
    async countOwners(): Promise<number> {
      return Operator.countDocuments({ role: 'owner', disabled: false });
    },
    async update(id: string, changes: OperatorChanges): Promise<OperatorRecord | null> {
      if (!isObjectId(id)) return null;
      const { applications, ...rest } = changes;
      const set = { ...rest, ...(applications !== undefined ? { applications: ids(applications) } : {}) };
      const d = await Operator.findByIdAndUpdate(id, { $set: set }, { returnDocument: 'after' }).lean<OperatorDoc>();
      return d ? toRecord(d) : null;
    },

    tokens: {
      async create(operatorId: string, input: { name: string; digest: string; hint: string }): Promise<OperatorTokenRecord> {
        const doc = await OperatorToken.create({ ...input, operator: new Types.ObjectId(operatorId) });
        return toTokenRecord(doc.toObject());
      },
      /** The live token with this digest and its operator, or null. */
      async findLive(digest: string): Promise<{ token: OperatorTokenRecord; operator: OperatorRecord } | null> {
        const t = await OperatorToken.findOne({ digest, revokedAt: null }).lean<OperatorTokenDoc>();
        if (!t) return null;
        const o = await Operator.findById(t.operator).lean<OperatorDoc>();
        return o ? { token: toTokenRecord(t), operator: toRecord(o) } : null;
      },
      async list(operatorId: string): Promise<OperatorTokenRecord[]> {
        const ts = await OperatorToken.find({ operator: operatorId }).sort({ _id: 1 }).lean<OperatorTokenDoc[]>();
        return ts.map(toTokenRecord);
      },
      async revoke(operatorId: string, id: string, now: Date): Promise<OperatorTokenRecord | null> {
        if (!isObjectId(id) || !isObjectId(operatorId)) return null;
        // Revoked once: a second revocation keeps the first time.
        const d =
          (await OperatorToken.findOneAndUpdate(
            { _id: id, operator: operatorId, revokedAt: null },
            { $set: { revokedAt: now } },
            { returnDocument: 'after' },
          ).lean<OperatorTokenDoc>()) ?? (await OperatorToken.findOne({ _id: id, operator: operatorId }).lean<OperatorTokenDoc>());
        return d ? toTokenRecord(d) : null;
      },
      /** Records a use, unless one was recorded within the last minute (then no round trip at all). */
      async touch(token: Pick<OperatorTokenRecord, 'id' | 'lastUsedAt'>, now: Date): Promise<void> {
        const cutoff = new Date(now.getTime() - LAST_USED_EVERY_MS);
        if (token.lastUsedAt && token.lastUsedAt >= cutoff) return;
        await OperatorToken.updateOne(
          { _id: token.id, $or: [{ lastUsedAt: null }, { lastUsedAt: { $lt: cutoff } }] },
          { $set: { lastUsedAt: now } },
        );
      },
    },
  };
}
