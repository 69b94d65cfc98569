/**
 * Campaign results (docs/results.md): what a campaign did, per local hour or day of the
 * application's timezone and in total, read from counters — never by reading the journal:
 *  - redemptions that stand, reverts, discount, cashback, basket and budget amounts: the results
 *    counters the worker keeps in the redemption's own protocol (limit-counters.ts), exact after
 *    any crash; a change still in flight (its lane not settled) is left out until it commits;
 *  - refusals by reason and first-time customers: the tallies each process writes in batches
 *    (shared/cache/results-tally.ts);
 *  - each limit and budget cap: what is used, what is left, the pace of the last 24 hours and,
 *    at that pace, when it runs out.
 * Each read is one query per collection whatever the range; its cost grows with the campaigns
 * and the hours in the range, never with the redemptions.
 */
import Joi from 'joi';
import { stringify } from 'csv-stringify/sync';
import { adminInvalid, adminNotFound } from '../../admin-errors.js';
import { campaignCounterId, hourField } from '../../data/limit-counter.repository.js';
import type { LimitCounterDoc } from '../../data/limit-counter.schema.js';
import { stackKeyOfAttempt } from '../../data/redemption-journal.repository.js';
import type { CampaignTallyDoc } from '../../data/campaign-tally.schema.js';
import { fromCents } from '../../domain/money.js';
import { hourKey, periodKeys, zonedLocalToUtc } from '../../domain/periods.js';
import type { Campaign } from '../../domain/types.js';
import type { Services } from '../../services.js';
import { laneChange } from '../limit-counters.js';
import { validateInput } from './admin-input.js';
import { requireApplication } from './applications.usecase.js';

type Deps = Pick<Services, 'repos' | 'now'>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
export const dayField = Joi.string().pattern(DAY).messages({ 'string.pattern.base': '{{#label}} should be a date, YYYY-MM-DD' });
const querySchema = Joi.object({
  from: dayField,
  to: dayField,
  bucket: Joi.string().valid('hour', 'day').default('day'),
  format: Joi.string().valid('json', 'csv').default('json'),
});

/** The longest range a read covers, in days, per bucket (366 days; 31 days of hours: 744 buckets). */
export const MAX_DAYS = { day: 366, hour: 31 } as const;
/** The range read when none is given, in days up to today. */
const DEFAULT_DAYS = { day: 30, hour: 1 } as const;

type Bucket = keyof typeof MAX_DAYS;

/** A results read's query, checked. */
interface ResultsQuery {
  from: string;
  to: string;
  bucket: Bucket;
  format: 'json' | 'csv';
}

/** A CSV answer of the admin API (api/admin/admin-route.ts sends it as a file). */
export class CsvAnswer {
  constructor(
    readonly filename: string,
    readonly text: string,
  ) {}
}

/** What a campaign (or several) did in a bucket or a range, in cents. */
export interface Figures {
  redemptions: number;
  reverts: number;
  discountCents: number;
  cashbackCents: number;
  basketCents: number;
  budgetCents: number;
  newCustomers: number;
  refusals: number;
}

const zero = (): Figures => ({
  redemptions: 0,
  reverts: 0,
  discountCents: 0,
  cashbackCents: 0,
  basketCents: 0,
  budgetCents: 0,
  newCustomers: 0,
  refusals: 0,
});

function add(into: Figures, f: Figures): Figures {
  into.redemptions += f.redemptions;
  into.reverts += f.reverts;
  into.discountCents += f.discountCents;
  into.cashbackCents += f.cashbackCents;
  into.basketCents += f.basketCents;
  into.budgetCents += f.budgetCents;
  into.newCustomers += f.newCustomers;
  into.refusals += f.refusals;
  return into;
}

/** `day` moved by `n` calendar days (`YYYY-MM-DD`; no timezone involved). */
export function addDays(day: string, n: number): string {
  const t = Date.parse(`${day}T00:00:00Z`) + n * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/** A real calendar date (`2026-02-30` is not). */
export function validDay(day: string): boolean {
  const t = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === day;
}

/** The query checked: the range in the application's days, defaulting to the last days up to today. */
function rangeOf(input: unknown, today: string): ResultsQuery {
  const q = validateInput(querySchema, input, { query: true }) as { from?: string; to?: string; bucket: Bucket; format: 'json' | 'csv' };
  for (const f of ['from', 'to'] as const)
    if (q[f] !== undefined && !validDay(q[f]!)) throw adminInvalid(`${f} is not a date`, { [f]: `${f} is not a date` });
  const to = q.to ?? (q.from && q.from > today ? q.from : today);
  const from = q.from ?? addDays(to, -(DEFAULT_DAYS[q.bucket] - 1));
  if (from > to) throw adminInvalid('from should not be after to', { from: 'from should not be after to' });
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  if (days > MAX_DAYS[q.bucket]) {
    const message = `at most ${MAX_DAYS[q.bucket]} days by ${q.bucket}`;
    throw adminInvalid(message, { to: message });
  }
  return { from, to, bucket: q.bucket, format: q.format };
}

/** Every bucket of the range, in order: its days, or each day's 24 hours. */
function bucketsOf(q: ResultsQuery): string[] {
  const out: string[] = [];
  for (let d = q.from; d <= q.to; d = addDays(d, 1)) {
    if (q.bucket === 'day') out.push(d);
    else for (let h = 0; h < 24; h++) out.push(`${d}T${String(h).padStart(2, '0')}`);
  }
  return out;
}

/** A results counter's hour field as stored (`h14`). */
interface HourFigures {
  n?: number;
  rv?: number;
  d?: number;
  c?: number;
  b?: number;
  a?: number;
}

/** The hours of a day as results keys name them (`00` … `23`; their fields: `hourField`). */
const hourKeys = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0'));

/**
 * A results counter's figures — the day's, or each hour's (`byHour`: `HH` → figures) — without the
 * changes its lanes hold that have not committed (in flight, or left by a crash).
 */
async function committedFigures(deps: Deps, applicationId: string, campaignId: string, doc: LimitCounterDoc, byHour: boolean) {
  const out = new Map<string, Figures>();
  const figures = (h: HourFigures): Figures => ({
    ...zero(),
    redemptions: h.n ?? 0,
    reverts: h.rv ?? 0,
    discountCents: h.d ?? 0,
    cashbackCents: h.c ?? 0,
    basketCents: h.b ?? 0,
    budgetCents: h.a ?? 0,
  });
  const raw = doc as unknown as Record<string, HourFigures | undefined>;
  if (!byHour) out.set('', figures({ n: doc.total, rv: doc.rv ?? 0, d: doc.disc ?? 0, c: doc.cb ?? 0, b: doc.bsk ?? 0, a: doc.amt ?? 0 }));
  else hourKeys.forEach((hh, h) => raw[hourField(h)] && out.set(hh, figures(raw[hourField(h)]!)));
  for (const held of Object.values(doc.lanes ?? {})) {
    if (typeof held !== 'string') continue;
    const change = laneChange(campaignId, held);
    const point = stackKeyOfAttempt(applicationId, change.key, change.attempt) ?? change.key;
    if ((await deps.repos.redemptions.get(point))?.att?.[change.attempt] === 'c') continue;
    const key = byHour ? hourKeys[change.tally?.hour ?? 0]! : '';
    const f = out.get(key);
    if (!f) continue;
    f.redemptions -= change.step;
    if (change.step < 0) f.reverts -= 1;
    f.discountCents -= change.step * (change.tally?.discount ?? 0);
    f.cashbackCents -= change.step * (change.tally?.cashback ?? 0);
    f.basketCents -= change.step * (change.tally?.basket ?? 0);
    f.budgetCents -= change.step * (change.cents ?? 0);
  }
  return out;
}

/**
 * Figures by campaign id, then by bucket (a day `YYYY-MM-DD`, or an hour `YYYY-MM-DDTHH`), and
 * refusals by campaign and reason, for the days `fromDay`..`toDay`: one query per collection.
 */
async function collect(deps: Deps, applicationId: string, campaignIds: string[], fromDay: string, toDay: string, bucket: Bucket) {
  const byHour = bucket === 'hour';
  const [docs, tallies] = await Promise.all([
    deps.repos.limitCounters.resultsRange(campaignIds, fromDay, toDay, byHour),
    deps.repos.campaignTallies.range(campaignIds, fromDay, toDay, byHour),
  ]);
  const byCampaign = new Map<string, Map<string, Figures>>(campaignIds.map((c) => [c, new Map()]));
  const reasons = new Map<string, Map<string, number>>(campaignIds.map((c) => [c, new Map()]));
  const at = (campaignId: string, key: string) => {
    const buckets = byCampaign.get(campaignId)!;
    let f = buckets.get(key);
    if (!f) buckets.set(key, (f = zero()));
    return f;
  };
  const keyOf = (day: string, hh: string) => (byHour ? `${day}T${hh}` : day);
  await Promise.all(
    docs.map(async (doc) => {
      const [campaignId, day] = doc._id.split(':r:') as [string, string];
      if (!byCampaign.has(campaignId)) return;
      for (const [hh, f] of await committedFigures(deps, applicationId, campaignId, doc, byHour)) add(at(campaignId, keyOf(day, hh)), f);
    }),
  );
  const tallied = (campaignId: string, key: string, t: { nc?: number | null; ref?: Record<string, number> }) => {
    const f = at(campaignId, key);
    f.newCustomers += t.nc ?? 0;
    for (const [reason, n] of Object.entries(t.ref ?? {})) {
      f.refusals += n;
      const r = reasons.get(campaignId)!;
      r.set(reason, (r.get(reason) ?? 0) + n);
    }
  };
  for (const t of tallies as CampaignTallyDoc[]) {
    const campaignId = t._id.slice(0, t._id.indexOf(':'));
    const day = t._id.slice(t._id.indexOf(':') + 1);
    if (!byCampaign.has(campaignId)) continue;
    if (!byHour) tallied(campaignId, day, t);
    else {
      const raw = t as unknown as Record<string, { nc?: number; ref?: Record<string, number> } | undefined>;
      hourKeys.forEach((hh, h) => raw[hourField(h)] && tallied(campaignId, keyOf(day, hh), raw[hourField(h)]!));
    }
  }
  return { byCampaign, reasons };
}

/** Figures in the admin API's words: money in the currency's units. */
function present(f: Figures) {
  return {
    redemptions: f.redemptions,
    reverts: f.reverts,
    discount: fromCents(f.discountCents),
    cashback: fromCents(f.cashbackCents),
    basket: fromCents(f.basketCents),
    average_discount: f.redemptions > 0 ? fromCents(Math.round(f.discountCents / f.redemptions)) : null,
    budget_spent: fromCents(f.budgetCents),
    new_customers: f.newCustomers,
    refusals: f.refusals,
  };
}

/** The series of a range: one row per bucket (hours summed into days), zeros where nothing happened. */
function seriesOf(q: ResultsQuery, hours: Map<string, Figures>[]) {
  const rows = new Map(bucketsOf(q).map((b) => [b, zero()]));
  for (const byHour of hours)
    for (const [hour, f] of byHour) {
      const row = rows.get(q.bucket === 'day' ? hour.slice(0, 10) : hour);
      if (row) add(row, f);
    }
  return [...rows].map(([period, f]) => ({ period, ...present(f) }));
}

const byReasonOf = (maps: Map<string, number>[]) => {
  const out: Record<string, number> = {};
  for (const m of maps) for (const [reason, n] of m) out[reason] = (out[reason] ?? 0) + n;
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
};

/** The columns of a results series as CSV (the admin API's and the CLI's). */
export const RESULT_COLUMNS = [
  'period',
  'redemptions',
  'reverts',
  'discount',
  'cashback',
  'basket',
  'average_discount',
  'budget_spent',
  'new_customers',
  'refusals',
] as const;

function csvOf(name: string, q: ResultsQuery, series: ReturnType<typeof seriesOf>): CsvAnswer {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-|-$/g, '') || 'results';
  return new CsvAnswer(`${safe}-${q.from}-${q.to}-${q.bucket}.csv`, stringify(series, { header: true, columns: [...RESULT_COLUMNS] }));
}

/** The hours of the last 24 up to now, in the application's timezone (the pace a projection uses). */
function lastDayHours(now: Date, tz: string): string[] {
  const out = new Set<string>();
  for (let i = 0; i < 24; i++) out.add(hourKey(new Date(now.getTime() - i * 3_600_000), tz));
  return [...out];
}

/** When the current period of `period` ends (the next one starts), as an instant. */
function periodEnd(period: 'day' | 'week' | 'month', today: string, tz: string): Date {
  let next: string;
  if (period === 'day') next = addDays(today, 1);
  else if (period === 'week') {
    const weekday = (new Date(`${today}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
    next = addDays(today, 7 - weekday);
  } else {
    const [y, m] = today.split('-').map(Number) as [number, number];
    next = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
  }
  return zonedLocalToUtc(`${next}T00:00`, tz);
}

/**
 * A campaign's limits and budget caps as they burn: used, left, the pace of the last 24 hours
 * (per hour) and when, at that pace, what is left runs out — null when it does not within the
 * current period (or nothing is used).
 */
async function burnOf(deps: Deps, app: { timezone: string }, campaign: Campaign, pace: Figures) {
  const now = deps.now();
  const keys = periodKeys(now, app.timezone);
  const counter = await deps.repos.limitCounters.find(campaignCounterId(campaign.id));
  const inPeriod = (p: { k: string; n: number; a?: number } | undefined, key: string) => (p && p.k === key ? p : { n: 0, a: 0 });
  const out: Record<string, unknown>[] = [];
  const entry = (
    what: 'redemptions' | 'budget',
    period: 'total' | 'day' | 'week' | 'month',
    limit: number,
    used: number,
    perHour: number,
  ) => {
    const left = Math.max(0, limit - used);
    const end = period === 'total' ? null : periodEnd(period, keys.day, app.timezone);
    let runsOut: string | null = null;
    if (left === 0) runsOut = now.toISOString();
    else if (perHour > 0) {
      const at = new Date(now.getTime() + (left / perHour) * 3_600_000);
      if (!end || at < end) runsOut = at.toISOString();
    }
    const money = what === 'budget';
    out.push({
      what,
      period: period === 'total' ? 'total' : `per_${period}`,
      ...(period !== 'total' ? { period_key: keys[period] } : {}),
      limit: money ? fromCents(limit) : limit,
      used: money ? fromCents(used) : used,
      left: money ? fromCents(left) : left,
      per_hour: money ? fromCents(Math.round(perHour)) : Math.round(perHour * 100) / 100,
      runs_out_at: runsOut,
      ...(end ? { period_ends_at: end.toISOString() } : {}),
    });
  };
  const l = campaign.limits;
  const perHour = pace.redemptions / 24;
  if (l.total) entry('redemptions', 'total', l.total, counter?.total ?? 0, perHour);
  if (l.perDay) entry('redemptions', 'day', l.perDay, inPeriod(counter?.d, keys.day).n, perHour);
  if (l.perWeek) entry('redemptions', 'week', l.perWeek, inPeriod(counter?.w, keys.week).n, perHour);
  if (l.perMonth) entry('redemptions', 'month', l.perMonth, inPeriod(counter?.m, keys.month).n, perHour);
  const b = campaign.budget;
  const spentPerHour = pace.budgetCents / 24;
  if (b?.totalCents) entry('budget', 'total', b.totalCents, counter?.amt ?? 0, spentPerHour);
  if (b?.perDayCents) entry('budget', 'day', b.perDayCents, inPeriod(counter?.d, keys.day).a ?? 0, spentPerHour);
  if (b?.perWeekCents) entry('budget', 'week', b.perWeekCents, inPeriod(counter?.w, keys.week).a ?? 0, spentPerHour);
  if (b?.perMonthCents) entry('budget', 'month', b.perMonthCents, inPeriod(counter?.m, keys.month).a ?? 0, spentPerHour);
  return out;
}

/** GET /admin/applications/{app}/campaigns/{campaign}/results: one campaign's results (JSON, or CSV with `format=csv`). */
export async function campaignResults(deps: Deps, applicationId: string, campaignId: string, input: unknown) {
  const app = await requireApplication(deps, applicationId);
  const campaign = /^[0-9a-f]{24}$/.test(campaignId) ? await deps.repos.campaigns.findById(applicationId, campaignId) : null;
  if (!campaign) throw adminNotFound('campaign');
  const now = deps.now();
  const q = rangeOf(input, periodKeys(now, app.timezone).day);
  const paceHours = lastDayHours(now, app.timezone);
  const [range, pace, allTime] = await Promise.all([
    collect(deps, app.id, [campaign.id], q.from, q.to, q.bucket),
    collect(deps, app.id, [campaign.id], paceHours.at(-1)!.slice(0, 10), paceHours[0]!.slice(0, 10), 'hour'),
    deps.repos.campaignTallies.allTime([campaign.id]),
  ]);
  const hours = range.byCampaign.get(campaign.id)!;
  const series = seriesOf(q, [hours]);
  if (q.format === 'csv') return csvOf(campaign.name, q, series);
  const totals = [...hours.values()].reduce(add, zero());
  const pace24 = [...pace.byCampaign.get(campaign.id)!.entries()]
    .filter(([h]) => paceHours.includes(h))
    .reduce((s, [, f]) => add(s, f), zero());
  return {
    campaign_id: campaign.id,
    name: campaign.name,
    ...headerOf(app, q, now),
    totals: { ...present(totals), customers: allTime.get(campaign.id)?.nc ?? 0 },
    refusals_by_reason: byReasonOf([range.reasons.get(campaign.id)!]),
    series,
    limits: await burnOf(deps, app, campaign, pace24),
  };
}

/** What every results answer starts with: whose clock and money, the range, when it was read. */
const headerOf = (app: { timezone: string; currency: string | null }, q: ResultsQuery, now: Date) => ({
  timezone: app.timezone,
  currency: app.currency ?? null,
  from: q.from,
  to: q.to,
  bucket: q.bucket,
  as_of: now.toISOString(),
});

/** GET /admin/applications/{app}/results: every campaign's results together, and each campaign's totals (JSON, or CSV). */
export async function applicationResults(deps: Deps, applicationId: string, input: unknown) {
  const app = await requireApplication(deps, applicationId);
  const now = deps.now();
  const q = rangeOf(input, periodKeys(now, app.timezone).day);
  const campaigns = await deps.repos.campaigns.listByApplication(app.id);
  const ids = campaigns.map((c) => c.id);
  const [range, allTime] = await Promise.all([collect(deps, app.id, ids, q.from, q.to, q.bucket), deps.repos.campaignTallies.allTime(ids)]);
  const hours = ids.map((id) => range.byCampaign.get(id)!);
  const series = seriesOf(q, hours);
  if (q.format === 'csv') return csvOf(app.name, q, series);
  const perCampaign = campaigns
    .map((c) => {
      const f = [...range.byCampaign.get(c.id)!.values()].reduce(add, zero());
      return { campaign_id: c.id, name: c.name, ...present(f), customers: allTime.get(c.id)?.nc ?? 0 };
    })
    .sort((a, b) => b.redemptions - a.redemptions || b.refusals - a.refusals || a.name.localeCompare(b.name));
  return {
    application_id: app.id,
    ...headerOf(app, q, now),
    totals: present(hours.reduce((s, h) => [...h.values()].reduce(add, s), zero())),
    refusals_by_reason: byReasonOf([...range.reasons.values()]),
    series,
    campaigns: perCampaign,
  };
}
