/**
 * Tiers of a wallet (issue 42, docs/wallets.md "Tiers"): the pure rules. A customer's tier is a
 * named level reached by the points **earned** (credited, less what returns and reverts take back
 * of them; spending and expiry do not lower it) in a window of months on the wallet's wall clock:
 *  - `calendar`: the current calendar month, quarter or year — assessed at its end;
 *  - `rolling`: the last N calendar months, this one included — assessed at every month end.
 *
 * A level is reached at once (the credit that reaches it upgrades the customer) and kept until the
 * end of the next assessment: at each period end the customer is re-assessed on what the window
 * that just closed holds, which can lower the tier (a downgrade). So a tier reached in 2026 under a
 * yearly calendar is kept through 2027 and re-assessed at its end on 2027's points.
 *
 * State (on the customer's balance, moved by its ledger entries: shared/usecases/wallet-ledger.ts):
 *  - `earned`: hundredths earned per month (`2026-12`), only the months a window still needs;
 *  - `held`: the level the last assessment gave, kept until `until` (the current period's end);
 *  - `level`: the customer's tier now — the higher of `held` and what the window reaches.
 * A re-assessment is due at `until` only while the customer is above the lowest level (below it,
 * nothing can change: {@link tierDue}). Invariant: `level` = {@link levelAt}(state, now) after every entry.
 */
import { endOfPeriod } from './point-buckets.js';
import { periodKeys } from './periods.js';

export const TIER_PERIODS = ['month', 'quarter', 'year'] as const;
export type TierPeriod = (typeof TIER_PERIODS)[number];
/** The longest rolling window, in months. */
export const MAX_ROLLING_MONTHS = 24;

export type TierBasis = { kind: 'calendar'; period: TierPeriod } | { kind: 'rolling'; months: number };

export interface TierLevel {
  name: string;
  /** Hundredths of a point earned in the window to reach it; the first level's is 0. */
  minHundredths: number;
  /** Its earning multiplier in hundredths (150 = 1.5×; shared/domain/earning.ts). */
  multiplier: number;
}

/** A wallet's tiers: levels in ascending order of `minHundredths`, the first at 0. */
export interface TierProgram {
  basis: TierBasis;
  levels: TierLevel[];
}

/** What an entry counted toward the tier: the month and the hundredths (a return gives it back). */
export interface TierCounted {
  month: string;
  hundredths: number;
}

export interface TierState {
  level: string;
  held: string;
  /** The end of the current assessment period (the next re-assessment). */
  until: Date;
  earned: TierCounted[];
}

/** A tier state as stored on a balance and its entries: with the instant its re-assessment is due (null: none needed). */
export type TierRecord = TierState & { due: Date | null };

/** A tier program in force, with the wallet timezone its months are read in. */
export interface TierContext {
  program: TierProgram;
  timezone: string;
}

const monthIndex = (key: string) => Number(key.slice(0, 4)) * 12 + Number(key.slice(5, 7)) - 1;

/** The month (`2026-12`) `at` falls in on the wall clock of `tz`. */
export const monthOf = (at: Date, tz: string) => periodKeys(at, tz).month;

/** The first month of the window that counts at `at` (the window runs from it to `at`'s month). */
function windowStart(basis: TierBasis, at: Date, tz: string): number {
  const m = monthIndex(monthOf(at, tz));
  if (basis.kind === 'rolling') return m - basis.months + 1;
  const span = basis.period === 'month' ? 1 : basis.period === 'quarter' ? 3 : 12;
  return m - (m % span);
}

/** Hundredths earned in the window that counts at `at`. */
export function earnedInWindow(basis: TierBasis, earned: readonly TierCounted[], at: Date, tz: string): number {
  const from = windowStart(basis, at, tz);
  const to = monthIndex(monthOf(at, tz));
  return earned.reduce((n, e) => {
    const i = monthIndex(e.month);
    return i >= from && i <= to ? n + e.hundredths : n;
  }, 0);
}

/** The end of the assessment period `at` falls in: its calendar period's, or (rolling) its month's. */
export const assessmentEnd = (basis: TierBasis, at: Date, tz: string): Date =>
  endOfPeriod(at, basis.kind === 'calendar' ? basis.period : 'month', tz);

const rankOf = (program: TierProgram, name: string) => program.levels.findIndex((l) => l.name === name);
const base = (program: TierProgram) => program.levels[0]!.name;

/** The highest level `hundredths` earned reaches. */
export function levelReached(program: TierProgram, hundredths: number): TierLevel {
  let best = program.levels[0]!;
  for (const l of program.levels) if (hundredths >= l.minHundredths) best = l;
  return best;
}

const higher = (program: TierProgram, a: string, b: string) => (rankOf(program, a) >= rankOf(program, b) ? a : b);

/** The state of a customer who never earned in this program. */
export const emptyTier = (ctx: TierContext, now: Date): TierState => ({
  level: base(ctx.program),
  held: base(ctx.program),
  until: assessmentEnd(ctx.program.basis, now, ctx.timezone),
  earned: [],
});

/** The tier at `now` of a state whose assessment is not due: the held level or what the window reaches, whichever is higher. */
export function levelAt(ctx: TierContext, state: Pick<TierState, 'held' | 'earned'>, now: Date): string {
  const reached = levelReached(ctx.program, earnedInWindow(ctx.program.basis, state.earned, now, ctx.timezone)).name;
  return rankOf(ctx.program, state.held) < 0 ? reached : higher(ctx.program, state.held, reached);
}

/** The months a window can still need from `at` on (older ones are dropped). */
const kept = (basis: TierBasis, earned: readonly TierCounted[], at: Date, tz: string) => {
  const from = windowStart(basis, at, tz);
  return earned.filter((e) => monthIndex(e.month) >= from && e.hundredths > 0);
};

/**
 * When the state's next re-assessment is due: its `until`, while the customer is above the lowest
 * level (or holds one the program no longer has); null when a re-assessment could change nothing.
 */
export function tierDue(ctx: TierContext | null, state: TierState | undefined): Date | null {
  if (!state) return null;
  if (!ctx) return state.until; // the wallet's tiers were removed: a last re-assessment clears them
  return rankOf(ctx.program, state.level) > 0 || rankOf(ctx.program, state.held) > 0 ? state.until : null;
}

/**
 * The re-assessment at `state.until` (it is due): the new held level is what the window that just
 * closed reached; the new period ends at the next assessment. Null: the wallet has no tiers any more.
 */
export function reassess(ctx: TierContext | null, state: TierState): TierState | null {
  if (!ctx) return null;
  const e = state.until;
  const { basis } = ctx.program;
  const held = levelReached(ctx.program, earnedInWindow(basis, state.earned, new Date(e.getTime() - 1), ctx.timezone)).name;
  const earned = kept(basis, state.earned, e, ctx.timezone);
  const next = { held, earned };
  return { ...next, level: levelAt(ctx, next, e), until: assessmentEnd(basis, e, ctx.timezone) };
}

/**
 * The state as of `now`: every re-assessment due by then applied in order, and a state whose period
 * ended while nothing could change (the customer at the lowest level) simply in the current period.
 * The ledger posts each due re-assessment as an entry of its own before an operation (so this only
 * rolls such unchanging states there); reads apply them here to show what the sweep will post.
 */
export function tierAsOf(ctx: TierContext, state: TierState | undefined, now: Date): TierState {
  let s = state ?? emptyTier(ctx, now);
  while (s.until.getTime() <= now.getTime()) {
    if (tierDue(ctx, s) === null) {
      const rolled = { held: base(ctx.program), earned: kept(ctx.program.basis, s.earned, now, ctx.timezone) };
      return { ...rolled, level: levelAt(ctx, rolled, now), until: assessmentEnd(ctx.program.basis, now, ctx.timezone) };
    }
    s = reassess(ctx, s)!;
  }
  return s;
}

/** The state after `hundredths` are earned at `now`, and what they counted (for a return). */
export function earn(
  ctx: TierContext,
  state: TierState | undefined,
  hundredths: number,
  now: Date,
): { state: TierState; counted: TierCounted } {
  const s = tierAsOf(ctx, state, now);
  const month = monthOf(now, ctx.timezone);
  const had = s.earned.find((e) => e.month === month)?.hundredths ?? 0;
  const earned = kept(
    ctx.program.basis,
    [...s.earned.filter((e) => e.month !== month), { month, hundredths: had + hundredths }],
    now,
    ctx.timezone,
  );
  const next = { ...s, earned };
  return { state: { ...next, level: levelAt(ctx, next, now) }, counted: { month, hundredths } };
}

/** The state after a return gives back (at most) `hundredths` of what an entry counted; a month no longer kept gives nothing back. */
export function release(
  ctx: TierContext,
  state: TierState | undefined,
  counted: TierCounted,
  hundredths: number,
  now: Date,
): { state: TierState; released: TierCounted } {
  const s = tierAsOf(ctx, state, now);
  const had = s.earned.find((e) => e.month === counted.month)?.hundredths ?? 0;
  const back = Math.min(had, counted.hundredths, hundredths);
  const earned = s.earned
    .map((e) => (e.month === counted.month ? { ...e, hundredths: e.hundredths - back } : e))
    .filter((e) => e.hundredths > 0);
  const next = { ...s, earned };
  return { state: { ...next, level: levelAt(ctx, next, now) }, released: { month: counted.month, hundredths: back } };
}

/** What a read shows at `now`: the tier, its multiplier, the window's points and the next level's threshold. */
export function tierProgress(ctx: TierContext, state: TierState | undefined, now: Date) {
  const s = tierAsOf(ctx, state, now);
  const level = levelAt(ctx, s, now);
  const earnedNow = earnedInWindow(ctx.program.basis, s.earned, now, ctx.timezone);
  const rank = rankOf(ctx.program, level);
  const next = ctx.program.levels.find((l, i) => i > rank && l.minHundredths > earnedNow) ?? null;
  return {
    level: ctx.program.levels[rank]!,
    held: s.held,
    /** When the current assessment period ends (the tier is kept at least until then). */
    until: s.until,
    earnedHundredths: earnedNow,
    next: next ? { name: next.name, neededHundredths: next.minHundredths - earnedNow } : null,
  };
}

/** The earning multiplier (hundredths) of the customer's tier at `now`. */
export const tierMultiplierOf = (ctx: TierContext | null, state: TierState | undefined, now: Date): number =>
  ctx ? tierProgress(ctx, state, now).level.multiplier : 100;

/** The txnId of a re-assessment's ledger entry: one per balance and period end, so it posts once. */
export const reassessTxnId = (walletDbId: string, until: Date) => `tier:${walletDbId}:${until.toISOString()}`;
