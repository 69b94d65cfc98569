/**
 * Expiring and pending points (docs/wallets.md): the pure rules. A wallet balance holds its
 * spendable `points` and the **buckets** of the credits that expire or are still pending; the
 * worker persists what these functions decide (shared/usecases/wallet-ledger.ts).
 *
 * Invariants (in hundredths of a point):
 *  - `points` = the points of the available buckets + the unbucketed points (credits that never
 *    expire), so `points` ≥ the available buckets' sum;
 *  - a pending bucket (`availableAt` set) is not in `points`;
 *  - an available bucket has an `expiresAt` (a credit that never expires needs no bucket);
 *  - every bucket holds > 0 points.
 * Debits consume the available buckets that expire first, then the unbucketed points.
 */
import { localParts, zonedLocalToUtc } from './periods.js';

/** When a wallet's credited points expire (null: never). Applies to credits made after it is set. */
export type ExpiryRule =
  { kind: 'after'; amount: number; unit: 'days' | 'months' } | { kind: 'end_of'; period: 'month' | 'quarter' | 'year' } | null;

/** How long credits stay pending before they can be spent (null: spendable at once). */
/** `until`: an ISO 8601 instant (kept as text: rules travel in job payloads as JSON). */
export type PendingRule = { days: number } | { until: string } | null;

export interface Bucket {
  /** Unique within the balance: the pending credit's txnId, or `e<expiresAt ms>.<version>` for merged available credits. */
  id: string;
  /** Hundredths of a point, > 0. */
  points: number;
  /** When a pending bucket becomes spendable; null once it is. */
  availableAt: Date | null;
  /** When its remaining points expire; null: never (only while pending: it leaves the buckets when it becomes available). */
  expiresAt: Date | null;
}

export interface BucketState {
  /** Spendable points. */
  points: number;
  buckets: Bucket[];
}

/** The rules a credit is made under: its wallet's settings (a campaign's cashback may bring its own pending rule). */
export interface CreditRules {
  expiry: ExpiryRule;
  pending: PendingRule;
  /** The wallet's IANA timezone: calendar expiries and "N days/months later" are read on its wall clock. */
  timezone: string;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const localIso = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) =>
  `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}`;
const daysInMonth = (y: number, mo: number) => new Date(Date.UTC(y, mo, 0)).getUTCDate();

/**
 * The instant `amount` calendar days or months after `from`, on the wall clock of `tz` (a day is a
 * calendar day, 23 or 25 hours across a DST change; a month keeps the day of the month, clamped to
 * the month's last day: 31 January + 1 month = 28/29 February).
 */
export function addCalendar(from: Date, amount: number, unit: 'days' | 'months', tz: string): Date {
  const p = localParts(from, tz);
  let { year, month, day } = p;
  if (unit === 'days') {
    const d = new Date(Date.UTC(year, month - 1, day + amount));
    [year, month, day] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
  } else {
    const m = month - 1 + amount;
    year += Math.floor(m / 12);
    month = (((m % 12) + 12) % 12) + 1;
    day = Math.min(day, daysInMonth(year, month));
  }
  return zonedLocalToUtc(localIso(year, month, day, p.hour, p.minute, p.second), tz);
}

/** The first instant after the calendar month, quarter or year in which `at` falls, in `tz` (local midnight). */
export function endOfPeriod(at: Date, period: 'month' | 'quarter' | 'year', tz: string): Date {
  const p = localParts(at, tz);
  const span = period === 'month' ? 1 : period === 'quarter' ? 3 : 12;
  const firstMonth = period === 'year' ? 1 : Math.floor((p.month - 1) / span) * span + 1;
  const next = firstMonth - 1 + span; // 0-based month index of the next period's first month
  return zonedLocalToUtc(localIso(p.year + Math.floor(next / 12), (next % 12) + 1, 1), tz);
}

/** When points that become spendable at `availableAt` expire under `rule`. */
export function expiryOf(availableAt: Date, rule: ExpiryRule, tz: string): Date | null {
  if (!rule) return null;
  return rule.kind === 'after' ? addCalendar(availableAt, rule.amount, rule.unit, tz) : endOfPeriod(availableAt, rule.period, tz);
}

/** When a credit made at `now` becomes spendable (null: at once). */
export function availableAtOf(now: Date, rule: PendingRule, tz: string): Date | null {
  if (!rule) return null;
  const at = 'days' in rule ? addCalendar(now, rule.days, 'days', tz) : new Date(rule.until);
  return at.getTime() > now.getTime() ? at : null;
}

const sum = (bs: readonly Bucket[]) => bs.reduce((s, b) => s + b.points, 0);
const byExpiry = (a: Bucket, b: Bucket) =>
  (a.expiresAt?.getTime() ?? Infinity) - (b.expiresAt?.getTime() ?? Infinity) || (a.id < b.id ? -1 : 1);

/** Spendable points held by available buckets (the rest of `points` never expires). */
export const expiringPoints = (s: BucketState) => sum(s.buckets.filter((b) => !b.availableAt));
/** Points credited but not spendable yet. */
export const pendingPoints = (s: BucketState) => sum(s.buckets.filter((b) => b.availableAt));

/** Adds `points` of available credit expiring at `expiresAt` (null: never) — merged with a bucket of the same instant. */
function addAvailable(s: BucketState, points: number, expiresAt: Date | null, version: number): BucketState {
  if (!expiresAt) return { points: s.points + points, buckets: s.buckets };
  const same = s.buckets.find((b) => !b.availableAt && b.expiresAt!.getTime() === expiresAt.getTime());
  const buckets = same
    ? s.buckets.map((b) => (b === same ? { ...b, points: b.points + points } : b))
    : [...s.buckets, { id: `e${expiresAt.getTime()}.${version}`, points, availableAt: null, expiresAt }];
  return { points: s.points + points, buckets: buckets.sort(byExpiry) };
}

/**
 * A credit of `points` made at `now`: spendable at once (into a bucket when it expires), or pending
 * until its rule's instant (a bucket `id`, which a revert can cancel). `version`: the balance's, to
 * name a new merged bucket uniquely.
 */
export function credit(s: BucketState, c: { id: string; points: number; now: Date; rules: CreditRules; version: number }): BucketState {
  const availableAt = availableAtOf(c.now, c.rules.pending, c.rules.timezone);
  const expiresAt = expiryOf(availableAt ?? c.now, c.rules.expiry, c.rules.timezone);
  if (!availableAt) return addAvailable(s, c.points, expiresAt, c.version);
  return { points: s.points, buckets: [...s.buckets, { id: c.id, points: c.points, availableAt, expiresAt }].sort(byExpiry) };
}

/** A debit of `points` (≤ `s.points`): from the available buckets that expire first, then the points that never expire. */
export function debit(s: BucketState, points: number): BucketState {
  let left = points;
  const buckets: Bucket[] = [];
  for (const b of [...s.buckets].sort(byExpiry)) {
    if (b.availableAt || left === 0) {
      buckets.push(b);
      continue;
    }
    const take = Math.min(left, b.points);
    left -= take;
    if (b.points > take) buckets.push({ ...b, points: b.points - take });
  }
  return { points: s.points - points, buckets };
}

/** The pending bucket `id`, if it is still pending. */
export const pendingBucket = (s: BucketState, id: string) => s.buckets.find((b) => b.id === id && b.availableAt) ?? null;

/**
 * Cancels the pending bucket `id` (a revert before the points became spendable), or `part` of it
 * (a partial return): `points` does not move.
 */
export const cancelPending = (s: BucketState, id: string, part?: number): BucketState => ({
  points: s.points,
  buckets: s.buckets.flatMap((b) =>
    b.id === id && b.availableAt ? (part !== undefined && part < b.points ? [{ ...b, points: b.points - part }] : []) : [b],
  ),
});

/** A change that time makes to a balance: a pending bucket becomes spendable, or an available one expires. */
export type Transition = { kind: 'available' | 'expired'; bucket: Bucket; at: Date };

/** When the next transition is due (null: none ever, until the next credit). */
export function nextDue(s: BucketState): Date | null {
  let t = Infinity;
  for (const b of s.buckets) t = Math.min(t, (b.availableAt ?? b.expiresAt)!.getTime());
  return t === Infinity ? null : new Date(t);
}

/** The earliest transition due at `now` (null: none). Applying them one at a time, in this order, replays time exactly. */
export function dueTransition(s: BucketState, now: Date): Transition | null {
  const due = nextDue(s);
  if (!due || due.getTime() > now.getTime()) return null;
  const bucket = s.buckets.find((b) => (b.availableAt ?? b.expiresAt)!.getTime() === due.getTime())!;
  return { kind: bucket.availableAt ? 'available' : 'expired', bucket, at: due };
}

/** The balance after a transition, and the points it moved. */
export function applyTransition(s: BucketState, t: Transition, version: number): BucketState {
  const rest = { points: s.points, buckets: s.buckets.filter((b) => b.id !== t.bucket.id) };
  if (t.kind === 'expired') return { points: s.points - t.bucket.points, buckets: rest.buckets };
  return addAvailable(rest, t.bucket.points, t.bucket.expiresAt, version);
}

/** The deterministic txnId of a transition's ledger entry (one per bucket and kind: posting it twice collides). */
export const transitionTxnId = (walletDbId: string, t: Transition) => `${t.kind}:${walletDbId}:${t.bucket.id}`;

/** The balance as of `now`: every due transition applied, in order (what the next operation will post first). */
export function settledAsOf(s: BucketState, now: Date): BucketState {
  let state = s;
  for (let t = dueTransition(state, now), i = 0; t; t = dueTransition(state, now), i++) state = applyTransition(state, t, -1 - i);
  return state;
}
