import { Types } from 'mongoose';
import { CommandBatcher } from './batched.js';
import type { Models } from './db.js';
import type { RecordOf } from './stored.js';
import type { WalletBalanceDoc } from './wallet-balance.schema.js';
import { nextDue, type Bucket } from '../domain/point-buckets.js';
import type { EarnedInPeriod } from '../domain/earning.js';
import type { TierRecord } from '../domain/tiers.js';

/**
 * A customer's balance in one wallet, as the ledger reads it; its `updatedAt` is when it last moved
 * (or was created): the next entry is dated after it.
 */
export type BalanceRecord = RecordOf<
  WalletBalanceDoc,
  never,
  'application' | 'customer' | 'wallet' | 'buckets' | 'nextDue' | 'periodCounters' | 'tier'
> & {
  /** The customer's tier state (shared/domain/tiers.ts); absent: never earned under tiers. */
  tier?: TierRecord;
  /** What the customer earned under each capped earning rule in its current period (none: empty). */
  periodCounters: EarnedInPeriod[];
  /** The wallet's `_id` (not its client-visible `walletId`). */
  walletDbId: string;
  /** Credits that expire or are still pending (shared/domain/point-buckets.ts), soonest first. */
  buckets: Bucket[];
  /** The balance has had buckets (its entries record them, even none). */
  bucketed: boolean;
};

/** A balance with a transition due (the expiry sweep). */
export type DueBalance = Pick<RecordOf<WalletBalanceDoc, 'application' | 'customer'>, 'id' | 'applicationId' | 'customerId'> & {
  walletDbId: string;
  due: Date;
};

/** A balance's `_id`: `<application>:<customer>:<wallet>`. */
export const balanceIdOf = (applicationId: string, customerId: string, walletDbId: string) =>
  `${applicationId}:${customerId}:${walletDbId}`;

/**
 * The filter of one balance by `_id`, with the application and customer it carries: the shard
 * key of wallet_balances (shared/data/shard-keys.ts), so a sharded cluster reads one shard.
 */
export function balanceFilter(id: string) {
  const [application, customer] = id.split(':');
  return { _id: id, application: new Types.ObjectId(application), customer: new Types.ObjectId(customer) };
}

const toRecord = (d: WalletBalanceDoc): BalanceRecord => ({
  id: String(d._id),
  walletDbId: String(d.wallet),
  points: d.points,
  version: d.version ?? 0,
  buckets: (d.buckets ?? []).map((b) => ({
    id: b.id,
    points: b.points,
    availableAt: b.availableAt ?? null,
    expiresAt: b.expiresAt ?? null,
  })),
  bucketed: d.buckets !== undefined && d.buckets !== null,
  periodCounters: (d.periodCounters ?? []).map((c) => ({ rule: c.rule, period: c.period, hundredths: c.hundredths })),
  ...(d.tier ? { tier: tierRecord(d.tier) } : {}),
  updatedAt: d.updatedAt ?? new Date(0),
});

const tierRecord = (t: TierRecord): TierRecord => ({
  level: t.level,
  held: t.held,
  until: new Date(t.until),
  earned: t.earned.map((e) => ({ month: e.month, hundredths: e.hundredths })),
  due: t.due ? new Date(t.due) : null,
});

/** How many balances a process remembers the state of (its own last move of each, most recent kept). */
export const KNOWN_BALANCES = 10_000;
/** While memory does not pay, one write in this many still uses it (to see whether it pays again). */
export const MEMORY_PROBE = 16;
/** The share of recent writes on memory that must have held for memory to be used. */
export const MEMORY_PAYS = 0.9;

export function walletBalanceRepository({ WalletBalance }: Models) {
  const batch = new CommandBatcher(WalletBalance);
  /** The state this process's own last move left each balance in, least recently used first. */
  const known = new Map<string, BalanceRecord>();
  /**
   * Whether writing on memory pays: a write on a memory that held saves the read, one on a stale
   * memory costs a refused insert and then the read — far dearer than the read it would have
   * saved (two worker replicas taking customers' credits in turn: 1.8× the CPU of one worker with
   * memory used at a half's threshold, docs/benchmarks.md). So memory is used while nearly every
   * write on it held ({@link MEMORY_PAYS} of the process's recent ones, an average moving by 1/32 a
   * write: four stale writes in a row turn it off); otherwise one write in {@link MEMORY_PROBE}
   * still uses it, to see whether it pays again.
   */
  let heldShare = 1;
  let unused = 0;
  return {
    /**
     * The balance as this process's own last move left it, if it remembers one and memory pays —
     * not a read: another process may have moved it since. The ledger writes on it without reading
     * first and reads only when its write collides (shared/usecases/wallet-ledger.ts).
     */
    knownState(id: string): BalanceRecord | undefined {
      const r = known.get(id);
      if (!r) return undefined;
      if (heldShare < MEMORY_PAYS && ++unused % MEMORY_PROBE !== 0) return undefined;
      known.delete(id);
      known.set(id, r);
      return r;
    },
    /** How a write on memory went: the balance was as remembered (true), or the memory was stale. */
    memoryHeld(held: boolean): void {
      heldShare += ((held ? 1 : 0) - heldShare) / 32;
    },
    /** Remembers `record` as the state this process's move just left its balance in. */
    remember(record: BalanceRecord): void {
      known.delete(record.id);
      known.set(record.id, record);
      if (known.size > KNOWN_BALANCES) known.delete(known.keys().next().value!);
    },
    /** Forgets what this process knew of a balance (it collided, failed, or moved otherwise). */
    forget(id: string): void {
      known.delete(id);
    },
    /** The balance document of a customer in a wallet, created at 0 on first use (one round trip either way). */
    async getOrCreate(applicationId: string, customerId: string, walletDbId: string): Promise<BalanceRecord> {
      const filter = balanceFilter(balanceIdOf(applicationId, customerId, walletDbId));
      const found = (await batch.findOne(filter)) as WalletBalanceDoc | null;
      if (found) return toRecord(found);
      // First use: create it, or read the one a concurrent first use created (an upsert by `_id`
      // can still race on the unique index: the loser retries once and finds it).
      const create = () =>
        WalletBalance.collection.findOneAndUpdate(
          filter as never,
          {
            // `_id`, application and customer come from the filter's equalities.
            $setOnInsert: {
              wallet: new Types.ObjectId(walletDbId),
              points: 0,
              version: 0,
              updatedAt: new Date(),
            },
          },
          { upsert: true, returnDocument: 'after' },
        );
      // A concurrent first use that won the race makes this upsert fail (E11000; FerretDB reports it
      // as an internal error): whatever the error, the balance is there if someone created it.
      const doc = await create().catch(async (err) => {
        const existing = await WalletBalance.findOne(filter).lean<WalletBalanceDoc>();
        if (existing) return existing;
        throw err;
      });
      return toRecord(doc as unknown as WalletBalanceDoc);
    },
    async findById(id: string): Promise<BalanceRecord | null> {
      const d = await WalletBalance.findOne(balanceFilter(id)).lean<WalletBalanceDoc>();
      return d ? toRecord(d) : null;
    },
    /** A customer's balances in every wallet (wallet read). */
    async listByCustomer(applicationId: string, customerId: string): Promise<BalanceRecord[]> {
      const ds = await WalletBalance.find({ application: applicationId, customer: customerId }).lean<WalletBalanceDoc[]>();
      return ds.map(toRecord);
    },
    /**
     * Moves the balance from `version` to `version + 1` with the entry that holds that slot (its
     * `after` and, when the balance has buckets, the buckets after it — with `nextDue`, the instant
     * the sweep looks for it, unset when nothing is due ever). Matches nothing when someone already
     * did: the version guard makes it apply once. `steps` > 1: a run of entries at slots `version`…
     * `version + steps - 1`, all written, applied at once with the last one's `after` and buckets.
     * `periodCounters`: the entry's, when it earned under (or gave back to) a capped rule.
     * Resolves with the `updatedAt` it wrote.
     */
    async applyAtVersion(
      id: string,
      version: number,
      after: number,
      buckets?: Bucket[],
      steps = 1,
      periodCounters?: EarnedInPeriod[],
      tier?: TierRecord | null,
    ): Promise<Date> {
      const updatedAt = new Date();
      const set: Record<string, unknown> = { points: after, version: version + steps, updatedAt };
      const unset: Record<string, ''> = {};
      if (periodCounters) set.periodCounters = periodCounters;
      if (buckets) set.buckets = buckets;
      if (tier) set.tier = tier;
      else if (tier === null) unset.tier = '';
      // The sooner of the buckets' next transition and the tier's re-assessment: the sweep's index.
      const dues = [buckets ? nextDue({ points: after, buckets }) : null, tier?.due ?? null].filter((d): d is Date => d !== null);
      const due = dues.length ? new Date(Math.min(...dues.map((d) => d.getTime()))) : null;
      if (due) set.nextDue = due;
      else if (buckets || tier !== undefined) unset.nextDue = '';
      const update = Object.keys(unset).length ? { $set: set, $unset: unset } : { $set: set };
      await batch.updateBlind({ ...balanceFilter(id), version }, update);
      return updatedAt;
    },
    /**
     * A page of an application's balances in `_id` order after `after` (null: from the start): the
     * verifier's read, one range of `_id`s per page (every balance `_id` starts `<application>:`).
     */
    async applicationPage(applicationId: string, after: string | null, limit: number): Promise<WalletBalanceDoc[]> {
      return WalletBalance.find(
        { application: applicationId, _id: { $gt: after ?? `${applicationId}:`, $lt: `${applicationId};` } },
        { _id: 1, points: 1, version: 1, buckets: 1, periodCounters: 1, tier: 1 },
      )
        .sort({ _id: 1 })
        .limit(limit)
        .lean<WalletBalanceDoc[]>();
    },
    /**
     * Balances with a transition due by `now` (the sweep), soonest first, after `after` (a pass's
     * cursor: many balances can be due at one instant, so the cursor is the instant and the `_id`).
     * Ranges of the (nextDue, _id) index: the cost grows with what is due, not with what exists.
     */
    async listDue(now: Date, limit: number, after?: { due: Date; id: string }): Promise<DueBalance[]> {
      const range = after
        ? { $or: [{ nextDue: { $gt: after.due, $lte: now } }, { nextDue: after.due, _id: { $gt: after.id } }] }
        : { nextDue: { $lte: now } };
      const ds = await WalletBalance.find(range, { application: 1, customer: 1, wallet: 1, nextDue: 1 })
        .sort({ nextDue: 1, _id: 1 })
        .limit(limit)
        .lean<Pick<WalletBalanceDoc, '_id' | 'application' | 'customer' | 'wallet' | 'nextDue'>[]>();
      return ds.map((d) => ({
        id: d._id,
        applicationId: String(d.application),
        customerId: String(d.customer),
        walletDbId: String(d.wallet),
        due: d.nextDue!,
      }));
    },
  };
}
export type WalletBalanceRepository = ReturnType<typeof walletBalanceRepository>;
