import { Types, type Model, type UpdateQuery } from 'mongoose';
import { findIdPage } from './admin-queries.js';
import type { Models } from './db.js';
import type { OperatorDoc, OperatorSessionDoc, OperatorTokenDoc } from './operator.schema.js';
import type { RecordOf } from './stored.js';

/** An operator as the use cases see it: string ids, whether it has a password instead of its hash. */
export type OperatorRecord = RecordOf<OperatorDoc, never, 'applications' | 'passwordHash'> & {
  applications: string[] | null;
  hasPassword: boolean;
};

/** A token as listed: its digest stays in the store. */
export type OperatorTokenRecord = RecordOf<OperatorTokenDoc, 'operator', 'digest' | 'updatedAt'>;

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

/** A session as listed: its digest stays in the store. */
export type OperatorSessionRecord = RecordOf<OperatorSessionDoc, 'operator', 'digest' | 'updatedAt'>;

const toSessionRecord = (d: OperatorSessionDoc): OperatorSessionRecord => ({
  id: String(d._id),
  operatorId: String(d.operator),
  address: d.address ?? '',
  userAgent: d.userAgent ?? '',
  expiresAt: d.expiresAt,
  lastSeenAt: d.lastSeenAt,
  revokedAt: d.revokedAt ?? null,
  createdAt: d.createdAt,
});

export type OperatorChanges = Partial<Pick<OperatorRecord, 'name' | 'role' | 'applications' | 'disabled'>> & { passwordHash?: string };

/** A token's last use is written at most this often: not one write per admin request. */
const LAST_USED_EVERY_MS = 60_000;

/** Revokes an operator's token or session once: a second revocation keeps the first time. The document, or null when it is not the operator's. */
async function revokeOnce<D extends OperatorTokenDoc | OperatorSessionDoc>(
  model: Model<D>,
  operatorId: string,
  id: string,
  now: Date,
): Promise<D | null> {
  if (!isObjectId(id) || !isObjectId(operatorId)) return null;
  const mine = { _id: id, operator: operatorId };
  return (
    (await model.findOneAndUpdate({ ...mine, revokedAt: null }, { $set: { revokedAt: now } }, { returnDocument: 'after' }).lean<D>()) ??
    (await model.findOne(mine).lean<D>())
  );
}

/** Records a use in `field`, unless one was recorded within the last minute (then no round trip at all). */
async function touchOncePerMinute<D extends OperatorTokenDoc | OperatorSessionDoc>(
  model: Model<D>,
  id: string,
  field: 'lastUsedAt' | 'lastSeenAt',
  last: Date | null,
  now: Date,
) {
  const cutoff = new Date(now.getTime() - LAST_USED_EVERY_MS);
  if (last && last >= cutoff) return;
  await model.updateOne({ _id: id, $or: [{ [field]: null }, { [field]: { $lt: cutoff } }] }, { $set: { [field]: now } } as UpdateQuery<D>);
}

export function operatorRepository({ Operator, OperatorToken, OperatorSession }: Models) {
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

    sessions: {
      async create(
        operatorId: string,
        input: Pick<OperatorSessionRecord, 'address' | 'userAgent' | 'expiresAt' | 'lastSeenAt'> & { digest: string },
      ): Promise<OperatorSessionRecord> {
        const doc = await OperatorSession.create({ ...input, operator: new Types.ObjectId(operatorId) });
        return toSessionRecord(doc.toObject());
      },
      /** The session with this digest that has not ended (expired, idle past `idleCutoff`, or revoked), and its operator. */
      async findLive(
        digest: string,
        now: Date,
        idleCutoff: Date,
      ): Promise<{ session: OperatorSessionRecord; operator: OperatorRecord } | null> {
        const d = await OperatorSession.findOne({
          digest,
          revokedAt: null,
          expiresAt: { $gt: now },
          lastSeenAt: { $gt: idleCutoff },
        }).lean<OperatorSessionDoc>();
        if (!d) return null;
        const o = await Operator.findById(d.operator).lean<OperatorDoc>();
        return o ? { session: toSessionRecord(d), operator: toRecord(o) } : null;
      },
      /** The operator's sessions that have not ended. */
      async listLive(operatorId: string, now: Date, idleCutoff: Date): Promise<OperatorSessionRecord[]> {
        if (!isObjectId(operatorId)) return [];
        const ds = await OperatorSession.find({
          operator: operatorId,
          revokedAt: null,
          expiresAt: { $gt: now },
          lastSeenAt: { $gt: idleCutoff },
        })
          .sort({ _id: 1 })
          .lean<OperatorSessionDoc[]>();
        return ds.map(toSessionRecord);
      },
      async revoke(operatorId: string, id: string, now: Date): Promise<OperatorSessionRecord | null> {
        const d = await revokeOnce(OperatorSession, operatorId, id, now);
        return d ? toSessionRecord(d) : null;
      },
      /** Records activity (the idle clock), at most once a minute, as for tokens. */
      async touch(session: Pick<OperatorSessionRecord, 'id' | 'lastSeenAt'>, now: Date): Promise<void> {
        await touchOncePerMinute(OperatorSession, session.id, 'lastSeenAt', session.lastSeenAt, now);
      },
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
        const d = await revokeOnce(OperatorToken, operatorId, id, now);
        return d ? toTokenRecord(d) : null;
      },
      /** Records a use, unless one was recorded within the last minute (then no round trip at all). */
      async touch(token: Pick<OperatorTokenRecord, 'id' | 'lastUsedAt'>, now: Date): Promise<void> {
        await touchOncePerMinute(OperatorToken, token.id, 'lastUsedAt', token.lastUsedAt, now);
      },
    },
  };
}
