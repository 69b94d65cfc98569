import { Types } from 'mongoose';
import { CommandBatcher } from './batched.js';
import { isDuplicateKeyError } from './db.js';
import type { Models } from './db.js';
import type { RecordOf } from './stored.js';
import type { OrderReturn, WalletTransactionDoc } from './wallet-transaction.schema.js';
import type { EarnedInPeriod } from '../domain/earning.js';
import type { TierCounted, TierRecord } from '../domain/tiers.js';
import { balanceFilter, balanceIdOf } from './wallet-balance.repository.js';

/** The stored entry, before its state is derived from a balance. */
export type StoredEntry = RecordOf<
  WalletTransactionDoc,
  never,
  | 'application'
  | 'wallet'
  | 'customer'
  | 'state'
  | 'updatedAt'
  | 'periodCounters'
  | 'periodCounted'
  | 'returns'
  | 'returnsCount'
  | 'tier'
  | 'tierCounted'
  | 'tierChange'
> & {
  /** The balance's tier after it (balances with tiers; null: cleared), what it counted toward the tier, the level change it made. */
  tier?: TierRecord | null;
  tierCounted?: TierCounted;
  tierChange?: { from: string | null; to: string | null };
  /** An order's earning: the returns recorded against it (see {@link OrderReturn}). */
  returns?: OrderReturn[];
  stored: WalletTransactionDoc['state'];
  /** The balance's period counters after it, when it moved them (an order earning under a capped rule, or its return). */
  periodCounters?: EarnedInPeriod[];
  /** What it counted toward (or gave back to) those caps. */
  periodCounted?: EarnedInPeriod[];
};

export type LedgerEntry = Omit<StoredEntry, 'stored'> & {
  /** `applied`/`pending` derived from the balance's version; `refused` and `void` as stored. */
  state: 'pending' | 'applied' | 'refused' | 'void';
};

const toStored = (d: WalletTransactionDoc): StoredEntry => ({
  id: d._id,
  txnId: d.txnId,
  type: d.type,
  points: d.points,
  seq: d.seq ?? null,
  before: d.before ?? null,
  after: d.after ?? null,
  description: d.description ?? '',
  stored: d.state,
  origin: d.origin,
  buckets: d.buckets
    ? d.buckets.map((b) => ({ id: b.id, points: b.points, availableAt: b.availableAt ?? null, expiresAt: b.expiresAt ?? null }))
    : null,
  bucket: d.bucket ? { move: d.bucket.move, availableAt: d.bucket.availableAt ?? null, expiresAt: d.bucket.expiresAt ?? null } : null,
  trigger: d.trigger ?? null,
  ...(d.periodCounters ? { periodCounters: d.periodCounters.map(counter) } : {}),
  ...(d.periodCounted ? { periodCounted: d.periodCounted.map(counter) } : {}),
  ...(d.returns?.length
    ? {
        returns: d.returns.map((r) => ({
          returnId: r.returnId,
          points: r.points,
          ...(r.releases?.length ? { releases: r.releases.map(counter) } : {}),
        })),
      }
    : {}),
  ...(d.tier !== undefined ? { tier: d.tier ? tierOf(d.tier) : null } : {}),
  ...(d.tierCounted ? { tierCounted: { month: d.tierCounted.month, hundredths: d.tierCounted.hundredths } } : {}),
  ...(d.tierChange ? { tierChange: { from: d.tierChange.from ?? null, to: d.tierChange.to ?? null } } : {}),
  createdAt: d.createdAt,
});
const tierOf = (t: TierRecord): TierRecord => ({
  level: t.level,
  held: t.held,
  until: new Date(t.until),
  earned: t.earned.map((e) => ({ month: e.month, hundredths: e.hundredths })),
  due: t.due ? new Date(t.due) : null,
});
const counter = (c: EarnedInPeriod): EarnedInPeriod => ({ rule: c.rule, period: c.period, hundredths: c.hundredths });

/** An entry's state given its balance's version (entries at a slot below it are applied). */
export const stateOf = (e: StoredEntry, version: number): LedgerEntry['state'] =>
  e.stored === 'refused' || e.stored === 'void' ? e.stored : e.seq !== null && e.seq < version ? 'applied' : 'pending';

export const slotOf = (balanceId: string, version: number) => `${balanceId}:${version}`;
// A txnId is unique per customer: so are these ids. (A stored entry may carry the shorter
// `refused:<application>:<txnId>`, without the customer; a re-run still finds it, by its txnId.)
export const refusedIdOf = (applicationId: string, customerId: string, txnId: string) => `refused:${applicationId}:${customerId}:${txnId}`;
export const voidIdOf = (applicationId: string, customerId: string, txnId: string) => `void:${applicationId}:${customerId}:${txnId}`;

/** An entry to write: the stored fields, where it goes (`slot`, its `_id`) and for whom. */
export type NewEntry = Omit<StoredEntry, 'createdAt' | 'id' | 'buckets' | 'bucket' | 'trigger'> &
  Partial<Pick<StoredEntry, 'bucket' | 'trigger'>> & {
    /** The buckets after it (undefined: the balance has none). */ buckets?: StoredEntry['buckets'] | undefined;
    applicationId: string;
    walletDbId: string;
    customerId: string;
    /** The entry's `_id`. */ slot: string;
    /** Its `createdAt` (default: now). */ createdAt?: Date;
  };

/** An entry as the verifier reads it by slot. */
type SlotRow = Pick<
  WalletTransactionDoc,
  '_id' | 'seq' | 'type' | 'before' | 'after' | 'state' | 'buckets' | 'periodCounted' | 'tier' | 'tierCounted'
>;

/** The document of a new entry. */
const docOf = (entry: NewEntry, at: Date) => ({
  _id: entry.slot as never,
  application: new Types.ObjectId(entry.applicationId),
  wallet: new Types.ObjectId(entry.walletDbId),
  customer: new Types.ObjectId(entry.customerId),
  txnId: entry.txnId,
  seq: entry.seq,
  type: entry.type,
  points: entry.points,
  before: entry.before,
  after: entry.after,
  description: entry.description,
  state: entry.stored,
  origin: entry.origin,
  // Written only where there is something to say: a wallet without buckets keeps its entries' shape.
  ...(entry.buckets ? { buckets: entry.buckets } : {}),
  ...(entry.bucket ? { bucket: entry.bucket } : {}),
  ...(entry.trigger ? { trigger: entry.trigger } : {}),
  ...(entry.periodCounters ? { periodCounters: entry.periodCounters } : {}),
  ...(entry.periodCounted ? { periodCounted: entry.periodCounted } : {}),
  ...(entry.tier !== undefined ? { tier: entry.tier } : {}),
  ...(entry.tierCounted ? { tierCounted: entry.tierCounted } : {}),
  ...(entry.tierChange ? { tierChange: entry.tierChange } : {}),
  createdAt: at,
  updatedAt: at,
});

export function walletTransactionRepository({ WalletTransaction, WalletBalance }: Models) {
  const col = WalletTransaction.collection;
  const batch = new CommandBatcher(WalletTransaction);
  const versionOf = async (applicationId: string, customerId: string, walletDbId: string) =>
    (
      await WalletBalance.findOne(balanceFilter(balanceIdOf(applicationId, customerId, walletDbId)), { version: 1 }).lean<{
        version?: number;
      }>()
    )?.version ?? 0;
  return {
    /** A customer's entry by its txnId (unique per application and customer). */
    async findByTxnId(applicationId: string, customerId: string, txnId: string): Promise<StoredEntry | null> {
      const d = await WalletTransaction.findOne({ application: applicationId, customer: customerId, txnId }).lean<WalletTransactionDoc>();
      return d ? toStored(d) : null;
    },
    /**
     * After a write collided: the entry holding `slot` and this operation's own entry (by its
     * `txnId`), in one read. Either may be missing; they are the same entry for a re-run.
     */
    async findSlotOrTxn(
      applicationId: string,
      customerId: string,
      slot: string,
      txnId: string,
    ): Promise<{ atSlot: StoredEntry | null; mine: StoredEntry | null }> {
      // Both are the customer's entries: the shard key (application, customer) targets one shard.
      const ds = (await col
        .find({
          application: new Types.ObjectId(applicationId),
          customer: new Types.ObjectId(customerId),
          $or: [{ _id: slot as never }, { txnId }],
        })
        .toArray()) as unknown as WalletTransactionDoc[];
      const atSlot = ds.find((d) => d._id === slot && String(d.application) === applicationId);
      const mine = ds.find((d) => d.txnId === txnId && String(d.application) === applicationId);
      return { atSlot: atSlot ? toStored(atSlot) : null, mine: mine ? toStored(mine) : null };
    },
    /**
     * Writes the journal entry. Returns false when an entry with the same txnId or the same `_id`
     * exists already (a re-run, or another operation took the slot first).
     */
    async insert(entry: NewEntry): Promise<boolean> {
      return batch.insert(docOf(entry, entry.createdAt ?? new Date()));
    },
    /**
     * Records a return against an order's earning entry (`id`) if `count` returns are recorded on it
     * so far (compare and set: two returns decided on the same count, one wins). True when written.
     */
    async recordReturn(applicationId: string, customerId: string, id: string, count: number, ret: OrderReturn): Promise<boolean> {
      const res = await col.updateOne(
        {
          _id: id as never,
          application: new Types.ObjectId(applicationId),
          customer: new Types.ObjectId(customerId),
          ...(count === 0 ? { returnsCount: { $exists: false } } : { returnsCount: count }),
        },
        { $push: { returns: ret } as never, $set: { returnsCount: count + 1 } },
      );
      return res.modifiedCount === 1;
    },
    /**
     * Writes a run of entries at consecutive slots in one ordered insert; returns how many were
     * written — a prefix of the run: the insert stops at the first entry whose slot or txnId exists.
     */
    async insertRun(entries: (NewEntry & { createdAt: Date })[]): Promise<number> {
      const docs = entries.map((entry) => docOf(entry, entry.createdAt));
      try {
        return (await col.insertMany(docs, { ordered: true })).insertedCount;
      } catch (err) {
        // A slot or txnId taken: the driver's bulk error carries the first write error's code (some
        // versions only in writeErrors) and how many were written before it.
        const e = err as { writeErrors?: unknown; insertedCount?: number; result?: { insertedCount?: number } };
        const writeErrors = ([] as unknown[]).concat(e.writeErrors ?? []);
        if (!isDuplicateKeyError(err) && !writeErrors.some(isDuplicateKeyError)) throw err;
        return e.insertedCount ?? e.result?.insertedCount ?? 0;
      }
    },
    /**
     * A page of the entries at slots of an application's balances from `from` to `to` (`_id`s: a
     * balance's slots are `<balance>:<version>`, so the slots of the balances between two ids are
     * one range), in `_id` order after `after`. The verifier's read; refused and void entries
     * (`refused:…`, `void:…`) are outside every such range.
     */
    async slotPage(applicationId: string, range: { from: string; to: string }, after: string | null, limit: number): Promise<SlotRow[]> {
      return WalletTransaction.find(
        { application: applicationId, _id: { $gt: after ?? range.from, $lt: range.to } },
        { _id: 1, seq: 1, type: 1, before: 1, after: 1, state: 1, buckets: 1, periodCounted: 1, tier: 1, tierCounted: 1 },
      )
        .sort({ _id: 1 })
        .limit(limit)
        .lean<SlotRow[]>();
    },
    /**
     * The transitions posted by `trigger` (an operation's txnId or a settle job's), for the events of a
     * re-run that did not see them posted. Reads the customer's range of the (application, customer,
     * txnId) index: a re-run's path only.
     */
    async listByTrigger(applicationId: string, customerId: string, trigger: string): Promise<StoredEntry[]> {
      const ds = await WalletTransaction.find({ application: applicationId, customer: customerId, trigger })
        .sort({ seq: 1 })
        .lean<WalletTransactionDoc[]>();
      return ds.map(toStored);
    },
    /** Sum of applied entries (credits minus debits) — the invariant the balance must equal. */
    async sumApplied(applicationId: string, customerId: string, walletDbId: string): Promise<number> {
      const version = await versionOf(applicationId, customerId, walletDbId);
      const ds = await WalletTransaction.find(
        { application: applicationId, customer: customerId, wallet: walletDbId, seq: { $ne: null, $lt: version } },
        { before: 1, after: 1 },
      ).lean<Pick<WalletTransactionDoc, 'before' | 'after'>[]>();
      return ds.reduce((s, d) => s + (d.after ?? 0) - (d.before ?? 0), 0);
    },
    /** A customer's entries in one wallet, oldest first (then by `_id`), with their derived state; a page after `after`. */
    async listForCustomer(
      applicationId: string,
      customerId: string,
      walletDbId: string,
      page: { after?: { at: Date; id: string }; limit?: number } = {},
      /** The balance's version the states derive from (read with the balance, so both tell one moment); read here when absent. */
      atVersion?: number,
    ): Promise<LedgerEntry[]> {
      const after = page.after
        ? { $or: [{ createdAt: { $gt: page.after.at } }, { createdAt: page.after.at, _id: { $gt: page.after.id } }] }
        : {};
      const [version, ds] = await Promise.all([
        atVersion ?? versionOf(applicationId, customerId, walletDbId),
        WalletTransaction.find({ application: applicationId, customer: customerId, wallet: walletDbId, ...after })
          .sort({ createdAt: 1, _id: 1 })
          .limit(page.limit ?? 0)
          .lean<WalletTransactionDoc[]>(),
      ]);
      return ds.map((d) => {
        const { stored: _s, ...e } = toStored(d);
        return { ...e, state: stateOf(toStored(d), version) };
      });
    },
    /** Whether any ledger entry names this customer and/or wallet (deletes are refused then). */
    async hasEntries(applicationId: string, of: { customerId?: string; walletDbId?: string }): Promise<boolean> {
      const filter = {
        application: applicationId,
        ...(of.customerId ? { customer: of.customerId } : {}),
        ...(of.walletDbId ? { wallet: of.walletDbId } : {}),
      };
      return (await WalletTransaction.exists(filter)) !== null;
    },
  };
}
export type WalletTransactionRepository = ReturnType<typeof walletTransactionRepository>;
