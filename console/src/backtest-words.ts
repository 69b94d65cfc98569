/**
 * A backtest in a promotion manager's words: what was tried, where it stands, when a limit would
 * have run out and when it really did, and how one recorded cart would have gone. Keyed by the
 * spec's enums (`Schemas['Backtest']`), so a status or kind the spec adds fails the type check
 * until it has its words.
 */
import type { Backtest } from './api';
import { formatMoney } from './money';
import { reasonInWords } from './reason-words';
import { dayKeyIn, formatIn, localDayInWords } from './when';

export type BacktestResult = NonNullable<Backtest['result']>;
export type BacktestLimit = BacktestResult['limits'][number];
export type ChangedCart = BacktestResult['changed']['carts'][number];
/** What a cart had, or would have had: the campaign applied with its discount, or refused and why. */
export type CartOutcome = ChangedCart['actual'];

export const STATUS_WORDS: Record<Backtest['status'], string> = {
  queued: 'Waiting to start',
  running: 'Running',
  done: 'Done',
  failed: 'Could not finish',
};

/** What was tried. */
export const KIND_WORDS: Record<Backtest['kind'], string> = {
  live: 'The campaign as it is',
  change: 'A change to the campaign',
  draft: 'A new campaign, not saved',
};

/** Which recorded carts were replayed. */
export const CARTS_WORDS: Record<Backtest['carts'], string> = {
  presented: 'carts that used this campaign',
  all: 'all recorded carts, as if every customer had used it',
};

/** A backtest's days: "1 December 2026 to 7 December 2026", or one day. */
export const periodOf = (b: Pick<Backtest, 'from' | 'to'>): string =>
  b.from === b.to ? localDayInWords(b.from) : `${localDayInWords(b.from)} to ${localDayInWords(b.to)}`;

const PER_PERIOD: Record<BacktestLimit['period'], string> = {
  total: '',
  per_day: ' a day',
  per_week: ' a week',
  per_month: ' a month',
};

/** What a limit is: "The limit of 100 redemptions", "The budget of €500.00 a day". */
export function limitInWords(l: BacktestLimit, currency: string | null): string {
  const per = PER_PERIOD[l.period];
  if (l.what === 'budget') return `The budget of ${formatMoney(l.limit, currency)}${per}`;
  return `The limit of ${l.limit.toLocaleString()} ${l.limit === 1 ? 'redemption' : 'redemptions'}${per}`;
}

/** The time of an instant on the application's clock, in the browser's style ("14:02", "02:02 PM"). */
const timeOf = (iso: string, timeZone: string | null) => formatIn(iso, timeZone, { hour: '2-digit', minute: '2-digit' });

/** "on 3 December 2026 at 14:02", on the application's clock. */
const onDayAt = (iso: string, timeZone: string | null) =>
  `on ${localDayInWords(dayKeyIn(new Date(iso), timeZone))} at ${timeOf(iso, timeZone)}`;

/**
 * When a limit would have run out, and — for a campaign that ran (not a draft) — when it really
 * did, on the application's clock: "The limit of 100 redemptions would have run out on 3 December
 * 2026 at 14:02; it really ran out at 14:02." For a change, what really ran out is the campaign as
 * it ran (its own limit, which the change may have moved): "…; the real campaign ran out at 14:05."
 * A limit per day, week or month says when it first ran out.
 */
export function ranOutInWords(l: BacktestLimit, kind: Backtest['kind'], currency: string | null, timeZone: string | null): string {
  const first = l.period === 'total' ? '' : 'first ';
  const would = l.ran_out_at ? `would have ${first}run out ${onDayAt(l.ran_out_at, timeZone)}` : 'would not have run out';
  if (kind === 'draft') return `${limitInWords(l, currency)} ${would}.`;
  const [it, notIt] =
    kind === 'change' ? ['the real campaign', 'the real campaign did not run out'] : ['it really', 'in fact it did not run out'];
  let really: string;
  if (!l.actual_ran_out_at) really = notIt;
  else if (l.ran_out_at && dayKeyIn(new Date(l.ran_out_at), timeZone) === dayKeyIn(new Date(l.actual_ran_out_at), timeZone))
    really = `${it} ${first}ran out at ${timeOf(l.actual_ran_out_at, timeZone)}`;
  else really = `${it} ${first}ran out ${onDayAt(l.actual_ran_out_at, timeZone)}`;
  return `${limitInWords(l, currency)} ${would}; ${really}.`;
}

/** A cart's outcome: "€5.00 off", "Refused: Used up: its total limit is reached", "Not used". */
export function outcomeInWords(o: CartOutcome, currency: string | null): string {
  if (o.applied) return `${formatMoney(o.discount, currency)} off`;
  return o.reason ? `Refused: ${reasonInWords(o.reason)}` : 'Not used';
}

/**
 * How the orders replayed would have gone differently, leaving out what did not happen: "Of the
 * orders replayed, 2 would have had it and did not, and 1 had it and would not have."
 */
export function changedInWords(c: Pick<BacktestResult['changed'], 'gained' | 'lost' | 'different_amount'>): string {
  const n = (x: number) => x.toLocaleString();
  const parts = [
    c.gained > 0 ? `${n(c.gained)} would have had it and did not` : null,
    c.lost > 0 ? `${n(c.lost)} had it and would not have` : null,
    c.different_amount > 0 ? `${n(c.different_amount)} would have had a different discount` : null,
  ].filter((p): p is string => p !== null);
  const listed =
    parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}` : (parts[0] ?? 'none would have gone differently');
  return `Of the orders replayed, ${listed}.`;
}

/** What was replayed: "5 orders, 1 code check and 0 lists of coupons", and the orders reverted when there were some. */
export function replayedInWords(r: BacktestResult['replayed']): string {
  const n = (x: number, one: string, many: string) => `${x.toLocaleString()} ${x === 1 ? one : many}`;
  const parts = [
    n(r.orders, 'order', 'orders'),
    n(r.checks, 'code check', 'code checks'),
    n(r.lists, 'list of coupons', 'lists of coupons'),
  ];
  if (r.reverts > 0) parts.push(n(r.reverts, 'order reverted', 'orders reverted'));
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
}
