/**
 * A backtest's replay (docs/results.md "Backtests"): recorded carts, in the order of the record,
 * through the same engine as validate and redeem (evaluateCoupon), with counters and budgets of its
 * own — the live ones are never read nor written. Pure: carts in, figures out.
 *
 * - An order (a recorded redeem) the campaign applies to takes its counters, as a redeem does; the
 *   first take that fills a campaign-wide limit or budget cap is the moment it ran out.
 * - A validate (a check) is evaluated on the counters as they stand; a list, likewise, for a
 *   campaign a list shows (a fixed code, or an automatic promotion).
 * - What really happened is read from the record: the outcome each cart kept for the live campaign.
 *   It is counted the same way, with the live campaign's limits, for the moment they really ran out.
 * - A revert gives back what its order took, on each side that redeemed it; the order leaves the
 *   figures, which count what stands (as results do). Its changed-order entry, if any, stays.
 * - The counters start empty at the start of the period.
 */
import { budgetCents, budgetLeft } from './budget.js';
import { evaluateCoupon, type Evaluation } from './engine.js';
import { periodKeys, type PeriodKeys } from './periods.js';
import type { Campaign, SpentCents, UsageCounts } from './types.js';

/** What a recorded cart's request did for one campaign it named (or, for a redeem, used). */
export interface RecordedOutcome {
  /** The campaign. */
  cp: string;
  /** Applied (validate: applicable; redeem: redeemed). */
  ok: boolean;
  /** Discount, cashback and the basket it was counted on, in cents (when applied). */
  d?: number;
  cb?: number;
  b?: number;
  /** The refusal's reason (docs/reasons.md), when not applied. */
  r?: string;
  /** The code the cart named of it (absent for an automatic promotion). */
  k?: string;
}

/** A recorded cart as the replay reads it. */
export interface ReplayCart {
  at: Date;
  /** `l` list, `v` validate, `r` redeem (an order), `u` the revert of an order. */
  kind: 'l' | 'v' | 'r' | 'u';
  customerId: string | null;
  order: unknown;
  codes: readonly string[];
  orderId: string | null;
  outcomes: readonly RecordedOutcome[];
}

/** What an order got: applied with its discount, or refused for a reason. */
export interface Verdict {
  applied: boolean;
  discountCents: number;
  reason: string | null;
}

/** An order whose outcome the backtest changes against what really happened. */
export interface ChangedCart {
  at: Date;
  customerId: string | null;
  orderId: string | null;
  actual: Verdict;
  backtest: Verdict;
}

/** The money and the orders of a side (the backtest's, or what happened), in cents. */
export interface Side {
  orders: number;
  discountCents: number;
  cashbackCents: number;
  basketCents: number;
  customers: number;
}

export type LimitPeriod = 'total' | 'per_day' | 'per_week' | 'per_month';

/** A campaign-wide limit or budget cap and when it ran out (null: it did not within the period). */
export interface LimitRun {
  what: 'redemptions' | 'budget';
  period: LimitPeriod;
  /** Redemptions, or cents. */
  limit: number;
  ranOutAt: Date | null;
  actualRanOutAt: Date | null;
}

export interface BacktestFigures {
  replayed: { orders: number; checks: number; lists: number; reverts: number };
  backtest: Side & { checksValid: number; listsShown: number };
  /** Null for a draft: nothing happened. */
  actual: Side | null;
  refusalsByReason: Record<string, number>;
  limits: LimitRun[];
  changed: { gained: number; lost: number; differentAmount: number; carts: ChangedCart[] };
}

/** How many changed orders the figures list (the first, in the record's order); all are counted. */
export const CHANGED_LISTED = 200;

const PERIODS: readonly LimitPeriod[] = ['total', 'per_day', 'per_week', 'per_month'];
const COUNT_LIMIT = { total: 'total', per_day: 'perDay', per_week: 'perWeek', per_month: 'perMonth' } as const;
const BUDGET_CAP = { total: 'totalCents', per_day: 'perDayCents', per_week: 'perWeekCents', per_month: 'perMonthCents' } as const;
const BUDGET_NAME = { total: 'total', per_day: 'per_day', per_week: 'per_week', per_month: 'per_month', per_customer: null } as const;

/** A period's count and money: the key it is counted under (a new key starts from zero). */
interface Slot {
  k: string;
  n: number;
  a: number;
}
const zero = (k: string): Slot => ({ k, n: 0, a: 0 });

/** Counters of one campaign as a replay keeps them: the same periods as the live ones. */
class Counters {
  total = zero('total');
  day = zero('');
  week = zero('');
  month = zero('');
  customers = new Map<string, { n: number; a: number }>();
  codes = new Map<string, number>();
  /** The campaign-wide limits and caps that ran out: `<what>:<period>` → when first. */
  ranOut = new Map<string, Date>();

  private slot(period: LimitPeriod, p: PeriodKeys): Slot {
    if (period === 'total') return this.total;
    const [name, key] =
      period === 'per_day'
        ? (['day', p.day] as const)
        : period === 'per_week'
          ? (['week', p.week] as const)
          : (['month', p.month] as const);
    if (this[name].k !== key) this[name] = zero(key); // carts come in time order: a new period starts from zero
    return this[name];
  }

  usage(p: PeriodKeys, customerId: string | null, code: string | undefined, withBudget: boolean, bulk: boolean): UsageCounts {
    const mine = customerId ? this.customers.get(customerId) : undefined;
    const [t, d, w, m] = PERIODS.map((x) => this.slot(x, p)) as [Slot, Slot, Slot, Slot];
    const spent: SpentCents = { total: t.a, perCustomer: mine?.a ?? 0, perDay: d.a, perWeek: w.a, perMonth: m.a };
    return {
      total: t.n,
      perCustomer: mine?.n ?? 0,
      perDay: d.n,
      perWeek: w.n,
      perMonth: m.n,
      ...(bulk ? { bulkCode: code === undefined ? 0 : (this.codes.get(code) ?? 0) } : {}),
      ...(withBudget ? { spent } : {}),
    };
  }

  /** Takes one redemption of `cents` at `at`, noting each limit or cap of `campaign` it fills. */
  take(campaign: Campaign, at: Date, p: PeriodKeys, customerId: string | null, code: string | undefined, cents: number) {
    for (const period of PERIODS) {
      const s = this.slot(period, p);
      s.n++;
      s.a += cents;
      const limit = campaign.limits[COUNT_LIMIT[period]];
      if (limit && s.n >= limit) this.note(`redemptions:${period}`, at);
      const cap = campaign.budget?.[BUDGET_CAP[period]];
      if (cap && s.a >= cap) this.note(`budget:${period}`, at);
    }
    if (customerId) {
      const mine = this.customers.get(customerId) ?? { n: 0, a: 0 };
      mine.n++;
      mine.a += cents;
      this.customers.set(customerId, mine);
    }
    if (code !== undefined) this.codes.set(code, (this.codes.get(code) ?? 0) + 1);
  }

  /** Gives back what `take` took in periods `p` (a period since passed has nothing to give back to). */
  giveBack(p: PeriodKeys, customerId: string | null, code: string | undefined, cents: number) {
    const slots = [
      this.total,
      this.day.k === p.day ? this.day : null,
      this.week.k === p.week ? this.week : null,
      this.month.k === p.month ? this.month : null,
    ];
    for (const s of slots) {
      if (!s) continue;
      s.n--;
      s.a -= cents;
    }
    const mine = customerId ? this.customers.get(customerId) : undefined;
    if (mine) {
      mine.n--;
      mine.a -= cents;
    }
    if (code !== undefined) this.codes.set(code, (this.codes.get(code) ?? 1) - 1);
  }

  note(key: string, at: Date) {
    if (!this.ranOut.has(key)) this.ranOut.set(key, at);
  }
}

/** An order a side redeemed: what its revert gives back and takes out of the side's figures. */
interface Taken {
  p: PeriodKeys;
  customerId: string | null;
  code: string | undefined;
  cents: number;
  d: number;
  cb: number;
  b: number;
}

const emptySide = (): Side => ({ orders: 0, discountCents: 0, cashbackCents: 0, basketCents: 0, customers: 0 });

/** The replay of one campaign over recorded carts: {@link step} each cart in the record's order, then {@link figures}. */
export class BacktestReplay {
  private readonly sim = new Counters();
  private readonly real = new Counters();
  private readonly replayed = { orders: 0, checks: 0, lists: 0, reverts: 0 };
  private readonly mine: Side & { checksValid: number; listsShown: number } = { ...emptySide(), checksValid: 0, listsShown: 0 };
  private readonly actual = emptySide();
  private readonly mineCustomers = new Set<string>();
  private readonly actualCustomers = new Set<string>();
  private readonly refusals: Record<string, number> = {};
  private readonly changed = { gained: 0, lost: 0, differentAmount: 0, carts: [] as ChangedCart[] };
  /** The orders each side redeemed and has not reverted: what a revert gives back. */
  private readonly mineTaken = new Map<string, Taken>();
  private readonly actualTaken = new Map<string, Taken>();
  private readonly listed: boolean;
  private readonly bulk: boolean;
  /** Period keys by quarter hour: every timezone's offset is a multiple of 15 minutes. */
  private keysAt = { slot: NaN, keys: null as PeriodKeys | null };

  /**
   * @param campaign - the campaign replayed (a draft, a changed one, or the live one as it is)
   * @param live - the live campaign whose recorded outcomes are what really happened; null: a draft
   */
  constructor(
    private readonly campaign: Campaign,
    private readonly timezone: string,
    private readonly live: Campaign | null,
  ) {
    this.listed = campaign.codeType === 'fixed' || campaign.trigger === 'automatic';
    this.bulk = campaign.codeType === 'bulk';
  }

  private periods(at: Date): PeriodKeys {
    const slot = Math.floor(at.getTime() / 900_000);
    if (slot !== this.keysAt.slot) this.keysAt = { slot, keys: periodKeys(at, this.timezone) };
    return this.keysAt.keys!;
  }

  /** The campaign's verdict on a cart, on the replay's counters as they stand. */
  private evaluate(cart: ReplayCart, p: PeriodKeys, code: string | undefined, tiers?: ReadonlyMap<string, string>): Evaluation {
    const c = this.campaign;
    if (c.assignment === 'assigned_users' && !(cart.customerId && c.assignedCustomerIds.includes(cart.customerId)))
      return { applicable: false, reason: 'not_assigned' as never, message: '' };
    return evaluateCoupon({
      now: cart.at,
      timezone: this.timezone,
      campaign: c,
      usage: this.sim.usage(p, cart.customerId, code, !!c.budget, this.bulk),
      customerKnown: !!cart.customerId,
      order: cart.order === null ? undefined : cart.order,
      ...(tiers ? { customerTiers: tiers } : {}),
    });
  }

  /** One recorded cart. `tiers`: the customer's levels, for a campaign with a tier requirement. */
  step(cart: ReplayCart, tiers?: ReadonlyMap<string, string>): void {
    const p = this.periods(cart.at);
    // A bulk campaign's code is the one the cart named of it (its usage is per code).
    const actualOutcome = this.live ? cart.outcomes.find((o) => o.cp === this.live!.id) : undefined;
    const code = this.bulk ? codeOf(cart, this.live?.id ?? null) : undefined;
    if (cart.kind === 'l') {
      this.replayed.lists++;
      if (this.listed && this.evaluate(cart, p, code, tiers).applicable) this.mine.listsShown++;
      return;
    }
    if (cart.kind === 'u') {
      this.replayed.reverts++;
      if (cart.orderId) {
        this.revert(this.sim, this.mine, this.mineTaken, cart.orderId);
        this.revert(this.real, this.actual, this.actualTaken, cart.orderId);
      }
      return;
    }
    if (cart.kind === 'v') {
      this.replayed.checks++;
      if (this.evaluate(cart, p, code, tiers).applicable) this.mine.checksValid++;
      return;
    }
    this.replayed.orders++;
    const evaluation = this.evaluate(cart, p, code, tiers);
    const mine: Verdict = evaluation.applicable
      ? { applied: true, discountCents: evaluation.result.totalDiscountCents, reason: null }
      : { applied: false, discountCents: 0, reason: evaluation.reason };
    if (evaluation.applicable) {
      const cents = budgetCents(evaluation.result);
      const d = evaluation.result.totalDiscountCents;
      const cb = evaluation.result.totalCashbackCents;
      const b = evaluation.order?.sellingSubtotalCents ?? 0;
      this.sim.take(this.campaign, cart.at, p, cart.customerId, code, cents);
      this.count(this.mine, this.mineCustomers, cart.customerId, d, cb, b);
      if (cart.orderId) this.mineTaken.set(cart.orderId, { p, customerId: cart.customerId, code, cents, d, cb, b });
    } else {
      this.refusals[evaluation.reason] = (this.refusals[evaluation.reason] ?? 0) + 1;
      if (evaluation.reason === 'budget_exhausted') {
        const usage = this.sim.usage(p, cart.customerId, code, true, false);
        const cap = budgetLeft(this.campaign.budget, usage.spent, false)?.cap;
        const name = cap ? BUDGET_NAME[cap] : null;
        if (name) this.sim.note(`budget:${name}`, cart.at);
      }
    }
    const actual: Verdict = actualOutcome?.ok
      ? { applied: true, discountCents: actualOutcome.d ?? 0, reason: null }
      : { applied: false, discountCents: 0, reason: actualOutcome?.r ?? null };
    if (actual.applied && this.live) {
      const [d, cb, b] = [actualOutcome!.d ?? 0, actualOutcome!.cb ?? 0, actualOutcome!.b ?? 0];
      this.real.take(this.live, cart.at, p, cart.customerId, code, d + cb);
      this.count(this.actual, this.actualCustomers, cart.customerId, d, cb, b);
      if (cart.orderId) this.actualTaken.set(cart.orderId, { p, customerId: cart.customerId, code, cents: d + cb, d, cb, b });
    }
    this.compare(cart, actual, mine);
  }

  /** A revert of `orderId`: what the side took is given back, and its order leaves the side's figures (as results count what stands). */
  private revert(counters: Counters, side: Side, taken: Map<string, Taken>, orderId: string) {
    const t = taken.get(orderId);
    if (!t) return;
    taken.delete(orderId);
    counters.giveBack(t.p, t.customerId, t.code, t.cents);
    side.orders--;
    side.discountCents -= t.d;
    side.cashbackCents -= t.cb;
    side.basketCents -= t.b;
  }

  private count(side: Side, customers: Set<string>, customerId: string | null, d: number, cb: number, b: number) {
    side.orders++;
    side.discountCents += d;
    side.cashbackCents += cb;
    side.basketCents += b;
    if (customerId && !customers.has(customerId)) {
      customers.add(customerId);
      side.customers++;
    }
  }

  private compare(cart: ReplayCart, actual: Verdict, mine: Verdict) {
    if (actual.applied === mine.applied && actual.discountCents === mine.discountCents) return;
    if (mine.applied && !actual.applied) this.changed.gained++;
    else if (!mine.applied && actual.applied) this.changed.lost++;
    else this.changed.differentAmount++;
    if (this.changed.carts.length < CHANGED_LISTED)
      this.changed.carts.push({ at: cart.at, customerId: cart.customerId, orderId: cart.orderId, actual, backtest: mine });
  }

  figures(): BacktestFigures {
    const limits: LimitRun[] = [];
    const liveLimit = (what: LimitRun['what'], period: LimitPeriod) =>
      this.live && (what === 'redemptions' ? this.live.limits[COUNT_LIMIT[period]] : this.live.budget?.[BUDGET_CAP[period]]);
    for (const period of PERIODS) {
      const count = this.campaign.limits[COUNT_LIMIT[period]];
      if (count)
        limits.push({
          what: 'redemptions',
          period,
          limit: count,
          ranOutAt: this.sim.ranOut.get(`redemptions:${period}`) ?? null,
          actualRanOutAt: liveLimit('redemptions', period) ? (this.real.ranOut.get(`redemptions:${period}`) ?? null) : null,
        });
    }
    for (const period of PERIODS) {
      const cap = this.campaign.budget?.[BUDGET_CAP[period]];
      if (cap)
        limits.push({
          what: 'budget',
          period,
          limit: cap,
          ranOutAt: this.sim.ranOut.get(`budget:${period}`) ?? null,
          actualRanOutAt: liveLimit('budget', period) ? (this.real.ranOut.get(`budget:${period}`) ?? null) : null,
        });
    }
    return {
      replayed: { ...this.replayed },
      backtest: { ...this.mine },
      actual: this.live ? { ...this.actual } : null,
      refusalsByReason: { ...this.refusals },
      limits,
      changed: { ...this.changed, carts: [...this.changed.carts] },
    };
  }
}

/** The code a cart named of a campaign (its first code, when the record does not say which: a cart that named no code of it). */
function codeOf(cart: ReplayCart, campaignId: string | null): string | undefined {
  return (campaignId ? cart.outcomes.find((o) => o.cp === campaignId)?.k : undefined) ?? cart.codes[0];
}
