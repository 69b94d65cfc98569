/**
 * A campaign's results in a promotion manager's words (docs/results.md): how each limit and budget
 * cap burns, as a sentence — "3 of 5 left; at the pace of the last 24 hours (about 2 redemptions a
 * day), runs out tomorrow at 19:15." — and what each one is. Keyed by the spec's enums
 * (`Schemas['LimitBurn']`), so a period the spec adds fails the type check until it has its words.
 */
import type { Schemas } from '@coupons/client';
import { formatMoney } from './money';
import { comingWhenInWords, periodInWords } from './when';

export type LimitBurn = Schemas['LimitBurn'];

const WHAT_WORDS: Record<LimitBurn['what'], string> = {
  redemptions: 'Redemptions',
  budget: 'Money budget',
};

/** When the current period is, as the limit's name says it. */
const PERIOD_WORDS: Record<LimitBurn['period'], string> = {
  total: 'in total',
  per_day: 'today',
  per_week: 'this week',
  per_month: 'this month',
};

/** What a limit is: "Redemptions in total", "Money budget this week (week 49 of 2026)". */
export function limitName(l: LimitBurn): string {
  const current = l.period !== 'total' && l.period_key ? ` (${periodInWords(l.period_key).replace(/^(on|in) /, '')})` : '';
  return `${WHAT_WORDS[l.what]} ${PERIOD_WORDS[l.period]}${current}`;
}

/** An amount of the limit: redemptions as a number, a budget in the currency. */
const amountOf = (l: LimitBurn, n: number, currency: string | null) =>
  l.what === 'budget' ? formatMoney(n, currency) : n.toLocaleString();

/** The pace of the last 24 hours: "about 2 redemptions a day", "9.5 redemptions an hour", "€0.42 an hour". */
function paceInWords(l: LimitBurn, currency: string | null): string {
  if (l.what === 'budget') return `${formatMoney(l.per_hour, currency)} an hour`;
  if (l.per_hour >= 1) return `${l.per_hour.toLocaleString(undefined, { maximumFractionDigits: 1 })} redemptions an hour`;
  const perDay = Math.round(l.per_hour * 24);
  return `about ${perDay} ${perDay === 1 ? 'redemption' : 'redemptions'} a day`;
}

/**
 * How a limit burns, in one sentence, on the application's clock (`timeZone`), seen from the
 * results' `as_of`: what is left, and when at the pace of the last 24 hours it runs out — or that
 * it will not this period, or that it is used up and when it starts again.
 */
export function burnInWords(l: LimitBurn, currency: string | null, timeZone: string | null, asOf: string): string {
  const now = new Date(asOf);
  const left = `${amountOf(l, l.left, currency)} of ${amountOf(l, l.limit, currency)} left`;
  const period = l.period === 'total' ? '' : ` ${PERIOD_WORDS[l.period]}`;
  if (l.left <= 0) {
    const again = l.period_ends_at ? `; it starts again ${comingWhenInWords(l.period_ends_at, timeZone, now)}` : '';
    return `Used up${period}: nothing left${again}.`;
  }
  if (l.per_hour <= 0) return `${left}; nothing was used in the last 24 hours: at that pace it will not run out${period}.`;
  const pace = `at the pace of the last 24 hours (${paceInWords(l, currency)})`;
  if (l.runs_out_at) return `${left}; ${pace}, runs out ${comingWhenInWords(l.runs_out_at, timeZone, now)}.`;
  return `${left}; ${pace}, it will not run out${period || ''}.`;
}
