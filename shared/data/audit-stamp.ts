/**
 * The audit stamp: how a change and its audit entry become visible together without a
 * multi-document transaction (docs/admin-api.md#audit-log).
 *
 * An admin change runs inside {@link withAuditStamp}: every write it makes to an audited collection
 * carries the id of its (pending) audit entry in the same single-document write — `auditIds`, the
 * document's last {@link KEEP} entry ids. A write is atomic on its document, so a document is
 * changed exactly when it carries the stamp. Whoever later finds the entry pending (the process
 * died between the change and the entry's commit) asks the documents: stamped, the change
 * happened and the entry is committed; not stamped after the change could still be in flight, it
 * never happened and the entry is abandoned. Either both are visible or neither.
 *
 * Outside an admin change (the client API, the workers) the hooks find no stamp and add nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Schema, Types } from 'mongoose';

/** How many entry ids a document keeps (a pending entry is resolved long before this many later changes). */
const KEEP = 20;

const current = new AsyncLocalStorage<Types.ObjectId>();

/** Runs `change` with its writes to audited collections stamped with `entryId`. */
export const withAuditStamp = <T>(entryId: string, change: () => Promise<T>): Promise<T> =>
  current.run(new Types.ObjectId(entryId), change);

type Update = Record<string, unknown>;

/** `update` with the stamp pushed (an aggregation pipeline, which no admin change sends, is left alone). */
function stamped(update: Update | Update[] | null | undefined, id: Types.ObjectId): Update | Update[] {
  if (Array.isArray(update)) return update;
  const u = { ...(update ?? {}) };
  // A plain `{field: value}` update is a $set for mongoose: keep it one.
  const operators = Object.keys(u).filter((k) => k.startsWith('$'));
  if (operators.length !== Object.keys(u).length) {
    const set: Update = {};
    for (const k of Object.keys(u))
      if (!k.startsWith('$')) {
        set[k] = u[k];
        delete u[k];
      }
    u.$set = { ...((u.$set as Update | undefined) ?? {}), ...set };
  }
  u.$push = { ...((u.$push as Update | undefined) ?? {}), auditIds: { $each: [id], $slice: -KEEP } };
  return u;
}

/**
 * Makes a schema's documents carry the audit stamp: the `auditIds` field (absent on documents no
 * admin change touched; a sparse index finds a stamp) and the hooks that add it.
 */
export function auditStamped(schema: Schema): void {
  schema.add({ auditIds: { type: [Schema.Types.ObjectId], default: undefined } });
  schema.index({ auditIds: 1 }, { sparse: true });
  schema.pre('save', function () {
    const id = current.getStore();
    if (!id) return;
    const ids = ((this.get('auditIds') as Types.ObjectId[] | undefined) ?? []).concat(id).slice(-KEEP);
    this.set('auditIds', ids);
  });
  schema.pre(['findOneAndUpdate', 'updateOne', 'updateMany'], function () {
    const id = current.getStore();
    if (id) this.setUpdate(stamped(this.getUpdate() as Update, id));
  });
  // Mongoose 9 hooks take the operation's arguments (no `next`): the documents, the operations.
  schema.pre('insertMany', function (docs: unknown) {
    const id = current.getStore();
    if (id) for (const d of Array.isArray(docs) ? docs : [docs]) (d as Update).auditIds = [id];
  });
  schema.pre('bulkWrite', function (ops: unknown) {
    const id = current.getStore();
    if (id)
      for (const op of ops as Record<string, { update?: Update; document?: Update } | undefined>[]) {
        const one = op.updateOne ?? op.updateMany;
        if (one) one.update = stamped(one.update, id) as Update;
        if (op.insertOne?.document) op.insertOne.document.auditIds = [id];
      }
  });
}
