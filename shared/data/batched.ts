/**
 * Coalesced commands: the single-document reads and writes that concurrent operations send to one
 * collection in the same turn of the event loop go out as one command of each kind — one `find`
 * with `$in`, one unordered `insert`, one unordered `update` — and each caller gets its own
 * document's answer. Nothing changes for a caller: every statement is still a single-document
 * operation, atomic on its own, exactly as if it had been sent alone (MongoDB executes the
 * statements of an unordered write independently; a failing one does not stop the others). What
 * changes is the cost: a command's wire round trip, parsing and dispatch are paid once per batch
 * instead of once per operation (docs/architecture.md, "Batched commands"; docs/benchmarks.md
 * measures it).
 *
 * A statement's own result is known for finds (by `_id`), inserts (a duplicate key is reported
 * per statement) and upserts (each is either upserted, matched, or refused by a unique index —
 * the guard of a guarded upsert). A plain update's own match count is not reported per statement,
 * so only updates whose caller needs no answer are batched ({@link CommandBatcher.updateBlind}).
 *
 * A batch waits for nothing: it is sent once the current turn of the event loop ends
 * (`setImmediate`), so a lone operation pays no delay, and operations that run in step (their
 * previous answers arrived in one batch) share their next command too.
 */
import type { mongo } from 'mongoose';
import { isDuplicateKeyError } from './db.js';

type Document = mongo.Document;
type UpdateFilter<T extends Document> = mongo.UpdateFilter<T>;

/** How an upsert went: `refused` when a unique index refused it (the document exists, its guard did not hold). */
export type UpsertOutcome = 'matched' | 'upserted' | 'refused';

interface Pending<T> {
  resolve: (value: T) => void;
  reject: (err: unknown) => void;
}

interface FindRequest extends Pending<Document | null> {
  /** Equality conditions that identify one document (`_id`, or a unique key with its shard key). */
  match: Record<string, unknown>;
}

type WriteRequest =
  | (Pending<UpsertOutcome> & { kind: 'upsert'; filter: Document; update: UpdateFilter<Document> | Document[] })
  | (Pending<UpsertOutcome> & { kind: 'blind'; filter: Document; update: UpdateFilter<Document> | Document[] });

/** At most this many statements per command (far below the server's own limit of 100,000). */
const MAX_BATCH = 500;

/** A value as a map key: ObjectIds by their hex, dates by their time, the rest as text. */
const keyOf = (v: unknown): string => (v instanceof Date ? `date:${v.getTime()}` : String(v));

export class CommandBatcher {
  private finds = new Map<string, FindRequest[]>();
  private inserts: (Pending<boolean> & { doc: Document })[] = [];
  private writes: WriteRequest[] = [];
  private scheduled = false;

  private readonly col: mongo.Collection<Document>;

  /** Batches the commands of `model`'s collection (through the driver: no casting, no hydration). */
  constructor(model: { collection: unknown }) {
    this.col = model.collection as unknown as mongo.Collection<Document>;
  }

  /**
   * The one document whose fields equal `match` (null when there is none): `_id` with the shard
   * key fields it carries, or a unique key. Requests with the same fields, `where` and
   * `projection` share a command: each field becomes an `$in` of the batch's values, `where`
   * (plain JSON, e.g. `{archivedAt: null}`) applies to all, and each caller gets the document equal
   * to its own `match`.
   */
  findOne(match: Record<string, unknown>, opts: { where?: Document; projection?: Document } = {}): Promise<Document | null> {
    const group = JSON.stringify([Object.keys(match), opts.where ?? {}, opts.projection ?? null]);
    return new Promise((resolve, reject) => {
      const list = this.finds.get(group) ?? [];
      this.finds.set(group, list);
      list.push({ match, resolve, reject });
      this.schedule();
    });
  }

  /** Inserts `doc`; false when a unique index refused it (a duplicate key). */
  insert(doc: Document): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.inserts.push({ doc, resolve, reject });
      this.schedule();
    });
  }

  /** A guarded upsert: `matched` (the guard held), `upserted` (created), or `refused` (a unique index refused the insert: the document exists, the guard did not hold). */
  upsert(filter: Document, update: UpdateFilter<Document> | Document[]): Promise<UpsertOutcome> {
    return new Promise((resolve, reject) => {
      this.writes.push({ kind: 'upsert', filter, update, resolve, reject });
      this.schedule();
    });
  }

  /** An update whose caller needs no answer (it matches or not; either is fine). */
  async updateBlind(filter: Document, update: UpdateFilter<Document> | Document[]): Promise<void> {
    await new Promise<UpsertOutcome>((resolve, reject) => {
      this.writes.push({ kind: 'blind', filter, update, resolve, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush() {
    this.scheduled = false;
    const finds = this.finds;
    const inserts = this.inserts;
    const writes = this.writes;
    this.finds = new Map();
    this.inserts = [];
    this.writes = [];
    for (const [group, list] of finds)
      for (let i = 0; i < list.length; i += MAX_BATCH) void this.sendFind(group, list.slice(i, i + MAX_BATCH));
    for (let i = 0; i < inserts.length; i += MAX_BATCH) void this.sendInserts(inserts.slice(i, i + MAX_BATCH));
    for (let i = 0; i < writes.length; i += MAX_BATCH) void this.sendWrites(writes.slice(i, i + MAX_BATCH));
  }

  private async sendFind(group: string, list: FindRequest[]) {
    try {
      const [fields, where, projection] = JSON.parse(group) as [string[], Document, Document | null];
      const filter: Document = { ...where };
      for (const field of fields) {
        const values = new Map(list.map((r) => [keyOf(r.match[field]), r.match[field]]));
        filter[field] = values.size === 1 ? [...values.values()][0] : { $in: [...values.values()] };
      }
      // A projection keeps the matched fields: each answer is found by them.
      const keep = projection ? { ...projection, ...Object.fromEntries(fields.map((f) => [f, 1])) } : undefined;
      const docs = await this.col.find(filter, keep ? { projection: keep } : {}).toArray();
      const byMatch = new Map(docs.map((d) => [fields.map((f) => keyOf(d[f])).join('\n'), d]));
      for (const r of list) r.resolve(byMatch.get(fields.map((f) => keyOf(r.match[f])).join('\n')) ?? null);
    } catch (err) {
      for (const r of list) r.reject(err);
    }
  }

  private async sendInserts(list: (Pending<boolean> & { doc: Document })[]) {
    if (list.length === 1) {
      const [r] = list as [Pending<boolean> & { doc: Document }];
      try {
        await this.col.insertOne(r.doc);
        r.resolve(true);
      } catch (err) {
        if (isDuplicateKeyError(err)) r.resolve(false);
        else r.reject(err);
      }
      return;
    }
    let failed: Map<number, unknown>;
    try {
      await this.col.insertMany(
        list.map((r) => r.doc),
        { ordered: false },
      );
      failed = new Map();
    } catch (err) {
      const perStatement = writeErrorsOf(err);
      if (!perStatement) {
        for (const r of list) r.reject(err);
        return;
      }
      failed = perStatement;
    }
    list.forEach((r, i) => {
      const e = failed.get(i);
      if (e === undefined) r.resolve(true);
      else if (isDuplicateKeyError(e)) r.resolve(false);
      else r.reject(e);
    });
  }

  private async sendWrites(list: WriteRequest[]) {
    let upserted: Set<number>;
    let failed: Map<number, unknown>;
    try {
      const res = await this.col.bulkWrite(
        list.map((r) => ({ updateOne: { filter: r.filter, update: r.update, upsert: r.kind === 'upsert' } })),
        { ordered: false },
      );
      upserted = new Set(Object.keys(res.upsertedIds).map(Number));
      failed = new Map();
    } catch (err) {
      const perStatement = writeErrorsOf(err);
      if (!perStatement) {
        for (const r of list) r.reject(err);
        return;
      }
      failed = perStatement;
      upserted = new Set(Object.keys((err as mongo.MongoBulkWriteError).result?.upsertedIds ?? {}).map(Number));
    }
    list.forEach((r, i) => {
      const e = failed.get(i);
      if (e === undefined) r.resolve(upserted.has(i) ? 'upserted' : 'matched');
      else if (isDuplicateKeyError(e) && r.kind === 'upsert') r.resolve('refused');
      else r.reject(e);
    });
  }
}

/**
 * The per-statement errors of a write that failed only in some statements (index → error), or
 * null when the whole command failed (a network error, a write concern error…): then every
 * statement's fate is unknown, as for a single command, and each caller gets the error.
 */
function writeErrorsOf(err: unknown): Map<number, unknown> | null {
  const e = err as Partial<mongo.MongoBulkWriteError> & { name?: string };
  if (e?.name !== 'MongoBulkWriteError' || e.writeConcernError || !e.writeErrors) return null;
  const list = Array.isArray(e.writeErrors) ? e.writeErrors : [e.writeErrors];
  if (list.length === 0) return null;
  return new Map(list.map((w) => [w.index, Object.assign(new Error(w.errmsg), { code: w.code, name: 'MongoServerError' })]));
}
