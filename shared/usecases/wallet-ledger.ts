/**
 * Posting one ledger entry to a wallet balance, exactly once, without transactions, in three
 * round trips: read the balance, write the entry at its slot, move the balance — two when this
 * process made the balance's last move: it remembers the state that move left and writes on it
 * without reading (`knownState`). A memory gone stale (another process moved the balance since)
 * collides at its slot — every slot below the version holds its entry — and the balance is read
 * then; a refusal, which takes no slot, is only ever decided on a read.
 *
 * The balance carries a `version`; the ledger entry that moves it from v to v + 1 holds the
 * unique slot `<balance>:<v>` (its `_id`) and records its decision (before, after). So:
 *  - a re-run of the same operation (same txnId, unique per customer) collides with its own entry and
 *    returns its recorded outcome, applying it first if the balance has not moved yet;
 *  - a crash after the entry was written but before the balance moved leaves an entry at the
 *    balance's current slot; the next write there — of this operation or of the customer's next
 *    one — collides with it and rolls it forward with its recorded `after` (the version guard
 *    applies it once);
 *  - two runs at once (a lost BullMQ lock) race on the unique slot: one wins, the other re-reads.
 * An entry at slot v is applied exactly when the balance's version is past v.
 * Invariant: balance.points == sum of the applied entries' moves (after - before); it never goes below 0.
 *
 * Expiring and pending points (docs/wallets.md, shared/domain/point-buckets.ts): the balance also
 * holds its buckets, and every entry of a balance that has any records the buckets after it
 * (`buckets`), so rolling an entry forward restores them exactly too. Time moves a balance by
 * entries of their own — `available` (a pending credit becomes spendable) and `expired` — posted
 * in the same way before any operation on the balance (so an operation never sees points that
 * should have expired) and by the sweep's settle jobs (shared/usecases/settle-wallet.usecase.ts).
 * Their txnIds derive from the bucket, so a transition posts once whatever runs it.
 */
import type { Config } from '../config.js';
import { failpoint } from './failpoint.js';
import { balanceIdOf, type BalanceRecord, type WalletBalanceRepository } from '../data/wallet-balance.repository.js';
import {
  refusedIdOf,
  slotOf,
  voidIdOf,
  type StoredEntry,
  type WalletTransactionRepository,
} from '../data/wallet-transaction.repository.js';
import {
  applyTransition,
  cancelPending,
  credit,
  debit,
  dueTransition,
  pendingBucket,
  transitionTxnId,
  type Bucket,
  type CreditRules,
  type Transition,
} from '../domain/point-buckets.js';
import { capByPeriods, releasePeriods, type EarnedInPeriod, type RuleEarning } from '../domain/earning.js';
import {
  earn,
  reassess,
  reassessTxnId,
  release,
  tierDue,
  type TierContext,
  type TierCounted,
  type TierRecord,
  type TierState,
} from '../domain/tiers.js';

export interface LedgerDeps {
  repos: { walletBalances: WalletBalanceRepository; walletTransactions: WalletTransactionRepository };
  /** For the crash tests' failpoints (WORKER_FAILPOINT); absent: none. */
  config?: Pick<Config, 'workerFailpoint'>;
  /** The clock transitions are due by (a test clock in tests: shared/services.ts). */
  now: () => Date;
}

/** An entry posted (or found posted) and its outcome. */
export interface Posting {
  input: PostEntryInput;
  result: PostEntryResult;
}

/** What the entry records: a credit or debit of an operation, or a transition time made. */
export type EntryType = 'credit' | 'debit' | 'available' | 'expired' | 'tier';

export interface PostEntryInput {
  applicationId: string;
  customerId: string;
  walletDbId: string;
  txnId: string;
  type: 'credit' | 'debit';
  /** Hundredths of a point, > 0. */
  points: number;
  description: string;
  origin: 'api' | 'admin' | 'cashback' | 'cashback_revert' | 'order' | 'order_return';
  /** Debit at most the balance instead of refusing (taking back a cashback already spent). */
  clampToBalance?: boolean;
  /** A credit's rules (its wallet's expiry and pending settings); absent: spendable at once, never expires. */
  rules?: CreditRules;
  /** A debit taking back the credit `takesBack`: while that credit is pending, it is cancelled instead (the spendable points do not move). */
  takesBack?: string;
  /**
   * A credit earned by an order (shared/usecases/order-report.usecase.ts): what each earning rule
   * gives it before its period cap. The caps are applied here, on the counters of the balance at
   * the entry's slot — so the credit is what they leave (maybe 0: an entry of 0 points records the
   * decision) and `points` is ignored.
   */
  earning?: { timezone: string; rules: RuleEarning[] };
  /** A debit taking back an order's earning: what that earning counted toward its rules' caps, given back. */
  releases?: EarnedInPeriod[];
  /**
   * The wallet's tiers (docs/wallets.md "Tiers"), null when it has none: a credit counts toward the
   * customer's tier, and a re-assessment due is posted before the entry. Required so that no
   * caller forgets it (null on a balance with a tier clears it at its next re-assessment).
   */
  tiers: TierContext | null;
  /** A debit taking back a credit: what that credit counted toward the tier (its entry's `tierCounted`), given back. */
  tierRelease?: TierCounted;
}

export type PostEntryResult =
  /**
   * `written`: this call wrote the entry (false: it was there already — a re-run or a replay).
   * `bucket`: set when the entry moved pending points (a pending credit, or its cancellation), not spendable ones: `before` = `after`.
   * `bucketed`: the balance has (or had) buckets or a tier, so transitions may have been posted before the entry (by this txnId: `trigger`).
   */
  | {
      state: 'applied';
      before: number;
      after: number;
      points: number;
      written: boolean;
      bucket?: BucketMove;
      bucketed?: true;
      /** The customer's tier changed with this entry (docs/wallets.md "Tiers"), and until when the new one is kept at least. */
      tierChange?: { from: string | null; to: string | null; until: Date | null };
    }
  | { state: 'refused'; balance: number; points: number }
  /** The txnId was voided (see {@link voidEntry}): nothing was posted, nothing ever will be. */
  | { state: 'void' };

/** The bucket an entry concerns and what happened to it (the entry's `bucket`: wallet-transaction.schema.ts). */
export interface BucketMove {
  move: 'pending' | 'cancelled' | 'available' | 'expired';
  availableAt: Date | null;
  expiresAt: Date | null;
}

const MAX_ROUNDS = 50;

/** The entry to write at the balance's current slot (or as refused). */
interface Decided {
  txnId: string;
  type: EntryType;
  points: number;
  after: number;
  refuse: boolean;
  /** The buckets after it; undefined when the balance has none before or after. */
  buckets: Bucket[] | undefined;
  bucket: BucketMove | null;
  description: string;
  origin: PostEntryInput['origin'] | 'time';
  trigger: string | null;
  /** The balance's period counters after it, and what it counted or gave back (an order's earning under caps, its return). */
  periodCounters?: EarnedInPeriod[];
  periodCounted?: EarnedInPeriod[];
  /** The balance's tier after it (undefined: the balance has none; null: cleared), what it counted, the level change. */
  tier?: TierRecord | null;
  tierCounted?: TierCounted;
  tierChange?: { from: string | null; to: string | null };
}

/** The counters an order's earning (or its return) leaves on `balance`, and what it counted: nothing when no cap is concerned. */
function periodMove(input: PostEntryInput, balance: BalanceRecord, now: Date) {
  if (input.type === 'credit' && input.earning?.rules.some((r) => r.cap)) {
    const capped = capByPeriods(input.earning.rules, balance.periodCounters, now, input.earning.timezone);
    return { points: capped.hundredths, periodCounters: capped.counters, periodCounted: capped.counted };
  }
  if (input.type === 'debit' && input.releases?.length) {
    const back = releasePeriods(balance.periodCounters, input.releases);
    return { periodCounters: back.counters, periodCounted: back.released };
  }
  return {};
}

/** A tier state as stored: with when its re-assessment is due. */
const tierRecord = (ctx: TierContext | null, state: TierState): TierRecord => ({ ...state, due: tierDue(ctx, state) });

/** The tier fields of an entry that leaves the tier as it is (every entry of a balance with one records it). */
const sameTier = (balance: BalanceRecord) => (balance.tier ? { tier: balance.tier } : {});

/** The tier fields of an entry whose tier moved from `balance`'s to `after` (null: cleared). */
function tierFields(balance: BalanceRecord, after: TierRecord | null, counted?: TierCounted) {
  // A first credit starts from the lowest level (a new state holds it).
  const from = balance.tier?.level ?? after?.held ?? null;
  const to = after?.level ?? null;
  return { tier: after, ...(counted ? { tierCounted: counted } : {}), ...(from !== to ? { tierChange: { from, to } } : {}) };
}

/**
 * The tier after an operation's entry that moves `points` (a credit counts toward the tier; a debit
 * taking back a credit gives back what it counted). Refused entries do not move it.
 */
function tierMove(input: PostEntryInput, balance: BalanceRecord, type: 'credit' | 'debit', points: number, now: Date) {
  const ctx = input.tiers;
  if (ctx && type === 'credit' && points > 0) {
    const moved = earn(ctx, balance.tier, points, now);
    return tierFields(balance, tierRecord(ctx, moved.state), moved.counted);
  }
  if (ctx && type === 'debit' && input.tierRelease && balance.tier) {
    const back = release(ctx, balance.tier, input.tierRelease, input.points, now);
    return tierFields(balance, tierRecord(ctx, back.state), back.released);
  }
  return sameTier(balance);
}

/** Once a balance has had a bucket, every entry records its buckets (maybe none): see `bucketed` in {@link PostEntryResult}. */
const bucketsAfter = (balance: BalanceRecord, after: Bucket[]) => (balance.bucketed || after.length > 0 ? after : undefined);

function decideOperation(input: PostEntryInput, balance: BalanceRecord, now: Date): Decided {
  const { points: capped, ...counters } = periodMove(input, balance, now);
  const base = {
    txnId: input.txnId,
    description: input.description,
    origin: input.origin,
    trigger: null,
    ...counters,
    ...sameTier(balance),
  };
  if (capped === 0)
    // Every point this order would earn is over a cap: an entry of nothing, recording the decision.
    return {
      ...base,
      type: 'credit',
      points: 0,
      after: balance.points,
      refuse: false,
      buckets: bucketsAfter(balance, balance.buckets),
      bucket: null,
    };
  if (capped !== undefined) input = { ...input, points: capped };
  const pendingOne = input.takesBack ? pendingBucket(balance, input.takesBack) : null;
  if (input.type === 'debit' && pendingOne) {
    // The whole credit still pending (a revert, a return), or part of it (a partial return).
    const part = Math.min(input.points, pendingOne.points);
    const state = cancelPending(balance, pendingOne.id, part);
    return {
      ...base,
      ...tierMove(input, balance, 'debit', part, now),
      type: 'debit',
      points: part,
      after: balance.points,
      refuse: false,
      buckets: bucketsAfter(balance, state.buckets),
      bucket: { move: 'cancelled', availableAt: pendingOne.availableAt, expiresAt: pendingOne.expiresAt },
    };
  }
  if (input.type === 'credit') {
    const state = input.rules
      ? credit(balance, { id: input.txnId, points: input.points, now, rules: input.rules, version: balance.version })
      : { points: balance.points + input.points, buckets: balance.buckets };
    const bucket = state.points === balance.points ? state.buckets.find((b) => b.id === input.txnId) : undefined;
    return {
      ...base,
      ...tierMove(input, balance, 'credit', input.points, now),
      type: 'credit',
      points: input.points,
      after: state.points,
      refuse: false,
      buckets: bucketsAfter(balance, state.buckets),
      bucket: bucket ? { move: 'pending', availableAt: bucket.availableAt, expiresAt: bucket.expiresAt } : null,
    };
  }
  let points = input.points;
  const short = points > balance.points;
  if (short && input.clampToBalance) points = balance.points;
  const refuse = short && !input.clampToBalance;
  const state = refuse ? balance : debit(balance, points);
  return {
    ...base,
    ...(refuse ? {} : tierMove(input, balance, 'debit', points, now)),
    type: 'debit',
    points,
    after: state.points,
    refuse,
    buckets: bucketsAfter(balance, state.buckets),
    bucket: null,
  };
}

function decideTransition(input: Pick<PostEntryInput, 'walletDbId' | 'txnId'>, balance: BalanceRecord, t: Transition): Decided {
  const state = applyTransition(balance, t, balance.version);
  return {
    txnId: transitionTxnId(input.walletDbId, t),
    type: t.kind,
    points: t.bucket.points,
    after: state.points,
    refuse: false,
    buckets: state.buckets,
    bucket: { move: t.kind, availableAt: t.bucket.availableAt, expiresAt: t.bucket.expiresAt },
    description: t.kind === 'expired' ? 'points expired' : 'pending points became available',
    origin: 'time',
    trigger: input.txnId,
    ...sameTier(balance),
  };
}

/**
 * A re-assessment of the customer's tier at the end of its period (docs/wallets.md "Tiers"): an
 * entry of no points, `tier:<wallet>:<period end>`, so it posts once whatever runs it (the sweep's
 * settle job or the customer's next operation).
 */
function decideReassessment(
  input: Pick<PostEntryInput, 'walletDbId' | 'txnId' | 'tiers'>,
  balance: BalanceRecord & { tier: TierRecord },
): Decided {
  const next = reassess(input.tiers, balance.tier);
  return {
    txnId: reassessTxnId(input.walletDbId, balance.tier.until),
    type: 'tier',
    points: 0,
    after: balance.points,
    refuse: false,
    buckets: bucketsAfter(balance, balance.buckets),
    bucket: null,
    description: 'tier re-assessed',
    origin: 'time',
    trigger: input.txnId,
    ...tierFields(balance, next ? tierRecord(input.tiers, next) : null),
  };
}

/** What time has made due on the balance by `now`, soonest first: a bucket's transition or the tier's re-assessment. */
function dueChange(input: Pick<PostEntryInput, 'walletDbId' | 'txnId' | 'tiers'>, balance: BalanceRecord, now: Date): Decided | null {
  const t = dueTransition(balance, now);
  const tierAt = balance.tier?.due?.getTime() ?? Infinity;
  if (balance.tier && tierAt <= now.getTime() && (!t || tierAt < t.at.getTime()))
    return decideReassessment(input, balance as BalanceRecord & { tier: TierRecord });
  return t ? decideTransition(input, balance, t) : null;
}

/**
 * The stored entry of a decision on `at` (the balance it applies to): at its slot, or as refused.
 * Dated `createdAt`: after the balance's last move ({@link datedAfter}).
 */
function entryAt(key: Pick<PostEntryInput, 'applicationId' | 'customerId' | 'walletDbId'>, at: BalanceRecord, e: Decided, createdAt: Date) {
  return {
    applicationId: key.applicationId,
    customerId: key.customerId,
    walletDbId: key.walletDbId,
    txnId: e.txnId,
    type: e.type,
    points: e.points,
    description: e.description,
    origin: e.origin,
    slot: e.refuse ? refusedIdOf(key.applicationId, key.customerId, e.txnId) : slotOf(at.id, at.version),
    seq: e.refuse ? null : at.version,
    before: at.points,
    after: e.after,
    stored: e.refuse ? ('refused' as const) : ('posted' as const),
    buckets: e.buckets,
    bucket: e.bucket,
    trigger: e.trigger,
    ...(e.periodCounters ? { periodCounters: e.periodCounters, periodCounted: e.periodCounted } : {}),
    ...(e.tier !== undefined ? { tier: e.tier } : {}),
    ...(e.tierCounted ? { tierCounted: e.tierCounted } : {}),
    ...(e.tierChange ? { tierChange: e.tierChange } : {}),
    createdAt,
  };
}

/**
 * Dated after the balance's last move, so a ledger read oldest first (createdAt) is in slot order
 * even for entries posted in the same millisecond, or by a process whose clock is behind.
 */
const datedAfter = (balance: BalanceRecord) => new Date(Math.max(Date.now(), balance.updatedAt.getTime() + 1));

type Written =
  | { status: 'written' }
  /** Written on what this process remembered of the balance, and it collided: read it and decide again. */
  | { status: 'stale' }
  /** This txnId's entry was there already. */
  | { status: 'mine'; entry: StoredEntry }
  /** Another entry held the slot: rolled forward; decide again. */
  | { status: 'taken' };

/** A failpoint of the crash tests (WORKER_FAILPOINT), where the deps carry the config. */
const crashTest = (config: LedgerDeps['config'], at: 'ledger-after-entry' | 'ledger-after-move') => {
  if (config) failpoint({ config }, at);
};

/**
 * The balance as moving it from `b` by `e` left it — exactly what reading it back would return
 * (applyAtVersion's fields; `updatedAt` the one it wrote).
 */
function movedBy(b: BalanceRecord, e: Decided, updatedAt: Date): BalanceRecord {
  const { tier: _tier, ...rest } = b;
  const tier = e.tier === undefined ? b.tier : (e.tier ?? undefined);
  return {
    ...rest,
    points: e.after,
    version: b.version + 1,
    ...(e.buckets ? { buckets: e.buckets, bucketed: true } : {}),
    ...(e.periodCounters ? { periodCounters: e.periodCounters } : {}),
    ...(tier ? { tier } : {}),
    updatedAt,
  };
}

/**
 * Writes `e` at the balance's current slot (or as refused) and applies it; on a collision, rolls
 * forward what holds the slot. `remembered`: `balance` is what this process's last move left, not a
 * read — a collision then only says it is stale (another process moved it): nothing is rolled
 * forward on it, the caller reads and decides again.
 */
async function writeAt(
  deps: LedgerDeps,
  key: Pick<PostEntryInput, 'applicationId' | 'customerId' | 'walletDbId'>,
  balance: BalanceRecord,
  e: Decided,
  remembered = false,
): Promise<Written> {
  const { walletBalances } = deps.repos;
  try {
    const w = await writeAtSlot(deps, key, balance, e, remembered);
    if (w.status !== 'written') walletBalances.forget(balance.id);
    return w;
  } catch (err) {
    walletBalances.forget(balance.id); // the move may or may not have happened
    throw err;
  }
}

async function writeAtSlot(
  { repos, config }: LedgerDeps,
  key: Pick<PostEntryInput, 'applicationId' | 'customerId' | 'walletDbId'>,
  balance: BalanceRecord,
  e: Decided,
  remembered: boolean,
): Promise<Written> {
  const entry = entryAt(key, balance, e, datedAfter(balance));
  const written = await repos.walletTransactions.insert(entry);
  if (written) {
    if (!e.refuse) {
      if (remembered) crashTest(config, 'ledger-after-entry');
      // Written at slot `version`: the balance was at that version (a later one would have an
      // entry there), so the move below leaves it exactly as remembered.
      const at = await repos.walletBalances.applyAtVersion(balance.id, balance.version, e.after, e.buckets, 1, e.periodCounters, e.tier);
      repos.walletBalances.remember(movedBy(balance, e, at));
      if (remembered) {
        repos.walletBalances.memoryHeld(true);
        crashTest(config, 'ledger-after-move');
      }
    }
    return { status: 'written' };
  }
  if (remembered) {
    repos.walletBalances.memoryHeld(false);
    return { status: 'stale' };
  }
  // Collided: with this txnId's own entry (a re-run), or with another entry at the slot.
  const { atSlot, mine } = await repos.walletTransactions.findSlotOrTxn(key.applicationId, key.customerId, entry.slot, e.txnId);
  if (mine) {
    // Ours; at the current slot it may not be applied yet: roll it forward (a no-op if it was).
    if (mine.stored === 'posted' && mine.seq === balance.version)
      await repos.walletBalances.applyAtVersion(
        balance.id,
        mine.seq,
        mine.after!,
        mine.buckets ?? undefined,
        1,
        mine.periodCounters,
        mine.tier,
      );
    return { status: 'mine', entry: mine };
  }
  // Another operation's entry holds this slot (its run crashed before moving the balance, or it
  // is being written right now): roll it forward, then decide again on the new balance.
  if (atSlot?.seq === balance.version)
    await repos.walletBalances.applyAtVersion(
      balance.id,
      balance.version,
      atSlot.after!,
      atSlot.buckets ?? undefined,
      1,
      atSlot.periodCounters,
      atSlot.tier,
    );
  return { status: 'taken' };
}

/**
 * Posts an operation's entry exactly once, after the transitions due by now (their entries name
 * the operation's txnId as `trigger`: its events read them back).
 */
export async function postLedgerEntry(deps: LedgerDeps, input: PostEntryInput): Promise<PostEntryResult> {
  const { applicationId } = input;
  const { walletBalances } = deps.repos;
  const id = balanceIdOf(applicationId, input.customerId, input.walletDbId);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    // What this process's last move left, else a read: a stale memory collides at its slot.
    const remembered = walletBalances.knownState(id);
    const balance = remembered ?? (await walletBalances.getOrCreate(applicationId, input.customerId, input.walletDbId));
    const due = dueChange(input, balance, deps.now());
    if (due) {
      await writeAt(deps, input, balance, due, !!remembered);
      continue;
    }
    const e = decideOperation(input, balance, deps.now());
    if (e.refuse && remembered) {
      // A refusal takes no slot, so nothing would catch a stale memory: it is decided on a read.
      walletBalances.forget(id);
      continue;
    }
    const w = await writeAt(deps, input, balance, e, !!remembered);
    if (w.status === 'taken' || w.status === 'stale') continue;
    if (w.status === 'written') {
      if (e.refuse) return { state: 'refused', balance: balance.points, points: e.points };
      return { state: 'applied', before: balance.points, after: e.after, points: e.points, written: true, ...extras(e) };
    }
    const mine = w.entry;
    if (mine.stored === 'void') return { state: 'void' };
    if (mine.stored === 'refused') return { state: 'refused', balance: mine.before ?? 0, points: mine.points };
    return {
      state: 'applied',
      before: mine.before!,
      after: mine.after!,
      points: mine.points,
      written: false,
      ...extras(mine),
    };
  }
  throw new Error(`wallet ledger: no progress after ${MAX_ROUNDS} rounds for ${input.txnId}`);
}

const extras = (e: Pick<Decided, 'bucket' | 'buckets' | 'tier' | 'tierChange'> | StoredEntry) => ({
  ...(e.bucket ? { bucket: e.bucket } : {}),
  ...(e.buckets || e.tier ? { bucketed: true as const } : {}),
  ...(e.tierChange ? { tierChange: { ...e.tierChange, until: e.tier?.until ?? null } } : {}),
});

/**
 * Posts every transition of one balance due by now (the sweep's settle job): `trigger` names the
 * job in their entries. Returns how many this call wrote. A balance with nothing due is not written.
 */
export async function settleBalance(
  deps: LedgerDeps,
  key: { applicationId: string; customerId: string; walletDbId: string; trigger: string; tiers: TierContext | null },
): Promise<number> {
  let written = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const balance = await deps.repos.walletBalances.findById(balanceIdOf(key.applicationId, key.customerId, key.walletDbId));
    if (!balance) return written;
    // Every transition due, decided in order, each on the balance as the ones before leave it:
    // exactly the entries posting them one at a time would write (same txnIds, slots and buckets).
    const now = deps.now();
    const run: { e: Decided; at: BalanceRecord }[] = [];
    let state = balance;
    const by = { walletDbId: key.walletDbId, txnId: key.trigger, tiers: key.tiers };
    for (let e = dueChange(by, state, now); e && run.length < SETTLE_RUN; e = dueChange(by, state, now)) {
      run.push({ e, at: state });
      const tier = e.tier === undefined ? state.tier : (e.tier ?? undefined);
      state = { ...state, points: e.after, buckets: e.buckets ?? [], version: state.version + 1, bucketed: e.buckets !== undefined, tier };
    }
    if (run.length === 0) return written;
    // The first transition, decided above, written alone (its collision rolls forward what holds the slot).
    const one = async () => {
      if ((await writeAt(deps, key, balance, run[0]!.e)).status === 'written') written++;
    };
    if (run.length === 1) {
      await one();
      continue;
    }
    // Several: their entries in one ordered insert (slots v, v+1, …) and the balance moved past the
    // last one written in one guarded update — two round trips instead of three per bucket. A
    // collision stops the insert at the first slot taken: what was written is a run from slot v,
    // applied here; when even the first slot is taken, the one-at-a-time path rolls forward what
    // holds it (a crashed run's entry, or a concurrent run's) and the next round goes on.
    deps.repos.walletBalances.forget(balance.id); // moved by a run below, not remembered
    const dated = datedAfter(balance).getTime();
    const inserted = await deps.repos.walletTransactions.insertRun(run.map(({ e, at }, i) => entryAt(key, at, e, new Date(dated + i))));
    if (inserted > 0) {
      const last = run[inserted - 1]!.e;
      await deps.repos.walletBalances.applyAtVersion(balance.id, balance.version, last.after, last.buckets, inserted, undefined, last.tier);
      written += inserted;
    } else await one(); // the first slot is taken: roll forward what holds it (or find it posted)
  }
  return written; // more due than one run posts: the sweep finds the balance again
}

/** How many transitions a settle posts in one insert. */
const SETTLE_RUN = 100;

/**
 * Makes sure `txnId` never posts: records a void entry under it unless an entry exists already.
 * True when it voided (nothing had been posted); false when an entry was there first.
 */
export async function voidEntry(
  { repos }: Pick<LedgerDeps, 'repos'>,
  input: Omit<PostEntryInput, 'type' | 'points' | 'tiers'>,
): Promise<boolean> {
  return repos.walletTransactions.insert({
    applicationId: input.applicationId,
    customerId: input.customerId,
    walletDbId: input.walletDbId,
    txnId: input.txnId,
    type: 'credit',
    description: input.description,
    origin: input.origin,
    points: 0,
    slot: voidIdOf(input.applicationId, input.customerId, input.txnId),
    seq: null,
    before: null,
    after: null,
    stored: 'void',
  });
}

/**
 * The first step of taking back the credit `input.txnId` (a cashback's revert, an order's return):
 * voids it if it was never posted, so that a late credit (a re-run, a report that comes after) can
 * never post it, and answers null; else answers the credit as posted, for the caller's debit of what
 * it credited — null too when it was refused or voided before. Idempotent.
 */
export async function creditToTakeBack(
  deps: Pick<LedgerDeps, 'repos'>,
  input: Omit<PostEntryInput, 'type' | 'points' | 'tiers'>,
): Promise<StoredEntry | null> {
  if (await voidEntry(deps, input)) return null;
  const credit = await deps.repos.walletTransactions.findByTxnId(input.applicationId, input.customerId, input.txnId);
  return credit && credit.stored !== 'refused' && credit.stored !== 'void' ? credit : null;
}
