import { Types, type Model } from 'mongoose';
import type { AuditChanges, AuditEntryDoc } from './audit-entry.schema.js';
import type { Models } from './db.js';
import type { RecordOf } from './stored.js';

/** An audit entry as the use cases see it (string id). */
export type AuditEntryRecord = RecordOf<AuditEntryDoc>;

const toRecord = (d: AuditEntryDoc): AuditEntryRecord => ({
  id: String(d._id),
  at: d.at,
  state: d.state,
  actor: d.actor,
  action: d.action,
  target: d.target,
  before: d.before ?? null,
  changes: d.changes ?? null,
  requestId: d.requestId ?? null,
  recovered: Boolean(d.recovered),
});

/** The filters of the log's listing (all optional, combined with AND). */
export interface AuditFilter {
  targetType?: string;
  targetId?: string;
  application?: string;
  operatorId?: string;
  actorKind?: string;
  action?: string;
  from?: Date;
  to?: Date;
}

/** The collections an audit stamp may be found in, by model name (shared/data/audit-stamp.ts). */
export type StampedModel =
  | 'Application'
  | 'Campaign'
  | 'CouponCode'
  | 'Customer'
  | 'Wallet'
  | 'GiftCard'
  | 'WebhookEndpoint'
  | 'Operator'
  | 'OperatorToken'
  | 'OperatorSession';

export function auditEntryRepository(models: Models) {
  const { AuditEntry } = models;
  return {
    /** Writes the entry of a change about to be made; its id is the change's stamp. */
    async insertPending(
      entry: Pick<AuditEntryRecord, 'at' | 'actor' | 'action' | 'target' | 'before' | 'changes' | 'requestId'>,
    ): Promise<AuditEntryRecord> {
      const doc = await AuditEntry.create({ ...entry, state: 'pending', recovered: false });
      return toRecord(doc.toObject());
    },
    /** Commits a pending entry (false when it was resolved meanwhile). */
    async commit(
      id: string,
      set: { changes: AuditChanges | null; targetId: string | null; application: string | null; recovered: boolean },
    ): Promise<boolean> {
      const res = await AuditEntry.updateOne(
        { _id: id, state: 'pending' },
        {
          $set: {
            state: 'committed',
            changes: set.changes,
            'target.id': set.targetId,
            'target.application': set.application,
            recovered: set.recovered,
          },
        },
      ).exec();
      return res.modifiedCount === 1;
    },
    async abandon(id: string): Promise<boolean> {
      return (await AuditEntry.updateOne({ _id: id, state: 'pending' }, { $set: { state: 'abandoned' } }).exec()).modifiedCount === 1;
    },
    /** The oldest pending entries (those a reader resolves before it lists). */
    async pending(limit: number): Promise<AuditEntryRecord[]> {
      return (await AuditEntry.find({ state: 'pending' }).sort({ _id: 1 }).limit(limit).lean<AuditEntryDoc[]>().exec()).map(toRecord);
    },
    /** The pending entries about one target (resolved before another change of it). */
    async pendingFor(targetId: string): Promise<AuditEntryRecord[]> {
      return (await AuditEntry.find({ 'target.id': targetId, state: 'pending' }).lean<AuditEntryDoc[]>().exec()).map(toRecord);
    },
    /** Committed entries matching `f`, newest first, after the id `before` (the previous page's last). */
    async page(f: AuditFilter, q: { limit: number; before?: string }): Promise<AuditEntryRecord[]> {
      const filter: Record<string, unknown> = { state: 'committed' };
      if (f.targetType) filter['target.type'] = f.targetType;
      if (f.targetId) filter['target.id'] = f.targetId;
      if (f.application) filter['target.application'] = f.application;
      if (f.operatorId) filter['actor.operatorId'] = f.operatorId;
      if (f.actorKind) filter['actor.kind'] = f.actorKind;
      if (f.action) filter.action = f.action;
      const at: Record<string, Date> = {};
      if (f.from) at.$gte = f.from;
      if (f.to) at.$lt = f.to;
      if (f.from || f.to) filter.at = at;
      if (q.before) filter._id = { $lt: new Types.ObjectId(q.before) };
      return (await AuditEntry.find(filter).sort({ _id: -1 }).limit(q.limit).lean<AuditEntryDoc[]>().exec()).map(toRecord);
    },
    /**
     * Removes a person's data from the log (an erasure): the entries about the customer keep their
     * action, actor and time, and every recorded value of a personal field becomes `[erased]`; bulk
     * upserts that named its source id have that item replaced.
     */
    async erasePerson(applicationId: string, customerId: string, sourceId: string, personal: readonly string[]): Promise<number> {
      let changed = 0;
      const about = await AuditEntry.find({ 'target.type': 'customer', 'target.id': customerId }).lean<AuditEntryDoc[]>();
      for (const e of about) {
        const changes = Object.fromEntries(
          Object.entries(e.changes ?? {}).map(([k, v]) => [k, personal.includes(k) ? { before: '[erased]', after: '[erased]' } : v]),
        );
        await AuditEntry.updateOne({ _id: e._id }, { $set: { changes, before: null } });
        changed++;
      }
      const bulk = await AuditEntry.find({
        action: 'customer.upsert',
        'target.application': applicationId,
        'changes.request.after.customers.source_id': sourceId,
      }).lean<AuditEntryDoc[]>();
      for (const e of bulk) {
        const request = e.changes!.request!.after as { customers: { source_id: string }[] };
        const customers = request.customers.map((c) => (c.source_id === sourceId ? { source_id: '[erased]' } : c));
        await AuditEntry.updateOne({ _id: e._id }, { $set: { 'changes.request.after': { ...request, customers } } });
        changed++;
      }
      return changed;
    },
    /** True when a document of `model` carries the stamp `entryId` (its change was made). */
    async stamped(model: StampedModel, entryId: string): Promise<boolean> {
      const m = models[model] as unknown as Model<unknown>;
      return (await m.exists({ auditIds: new Types.ObjectId(entryId) }).exec()) !== null;
    },
    /** The raw document `filter` finds in `model` (a target's snapshot), or null. */
    async snapshot(model: StampedModel, filter: Record<string, unknown>): Promise<Record<string, unknown> | null> {
      const m = models[model] as unknown as Model<unknown>;
      return (await m.findOne(filter).lean<Record<string, unknown>>().exec()) ?? null;
    },
  };
}
export type AuditEntryRepository = ReturnType<typeof auditEntryRepository>;
