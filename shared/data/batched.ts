/**
 * Coalesced commands: the single-document reads and writes that concurrent operations send to one
 * collection in the same turn of the event loop go out as one command of each kind — one `find`
 * with `$in`, one unordered `insert`, one unordered `update` — and each caller gets its own
 * document's answer. Nothing changes for a caller: every statement is
 * still a single-document operation, atomic on its own, exactly as if it had been sent alone
 * (MongoDB executes the statements of an unordered write independently; a failing one does not
 * stop the others). What changes is the cost: a command's wire round trip, parsing and dispatch
 * are paid once per batch instead of once per operation (docs/architecture.md, "Batched
 * commands"; docs/benchmarks.md measures it).
 *
 * A statement's own result is known for finds (by `_id`), inserts (a duplicate key is reported
 * per statement) and upserts (each is either upserted, matched, or refused by a unique index —
 * the guard of a guarded upsert). A plain update's own
 * match count is not reported per statement, so only updates whose caller needs no answer are
 * batched ({@link CommandBatcher.updateBlind}).
 *
 * The commands go to the server as they are (`find`, `insert`, `update`): the driver's bulk and
 * cursor layers would cost more CPU than the command itself on this hot path.
 *
 * A batch waits for nothing: it is sent once the current turn of the event loop ends
 * (`setImmediate`), so a lone operation pays no delay, and operations that run in step (their
 * previous answers arrived in one batch) share their next command too.
 */
import type { mongo } from 'mongoose';

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

/** Orders statements by their document's `_id` (as text; statements without one come first). */
const compareIds = (a: unknown, b: unknown): number => {
  const x = a === undefined ? '' : keyOf(a);
  const y = b === undefined ? '' : keyOf(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** What a batcher needs of a mongoose model: its collection's name and the driver's database. */
export interface BatchedModel {
  collection: { collectionName: string };
  db: { db?: mongo.Db };
}

/** A write command's reply (the parts this module reads). */
interface WriteReply {
  upserted?: { index: number }[];
  writeErrors?: { index: number; code: number; errmsg: string }[];
  writeConcernError?: unknown;
}

export class CommandBatcher {
  private finds = new Map<string, FindRequest[]>();
  private inserts: (Pending<boolean> & { doc: Document })[] = [];
  private writes: WriteRequest[] = [];
  private scheduled = false;

  /** Batches the commands of `model`'s collection (no casting, no hydration). */
  constructor(private readonly model: BatchedModel) {}

  private command(cmd: Document): Promise<Document> {
    const db = this.model.db.db;
    if (!db) return Promise.reject(new Error('the database connection is not open'));
    return db.command(cmd);
  }

  private get name(): string {
    return this.model.collection.collectionName;
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

  /** The documents matching `filter` — one `find` command of its own (a query that is not by key). */
  findMany(filter: Document, opts: { projection?: Document; sort?: Document; limit?: number } = {}): Promise<Document[]> {
    return this.findAll({ find: this.name, filter, ...opts, batchSize: Math.min(opts.limit ?? 10_000, 10_000) });
  }

  /** One `findAndModify` of its own: the document after the update, or null when nothing matched. */
  async findAndModify(query: Document, update: UpdateFilter<Document>): Promise<Document | null> {
    const reply = (await this.command({ findAndModify: this.name, query, update, new: true })) as { value?: Document | null };
    return reply.value ?? null;
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
    // In `_id` order: two commands that write the same documents then take them in the same order.
    // MongoDB runs an unordered write's statements independently (the order changes nothing); a
    // database that runs a command's statements in one transaction (the test database: PostgreSQL
    // row locks) would otherwise deadlock when concurrent commands meet the same documents in
    // opposite orders — and wait, not fail: commands of three coupons' counters in random orders
    // stalled for seconds.
    inserts.sort((a, b) => compareIds(a.doc._id, b.doc._id));
    writes.sort((a, b) => compareIds(a.filter._id, b.filter._id));
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
      const docs = await this.findAll({ find: this.name, filter, ...(keep ? { projection: keep } : {}), batchSize: list.length + 100 });
      const byMatch = new Map(docs.map((d) => [fields.map((f) => keyOf(d[f])).join('\n'), d]));
      for (const r of list) r.resolve(byMatch.get(fields.map((f) => keyOf(r.match[f])).join('\n')) ?? null);
    } catch (err) {
      for (const r of list) r.reject(err);
    }
  }

  /** Every document a `find` command answers (its first batch, and more if the cursor is still open). */
  private async findAll(cmd: Document): Promise<Document[]> {
    let reply = (await this.command(cmd)) as { cursor: { id: unknown; firstBatch?: Document[]; nextBatch?: Document[] } };
    const docs = [...(reply.cursor.firstBatch ?? [])];
    while (reply.cursor.id && String(reply.cursor.id) !== '0') {
      reply = (await this.command({ getMore: reply.cursor.id, collection: this.name })) as typeof reply;
      docs.push(...(reply.cursor.nextBatch ?? []));
    }
    return docs;
  }

  private async sendInserts(list: (Pending<boolean> & { doc: Document })[]) {
    await this.sendWrite({ insert: this.name, documents: list.map((r) => r.doc), ordered: false }, list, (r, outcome) =>
      r.resolve(outcome !== 'duplicate'),
    );
  }

  private async sendWrites(list: WriteRequest[]) {
    await this.sendWrite(
      {
        update: this.name,
        updates: list.map((r) => ({ q: r.filter, u: r.update, upsert: r.kind === 'upsert', multi: false })),
        ordered: false,
      },
      list,
      (r, outcome) => {
        if (outcome === 'duplicate' && r.kind !== 'upsert') r.reject(duplicateKey());
        else r.resolve(outcome === 'duplicate' ? 'refused' : outcome);
      },
    );
  }

  /**
   * Sends one unordered write command and answers each statement's caller: `upserted`, `matched`
   * (applied, or matched nothing — a write reply does not say which statement matched), or
   * `duplicate` (a unique index refused it). Another error of a statement goes to its caller only;
   * an error of the whole command (network, write concern) to every caller: as for a single
   * command, the statements' fate is then unknown.
   */
  private async sendWrite<R extends Pending<never>>(
    cmd: Document,
    list: R[],
    answer: (r: R, outcome: 'upserted' | 'matched' | 'duplicate') => void,
  ) {
    let reply: WriteReply;
    try {
      reply = (await this.command(cmd)) as WriteReply;
      if (reply.writeConcernError) throw Object.assign(new Error('write concern error'), { writeConcernError: reply.writeConcernError });
    } catch (err) {
      for (const r of list) r.reject(err);
      return;
    }
    const upserted = new Set((reply.upserted ?? []).map((u) => u.index));
    const failed = new Map((reply.writeErrors ?? []).map((e) => [e.index, e]));
    list.forEach((r, i) => {
      const e = failed.get(i);
      if (!e) answer(r, upserted.has(i) ? 'upserted' : 'matched');
      else if (e.code === 11000) answer(r, 'duplicate');
      else r.reject(Object.assign(new Error(e.errmsg), { name: 'MongoServerError', code: e.code }));
    });
  }
}

const duplicateKey = () => Object.assign(new Error('E11000 duplicate key'), { name: 'MongoServerError', code: 11000 });
