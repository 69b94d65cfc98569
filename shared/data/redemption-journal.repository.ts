/**
 * The redemption journal (redemption.schema.ts): reading an order's cycles and the single-document
 * commits of the counters' protocol (shared/usecases/limit-counters.ts).
 */
import { createHash } from 'node:crypto';
import { Types } from 'mongoose';
import { CommandBatcher } from './batched.js';
import type { Models } from './db.js';
import type { RedemptionDoc, StackRecordFields } from './redemption.schema.js';
import type { RecordOf } from './stored.js';
import type { FreeGiftLine } from '../domain/discount.js';

export type RedemptionRecord = Omit<
  RecordOf<RedemptionDoc, 'application' | 'campaign' | 'customer' | 'couponCode', 'att' | 'updatedAt' | 'stk'>,
  'state' | 'budgetCents' | 'basketCents' | 'hour' | 'gifts'
> & {
  /** Read only where it is set (a document with `att` alone is a placeholder). */
  state: NonNullable<RedemptionDoc['state']>;
  /** What it counts in its campaign's budget, in cents; absent: 0. */
  budgetCents?: number;
  /** The selling subtotal of the order it was used on, in cents (docs/results.md); absent: 0. */
  basketCents?: number;
  /** The local hour (0-23) of its campaign's results it counts in (docs/results.md); absent: none. */
  hour?: number;
  /** The free gifts it gave; absent: none. */
  gifts?: FreeGiftLine[];
};

/** The fields a redeem commits (everything but what the journal derives). */
export type CycleFields = Omit<RedemptionRecord, 'id' | 'state' | 'revertJobId' | 'createdAt' | 'stack'> & {
  /** The stack record it was committed with (several coupons); absent or null alone. */
  stack?: string | null;
};

/** A stack record (redemption.schema.ts `stk`): several cycles of one order committed together. */
export type StackRecord = Omit<StackRecordFields, 'cycles'> & { key: string; cycles: CycleFields[] };

/** A stack record's `_id`: `stack:<application>:<order ref>:<n>`. */
export const stackKey = (applicationId: string, orderId: string, n: number) => `stack:${applicationId}:${orderRef(orderId)}:${n}`;

/**
 * The stack record whose attempt a counter's lane names, or null when the attempt is a single
 * cycle's: a stack's attempts end in `~<n>` (attempt ids are otherwise base64url), and the cycle's
 * key carries the order ref (docs/architecture.md, "Several coupons").
 */
export function stackKeyOfAttempt(applicationId: string, cycleKey: string, attempt: string): string | null {
  const mark = attempt.indexOf('~');
  if (mark < 0) return null;
  const ref = cycleKey.split(':')[1];
  return `stack:${applicationId}:${ref}:${attempt.slice(mark + 1)}`;
}

const toRecord = (d: RedemptionDoc): RedemptionRecord => ({
  id: d._id,
  applicationId: String(d.application),
  campaignId: String(d.campaign),
  customerId: String(d.customer),
  couponCodeId: d.couponCode ? String(d.couponCode) : null,
  orderId: d.orderId,
  cycle: d.cycle,
  key: d.key,
  state: d.state!,
  couponId: d.couponId,
  code: d.code,
  discountCents: d.discountCents,
  cashbackCents: d.cashbackCents,
  ...(d.budgetCents ? { budgetCents: d.budgetCents } : {}),
  ...(d.basketCents ? { basketCents: d.basketCents } : {}),
  ...(d.hour !== undefined && d.hour !== null ? { hour: d.hour } : {}),
  ...(d.gifts?.length ? { gifts: d.gifts as FreeGiftLine[] } : {}),
  cashbackWallet: d.cashbackWallet ?? null,
  periods: d.periods,
  counters: d.counters,
  refusal: d.refusal ?? null,
  redeemJobId: d.redeemJobId,
  revertJobId: d.revertJobId ?? null,
  stack: d.stack ?? null,
  createdAt: d.createdAt,
});

const toStack = (d: RedemptionDoc): StackRecord => ({ ...d.stk!, key: d._id, cycles: d.stk!.cycles as unknown as CycleFields[] });

/**
 * An order's part of its redemption keys: 16 base64url characters of its id's SHA-256 (96 bits),
 * so that a key has the same length whatever the order id's (up to 256 characters).
 */
export const orderRef = (orderId: string): string => createHash('sha256').update(orderId).digest('base64url').slice(0, 16);

/**
 * A redemption's `_id` and the key its counter lanes name: `<campaign>:<order ref>:<cycle>` (the
 * events' `redemption_id`, docs/events.md). The lanes keep the part after `<campaign>:` (a counter
 * belongs to one campaign).
 */
export const redemptionKey = (campaignId: string, orderId: string, cycle: number) => `${campaignId}:${orderRef(orderId)}:${cycle}`;

/** What the verifier reads of a journal document (shared/usecases/verify/verify-exactness.usecase.ts). */
export type JournalRow = Pick<
  RedemptionDoc,
  | '_id'
  | 'application'
  | 'customer'
  | 'orderId'
  | 'state'
  | 'periods'
  | 'counters'
  | 'createdAt'
  | 'updatedAt'
  | 'stack'
  | 'budgetCents'
  | 'discountCents'
  | 'cashbackCents'
  | 'basketCents'
  | 'hour'
>;
const JOURNAL_ROW = {
  application: 1,
  customer: 1,
  orderId: 1,
  state: 1,
  periods: 1,
  counters: 1,
  createdAt: 1,
  updatedAt: 1,
  stack: 1,
  budgetCents: 1,
  discountCents: 1,
  cashbackCents: 1,
  basketCents: 1,
  hour: 1,
};

export function redemptionJournalRepository({ Redemption }: Models) {
  const col = Redemption.collection;
  const batch = new CommandBatcher(Redemption);

  /** Writes `set` on cycle `key` for attempt `attempt` if the guard holds; false when it does not. */
  async function commit(key: string, attempt: string, guard: Record<string, unknown>, set: Record<string, unknown>, upsert: boolean) {
    const filter = { _id: key, ...guard, [`att.${attempt}`]: { $exists: false } };
    const update = { $set: { ...set, [`att.${attempt}`]: 'c', updatedAt: new Date() } };
    // Refused: the upsert found the cycle, not the guard.
    if (upsert) return (await batch.upsert(filter, update)) !== 'refused';
    return (await col.updateOne(filter as never, update)).matchedCount === 1;
  }

  return {
    /**
     * Every cycle of one order with one campaign, oldest first: one indexed read of a range of
     * `_id`s (the `orderId` equality drops other orders that share the prefix).
     */
    async cycles(applicationId: string, campaignId: string, orderId: string): Promise<RedemptionRecord[]> {
      const prefix = `${campaignId}:${orderRef(orderId)}:`;
      const ds = (await batch.findMany({ _id: { $gt: prefix, $lt: `${prefix}~` }, orderId, state: { $exists: true } })) as RedemptionDoc[];
      return ds
        .filter((d) => String(d.application) === applicationId)
        .map(toRecord)
        .sort((a, b) => a.cycle - b.cycle);
    },
    /**
     * Whether cycle `key` has a state (a document with `att` alone is a placeholder, not a cycle).
     * Concurrent callers share one `find` (batched by `_id`).
     */
    async hasCycle(key: string): Promise<boolean> {
      const d = (await batch.findOne({ _id: key }, { projection: { state: 1 } })) as Pick<RedemptionDoc, 'state'> | null;
      return !!d?.state;
    },
    async get(key: string): Promise<RedemptionDoc | null> {
      return (await col.findOne({ _id: key as never })) as RedemptionDoc | null;
    },
    /**
     * Commits a redeem attempt: writes cycle `fields.cycle` as `state` (`completed`, or
     * `refused` for a limit refusal) unless that cycle has a state already or the attempt was
     * abandoned. True when this call wrote it.
     */
    async commitCycle(fields: CycleFields, attempt: string, state: 'completed' | 'refused', refusal: RedemptionRecord['refusal'] = null) {
      const key = fields.key;
      return commit(
        key,
        attempt,
        { state: { $exists: false } },
        {
          application: new Types.ObjectId(fields.applicationId),
          campaign: new Types.ObjectId(fields.campaignId),
          couponCode: fields.couponCodeId ? new Types.ObjectId(fields.couponCodeId) : null,
          customer: new Types.ObjectId(fields.customerId),
          orderId: fields.orderId,
          cycle: fields.cycle,
          key,
          state,
          couponId: fields.couponId,
          code: fields.code,
          discountCents: fields.discountCents,
          cashbackCents: fields.cashbackCents,
          ...(fields.budgetCents ? { budgetCents: fields.budgetCents } : {}),
          ...(fields.basketCents ? { basketCents: fields.basketCents } : {}),
          ...(fields.hour !== undefined ? { hour: fields.hour } : {}),
          ...(fields.gifts?.length ? { gifts: fields.gifts } : {}),
          cashbackWallet: fields.cashbackWallet,
          periods: fields.periods,
          counters: fields.counters,
          refusal,
          redeemJobId: fields.redeemJobId,
          revertJobId: null,
          stack: fields.stack ?? null,
          createdAt: new Date(),
        },
        true,
      );
    },
    /** Every stack record of one order of one application, oldest first (one read of a range of `_id`s). */
    async stacks(applicationId: string, orderId: string): Promise<StackRecord[]> {
      const prefix = `stack:${applicationId}:${orderRef(orderId)}:`;
      const ds = (await batch.findMany({
        _id: { $gt: prefix, $lt: `${prefix}~` },
        'stk.orderId': orderId,
        'stk.state': { $exists: true },
      })) as RedemptionDoc[];
      return ds.map(toStack).sort((a, b) => a.cycle - b.cycle);
    },
    /**
     * An order's stack records and its cycles with each of `campaignIds`, oldest first: what a
     * stacked redeem decides on. One indexed range read each, sent together (one `$or` of the
     * ranges would be one command, but a scan on the test database).
     */
    async orderJournal(
      applicationId: string,
      orderId: string,
      campaignIds: readonly string[],
    ): Promise<{ stacks: StackRecord[]; cycles: Map<string, RedemptionRecord[]> }> {
      const [stacks, ...lists] = await Promise.all([
        this.stacks(applicationId, orderId),
        ...campaignIds.map((c) => this.cycles(applicationId, c, orderId)),
      ]);
      return { stacks: stacks as StackRecord[], cycles: new Map(campaignIds.map((c, k) => [c, lists[k] as RedemptionRecord[]])) };
    },
    /**
     * Commits a stack attempt (the commit point of several cycles): writes stack record `key` as
     * `stk.state` unless it has a state already or the attempt was abandoned. True when this call wrote it.
     */
    async commitStack(key: string, attempt: string, stk: StackRecordFields): Promise<boolean> {
      return commit(key, attempt, { 'stk.state': { $exists: false } }, { stk, createdAt: new Date() }, true);
    },
    /** Commits a stack's revert attempt: `completed` → `reverted`. True when this call moved it. */
    async commitStackRevert(key: string, attempt: string, revertJobId: string): Promise<boolean> {
      return commit(
        key,
        attempt,
        { 'stk.state': 'completed' },
        { 'stk.state': 'reverted', 'stk.revertJobId': revertJobId, 'stk.revertAttempt': attempt },
        false,
      );
    },
    /** Commits a revert attempt: `completed` → `reverted`. True when this call moved it. */
    async commitRevert(key: string, attempt: string, revertJobId: string): Promise<boolean> {
      return commit(key, attempt, { state: 'completed' }, { state: 'reverted', revertJobId }, false);
    },
    /**
     * Settles attempt `attempt` on cycle `key` for good: abandons it unless it committed. Returns
     * `c` when it had committed, `x` when it is (now) abandoned — it can never commit after this.
     */
    async settle(key: string, attempt: string): Promise<'c' | 'x'> {
      // Refused: the upsert found the cycle with this attempt settled.
      if ((await batch.upsert({ _id: key, [`att.${attempt}`]: { $exists: false } }, { $set: { [`att.${attempt}`]: 'x' } })) !== 'refused')
        return 'x';
      const d = (await col.findOne({ _id: key as never }, { projection: { [`att.${attempt}`]: 1 } })) as RedemptionDoc | null;
      return d?.att?.[attempt] === 'c' ? 'c' : 'x';
    },
    /**
     * Admin listing, newest first (then by `_id`); a page before the cycle `before` when given.
     * An order is found by its cycles' `_id` ranges, one per campaign of `order.campaignIds` (an
     * indexed seek each, on the shard that holds it); orders by the beginning of their id through
     * the `{application, orderId}` index (its matches sorted newest first: the cost grows with the
     * prefix's matches); a time range and a state narrow any listing.
     */
    async list(
      applicationId: string,
      q: {
        customerId?: string;
        campaignId?: string;
        order?: { orderId: string; campaignIds: string[] };
        /** Orders whose id begins with it (the `{application, orderId}` index). */
        orderPrefix?: string;
        state?: RedemptionRecord['state'];
        from?: Date;
        to?: Date;
        before?: { at: Date; id: string };
        limit: number;
      },
    ): Promise<RedemptionRecord[]> {
      const cycles = (campaignId: string) => {
        const prefix = `${campaignId}:${orderRef(q.order!.orderId)}:`;
        return { _id: { $gt: prefix, $lt: `${prefix}~` } };
      };
      const and: Record<string, unknown>[] = [];
      if (q.order) and.push({ $or: q.order.campaignIds.map(cycles) }, { orderId: q.order.orderId });
      if (q.before) and.push({ $or: [{ createdAt: { $lt: q.before.at } }, { createdAt: q.before.at, _id: { $lt: q.before.id } }] });
      const filter = {
        application: applicationId,
        state: q.state ?? { $exists: true },
        ...(q.customerId ? { customer: q.customerId } : {}),
        ...(q.campaignId ? { campaign: q.campaignId } : {}),
        // Every string that begins with the prefix sorts from it up to it followed by the highest code point.
        ...(q.orderPrefix !== undefined ? { orderId: { $gte: q.orderPrefix, $lt: `${q.orderPrefix}\u{10FFFF}` } } : {}),
        ...(q.from || q.to ? { createdAt: { ...(q.from ? { $gte: q.from } : {}), ...(q.to ? { $lt: q.to } : {}) } } : {}),
        ...(and.length ? { $and: and } : {}),
      };
      const ds = await Redemption.find(filter).sort({ createdAt: -1, _id: -1 }).limit(q.limit).lean<RedemptionDoc[]>();
      return ds.map(toRecord);
    },
    /**
     * A page of a campaign's journal in `_id` order, after `after` (null: from the start): its cycles
     * and the placeholders of abandoned attempts (no `state`). The verifier's read — one indexed
     * range read per page, nothing held between pages. `<campaign>;` bounds every key that starts
     * `<campaign>:`, whatever the order ids hold.
     */
    async campaignPage(campaignId: string, after: string | null, limit: number): Promise<JournalRow[]> {
      const ds = await col
        .find(
          { _id: { $gt: (after ?? `${campaignId}:`) as never, $lt: `${campaignId};` as never } },
          { projection: JOURNAL_ROW, sort: { _id: 1 }, limit },
        )
        .toArray();
      return ds as unknown as JournalRow[];
    },
    /**
     * How many of a campaign's cycles are in each state: one pass over its `_id` range (the
     * campaign's own range, on the shards that hold it), so the cost grows with the campaign's
     * redemptions — an admin read, never on a client request.
     */
    async countByState(campaignId: string): Promise<Partial<Record<RedemptionRecord['state'], number>>> {
      const rows = await col
        .aggregate<{ _id: RedemptionRecord['state']; n: number }>([
          { $match: { _id: { $gt: `${campaignId}:`, $lt: `${campaignId}:~` }, state: { $exists: true } } },
          { $group: { _id: '$state', n: { $sum: 1 } } },
        ])
        .toArray();
      return Object.fromEntries(rows.map((r) => [r._id, r.n]));
    },
  };
}
