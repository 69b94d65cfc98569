/**
 * What an order earns under a wallet's earning rule (issue 42, docs/wallets.md "Earning rules"):
 * the computation alone, exact in hundredths of a point. Reported orders earn by it
 * (shared/usecases/order-report.usecase.ts); per-period caps kept in counters and tiers will.
 *
 * An earning rule gives `points` per `per` of money on one of the seven bases of
 * docs/campaigns.md (the order's selling or original subtotal, its shipping, the selected items'
 * or the valid cart's lines on either price). Its steps, in this order, each in the explanation:
 *  1. the base, as a discount's base is computed (shared/domain/discount.ts: one place);
 *  2. below `minOrder` (the order's selling subtotal), nothing is earned;
 *  3. base ÷ per × points × the tier's multiplier × the campaign's multiplier, exactly (integers:
 *     no floating-point step), then rounded once, `down`, `nearest` (half up) or `up`, to whole
 *     points or to hundredths (`unit`);
 *  4. at most `maxPerOrder`, then at most what the period's cap has left: a reported order's
 *     caps are applied by the worker on the customer's counters, which its balance keeps
 *     ({@link capByPeriods}), so that racing orders can never earn past a cap.
 * Multipliers are hundredths (150 = 1.5×) so that the whole product stays an integer ratio.
 */
import { baseCents, eligibleItems } from './discount.js';
import { matchesSelector } from './order-fields.js';
import type { ParsedOrder } from './order.js';
import { periodKeys } from './periods.js';
import type { DiscountBase, ItemSelector, MetadataKey } from './types.js';

export const EARNING_ROUNDINGS = ['down', 'nearest', 'up'] as const;
export type EarningRounding = (typeof EARNING_ROUNDINGS)[number];

export interface EarningRule {
  /** The base the points are earned on (a discount's bases). */
  earnedOn: DiscountBase;
  /** The items that earn, for the `selected_items_*` bases (null there: none). */
  itemSelector: ItemSelector | null;
  /** The items that never earn, for the `valid_cart_*` bases. */
  excludedItems: ItemSelector | null;
  /** The item metadata keys the selectors may read (as a campaign declares them). */
  metadataKeys: MetadataKey[];
  /** Hundredths of a point earned per `perCents` of the base (100 per 1000: 1 point per 10.00). */
  pointsHundredths: number;
  perCents: number;
  rounding: EarningRounding;
  /** What the rounding rounds to, in hundredths: 100 (whole points) or 1. */
  unitHundredths: 1 | 100;
  /** Nothing is earned on an order whose selling subtotal is below this (cents); null: any order. */
  minOrderCents: number | null;
  /** At most this many hundredths per order; null: no cap. */
  maxPerOrderHundredths: number | null;
  /** At most this many hundredths per customer in a calendar period of the wallet's timezone; null or absent: no cap. */
  periodCap?: PeriodCap | null;
}

export const EARNING_PERIODS = ['day', 'week', 'month', 'year'] as const;
export type EarningPeriod = (typeof EARNING_PERIODS)[number];

/** A rule's cap per calendar period (day, ISO week from Monday, month, year) in the wallet's timezone. */
export interface PeriodCap {
  period: EarningPeriod;
  maxHundredths: number;
}

/**
 * What a customer earned under one capped rule in one period (`period`: its key, `month:2026-12`).
 * A balance keeps one per capped rule — the current period's — and a ledger entry that earned
 * under a capped rule records what it counted, so that the order's return gives it back.
 */
export interface EarnedInPeriod {
  rule: string;
  period: string;
  hundredths: number;
}

/** What one rule gives an order before its period cap: the figure the worker caps (shared/usecases/wallet-ledger.ts). */
export interface RuleEarning {
  rule: string;
  hundredths: number;
  cap: PeriodCap | null;
}

/** A rule as a wallet stores it: the rule and the name the console shows. */
export type NamedEarningRule = EarningRule & { name: string };

export interface EarningContext {
  /** The customer's tier's multiplier, in hundredths (100 = none). */
  tierMultiplier?: number;
  /** The multiplier of a campaign redeemed on the order, in hundredths (100 = none). */
  campaignMultiplier?: number;
  /** What the rule's cap for the period has left, in hundredths; null or absent: no cap. */
  periodLeftHundredths?: number | null;
}

/** One step of the computation, for explain mode: what it is and the figure after it. */
export interface EarningStep {
  step: 'base' | 'min_order' | 'rate' | 'rounding' | 'max_per_order' | 'period_cap';
  /** Cents for `base`; hundredths of a point for the others (`rate`: before rounding, may be fractional). */
  value: number;
  /** True when this step changed the outcome (a minimum not reached, a cap that bit). */
  limited: boolean;
}

export interface Earned {
  /** Hundredths of a point: what the order earns. */
  hundredths: number;
  baseCents: number;
  steps: EarningStep[];
}

/** Rounds the exact ratio `num / den` (non-negative integers) to a multiple of `unit`. */
function roundRatio(num: bigint, den: bigint, unit: bigint, rounding: EarningRounding): bigint {
  const step = den * unit;
  const whole = num / step;
  const rest = num % step;
  if (rest === 0n || rounding === 'down') return whole * unit;
  if (rounding === 'up') return (whole + 1n) * unit;
  return (2n * rest >= step ? whole + 1n : whole) * unit;
}

/** What `order` earns under `rule` (hundredths of a point), with every step for explain mode. */
export function pointsEarned(rule: EarningRule, order: ParsedOrder, ctx: EarningContext = {}): Earned {
  const view = { discountCalculatedOn: rule.earnedOn, excludedItems: rule.excludedItems, metadataKeys: rule.metadataKeys };
  const selected = order.items.map((item) => (rule.itemSelector ? matchesSelector(item, view, rule.itemSelector) : false));
  const base = baseCents(view, order, eligibleItems(view, order, selected));
  const steps: EarningStep[] = [{ step: 'base', value: base, limited: false }];
  const done = (hundredths: number): Earned => ({ hundredths, baseCents: base, steps });
  if (rule.minOrderCents !== null && order.sellingSubtotalCents < rule.minOrderCents) {
    steps.push({ step: 'min_order', value: 0, limited: true });
    return done(0);
  }
  const tier = BigInt(ctx.tierMultiplier ?? 100);
  const campaign = BigInt(ctx.campaignMultiplier ?? 100);
  const num = BigInt(base) * BigInt(rule.pointsHundredths) * tier * campaign;
  const den = BigInt(rule.perCents) * 10_000n;
  steps.push({ step: 'rate', value: Number(num) / Number(den), limited: false });
  let earned = Number(roundRatio(num, den, BigInt(rule.unitHundredths), rule.rounding));
  steps.push({ step: 'rounding', value: earned, limited: false });
  if (rule.maxPerOrderHundredths !== null && earned > rule.maxPerOrderHundredths) {
    earned = rule.maxPerOrderHundredths;
    steps.push({ step: 'max_per_order', value: earned, limited: true });
  }
  const left = ctx.periodLeftHundredths;
  if (left !== null && left !== undefined && earned > Math.max(0, left)) {
    earned = Math.max(0, left);
    steps.push({ step: 'period_cap', value: earned, limited: true });
  }
  return done(earned);
}

/**
 * What `order` earns under a wallet's rules: each rule's figure and steps, and their sum (hundredths
 * of a point). `periodLeft` says what a rule's period cap has left (absent: the caps are not applied
 * here — a reported order's are applied by the worker, on the customer's counters).
 */
export function orderEarns(
  rules: readonly NamedEarningRule[] | null | undefined,
  order: ParsedOrder,
  ctx: Omit<EarningContext, 'periodLeftHundredths'> = {},
  periodLeft?: (rule: NamedEarningRule) => number | null,
): { hundredths: number; rules: (Earned & { name: string; cap: PeriodCap | null })[] } {
  const each = (rules ?? []).map((rule) => ({
    name: rule.name,
    cap: rule.periodCap ?? null,
    ...pointsEarned(rule, order, { ...ctx, periodLeftHundredths: periodLeft?.(rule) ?? null }),
  }));
  return { hundredths: each.reduce((n, r) => n + r.hundredths, 0), rules: each };
}

/** The key of the calendar period `now` falls in, in `tz` (`day:2026-12-02`, `week:2026-W49`, `month:2026-12`, `year:2026`). */
export function earningPeriodKey(period: EarningPeriod, now: Date, tz: string): string {
  const keys = periodKeys(now, tz);
  return `${period}:${period === 'year' ? keys.month.slice(0, 4) : keys[period]}`;
}

/** What a capped rule has left in the period of `now` for a customer whose counters are `counters`. */
export function periodLeftOf(
  rule: { name: string; periodCap?: PeriodCap | null },
  counters: readonly EarnedInPeriod[],
  now: Date,
  tz: string,
) {
  if (!rule.periodCap) return null;
  const key = earningPeriodKey(rule.periodCap.period, now, tz);
  const used = counters.find((c) => c.rule === rule.name && c.period === key)?.hundredths ?? 0;
  return Math.max(0, rule.periodCap.maxHundredths - used);
}

/**
 * Applies the period caps to what each rule gives an order (`earnings`), on a customer's counters:
 * the points credited, what each capped rule counted (for the return), and the counters after —
 * one per capped rule, for its current period (a counter of an earlier period is replaced).
 */
export function capByPeriods(
  earnings: readonly RuleEarning[],
  counters: readonly EarnedInPeriod[],
  now: Date,
  tz: string,
): { hundredths: number; counted: EarnedInPeriod[]; counters: EarnedInPeriod[] } {
  let hundredths = 0;
  const counted: EarnedInPeriod[] = [];
  let after = [...counters];
  for (const e of earnings) {
    if (!e.cap) {
      hundredths += e.hundredths;
      continue;
    }
    const left = periodLeftOf({ name: e.rule, periodCap: e.cap }, after, now, tz)!;
    const got = Math.min(e.hundredths, left);
    hundredths += got;
    const period = earningPeriodKey(e.cap.period, now, tz);
    counted.push({ rule: e.rule, period, hundredths: got });
    const used = after.find((c) => c.rule === e.rule && c.period === period)?.hundredths ?? 0;
    after = [...after.filter((c) => c.rule !== e.rule), { rule: e.rule, period, hundredths: used + got }];
  }
  return { hundredths, counted, counters: after };
}

/**
 * The counters after a return gives back what its order counted, and what was given back: a
 * counter of a later period is left alone (its order's period is over), so nothing of it is.
 */
export function releasePeriods(
  counters: readonly EarnedInPeriod[],
  released: readonly EarnedInPeriod[],
): { counters: EarnedInPeriod[]; released: EarnedInPeriod[] } {
  const given: EarnedInPeriod[] = [];
  const after = counters.map((c) => {
    const back = released.find((r) => r.rule === c.rule && r.period === c.period);
    if (!back) return c;
    const hundredths = Math.min(c.hundredths, back.hundredths);
    given.push({ ...back, hundredths });
    return { ...c, hundredths: c.hundredths - hundredths };
  });
  return { counters: after, released: given };
}
