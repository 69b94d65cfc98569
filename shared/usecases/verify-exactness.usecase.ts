/**
 * The exactness verifier (docs/operations.md, "Verifying exactness"): re-derives, from the
 * journals, what the service keeps as running figures, and reports every place they disagree.
 * Read-only — it never settles a lane or rolls an entry forward — and paged: every read is one
 * range of `_id`s of at most `pageSize` documents, nothing is held open between reads, so it can
 * run on a live database. Per application:
 *
 *  1. Each campaign's journal (its cycles are one `_id` range, `<campaign>:…`) is read once:
 *     - every limit counter equals the completed redemptions that count in it (their `counters`)
 *       plus the steps its lanes hold that have not committed (a change in flight); a campaign
 *       counter's day, week and month equal those of its current period key. A counter that
 *       disagrees is read again, with a fresh recount, after `recheckMs`, and reported only if it
 *       disagrees both times (a redeem that completed while the journal was being read);
 *     - every results counter (docs/results.md) equals the completed redemptions of its hour that
 *       count in it, their discount, cashback and basket, and the reverted ones (`rv`), with the
 *       steps its lanes hold the same way;
 *     - no limit is exceeded: the recount of every counter against the campaign's limits as they
 *       are now (a limit lowered since shows up the same way: the audit log says which);
 *     - no order is redeemed twice: at most one completed cycle per order (an order's cycles are
 *       adjacent in `_id` order);
 *     - with a webhook endpoint, every completed and reverted cycle has its event.
 *  2. Each balance (in `_id` order, with the ledger slots of a page of balances as one range):
 *     every slot below its version holds a posted entry, each entry starts where the one before
 *     ended (the first at 0), none goes below 0, the last one's `after` is the balance, and the
 *     balance's buckets are those the last entry recorded, consistent with the spendable points;
 *     each earning counter of a capped rule it keeps equals what its entries counted in that
 *     period (an order's earning adds, its return subtracts); its tier is the one its last entry
 *     recorded, and each month of points earned toward it that the tier still keeps equals what the
 *     entries since the tier last started counted in that month (a credit adds, a take-back subtracts).
 *  3. Each gift card and store credit (in `_id` order, with the ledger slots of a page of cards as
 *     one range): its balance equals the sum of the entries at its slots below its version, every
 *     such slot holds one, the last one's `after` is the balance, and neither is below 0.
 *
 * Memory: a page of documents, plus one count per customer or code counter of the campaign being
 * read — at most `maxKeys` at once: a campaign with more counters is read in several passes, each
 * recounting a share of them (by a hash of their id) — plus, per balance of a page, 17 bytes per
 * ledger entry (the chain check).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { stackKeyOfAttempt, type JournalRow } from '../data/redemption-journal.repository.js';
import type { LimitCounterDoc, PeriodCount } from '../data/limit-counter.schema.js';
import { hourField } from '../data/limit-counter.repository.js';
import type { Bucket } from '../domain/point-buckets.js';
import type { EarnedInPeriod } from '../domain/earning.js';
import type { TierRecord } from '../domain/tiers.js';
import { eventIdOf } from '../domain/events.js';
import type { Campaign } from '../domain/types.js';
import type { Services } from '../services.js';
import { kindOfCounter, laneChange } from './limit-counters.js';

type Deps = Pick<Services, 'repos' | 'now'>;

/** How the verifier reads. */
export interface VerifyOptions {
  /**
   * Documents read per query.
   * @defaultValue 1000
   */
  pageSize?: number;
  /**
   * Customer and code counters recounted at once per pass over a campaign's journal; a campaign
   * with more takes more passes.
   * @defaultValue 200000
   */
  maxKeys?: number;
  /**
   * How long to wait before a counter that disagrees is recounted (0: report at once).
   * @defaultValue 1000
   */
  recheckMs?: number;
  /**
   * Redemptions this recent (their events may not be written yet), or made this soon after the
   * application's first webhook endpoint was registered (the workers' caches learn of it within
   * CACHE_CHECK_MS), are not checked for events.
   * @defaultValue 60000
   */
  eventGraceMs?: number;
  /**
   * Days events are kept (WEBHOOK_RETENTION_DAYS): redemptions older than that, less a day, are
   * not checked for events.
   * @defaultValue 30
   */
  eventRetentionDays?: number;
  /**
   * At most this many discrepancies (and as many changes in flight) are listed; all are counted.
   * @defaultValue 1000
   */
  maxListed?: number;
}

export type DiscrepancyKind =
  /** A counter's total, day, week or month, or its money (`amt`), differs from the recount and its lanes. */
  | 'counter_mismatch'
  /** Completed redemptions count in a counter that does not exist. */
  | 'counter_missing'
  /** A recount above the campaign's limit as it is now: exceeded, or the limit lowered since. */
  | 'limit_exceeded'
  /** An order with more than one completed cycle of one campaign. */
  | 'order_redeemed_twice'
  /** A balance's points differ from its ledger. */
  | 'balance_mismatch'
  /** A slot below the balance's version holds no posted entry. */
  | 'ledger_gap'
  /** An entry that does not start where the one before it ended, goes below 0, or misstates its slot. */
  | 'ledger_chain'
  /** An entry at a slot of no balance, or past the balance's next slot. */
  | 'ledger_orphan'
  /** A balance's buckets differ from those its last entry recorded, or break their invariants. */
  | 'buckets_mismatch'
  /** A balance's earning counter of a capped rule differs from what its entries counted in that period. */
  | 'period_counter_mismatch'
  /** A balance's tier differs from the one its last entry recorded, or a month's points earned toward it from what its entries counted. */
  | 'tier_mismatch'
  /** A completed or reverted cycle of an application with a webhook endpoint, without its event. */
  | 'event_missing'
  /** A gift card's (or store credit's) balance differs from its ledger: the entries' sum, a missing entry, or one past its next slot. */
  | 'gift_card_balance_mismatch'
  /** A gift card's balance, or an entry's balance after it, is below 0. */
  | 'gift_card_negative';

/** A document by its collection and `_id`. */
export interface DocumentRef {
  collection: string;
  id: string;
}

export interface Discrepancy {
  kind: DiscrepancyKind;
  /** What is wrong, in words. */
  message: string;
  /** The documents involved, the one that is wrong first. */
  documents: DocumentRef[];
  expected?: number | string;
  found?: number | string;
}

/** A change the verifier found in flight (not a discrepancy: whoever next needs it settles it). */
export interface InFlight {
  document: DocumentRef;
  detail: string;
}

export interface VerifyReport {
  applicationId: string;
  startedAt: Date;
  finishedAt: Date;
  /** How much was read. */
  checked: {
    campaigns: number;
    cycles: number;
    counters: number;
    balances: number;
    entries: number;
    events: number;
    gift_cards: number;
    gift_card_entries: number;
  };
  /** Why events were not checked, when they were not. */
  eventsSkipped: string | null;
  /** Counters that disagreed once and agreed when recounted. */
  rechecked: number;
  inFlight: InFlight[];
  inFlightCount: number;
  discrepancies: Discrepancy[];
  /** All discrepancies found; more than listed when the list was cut at `maxListed`. */
  discrepancyCount: number;
}

const DEFAULTS: Required<VerifyOptions> = {
  pageSize: 1000,
  maxKeys: 200_000,
  recheckMs: 1000,
  eventGraceMs: 60_000,
  eventRetentionDays: 30,
  maxListed: 1000,
};

const DAY_MS = 86_400_000;
const EVENT_BATCH = 500;

/** Every row of a paged read, page after page (each page one query after the last `_id`). */
async function* rows<T extends { _id: string }>(read: (after: string | null) => Promise<T[]>, pageSize: number): AsyncGenerator<T> {
  let after: string | null = null;
  for (;;) {
    const page = await read(after);
    yield* page;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!._id;
  }
}

/** FNV-1a of a counter id: which pass recounts it. */
function shareOf(id: string, passes: number): number {
  if (passes === 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % passes;
}

/** What one application's verification collects (lists cut at `maxListed`, everything counted). */
class Findings {
  readonly discrepancies: Discrepancy[] = [];
  readonly inFlight: InFlight[] = [];
  discrepancyCount = 0;
  inFlightCount = 0;
  constructor(private readonly maxListed: number) {}
  add(d: Discrepancy) {
    if (this.discrepancyCount++ < this.maxListed) this.discrepancies.push(d);
  }
  flight(f: InFlight) {
    if (this.inFlightCount++ < this.maxListed) this.inFlight.push(f);
  }
}

const counterRef = (id: string): DocumentRef => ({ collection: 'limit_counters', id });
const cycleRef = (id: string): DocumentRef => ({ collection: 'redemptions', id });
const campaignRef = (id: string): DocumentRef => ({ collection: 'campaigns', id });

/** Verifies one application. */
export async function verifyApplication(deps: Deps, applicationId: string, options: VerifyOptions = {}): Promise<VerifyReport> {
  const o = { ...DEFAULTS, ...options };
  const startedAt = deps.now();
  const found = new Findings(o.maxListed);
  const checked = { campaigns: 0, cycles: 0, counters: 0, balances: 0, entries: 0, events: 0, gift_cards: 0, gift_card_entries: 0 };
  const events = await eventWindow(deps, applicationId, o, startedAt);
  let rechecked = 0;
  for (const campaign of await deps.repos.campaigns.listByApplication(applicationId)) {
    checked.campaigns++;
    const first = await verifyCampaign(deps, applicationId, campaign, o, events.window);
    let counterIssues = first.counterIssues;
    if (counterIssues.size > 0 && o.recheckMs > 0) {
      await sleep(o.recheckMs);
      const again = await verifyCampaign(deps, applicationId, campaign, o, null);
      counterIssues = new Map([...again.counterIssues].filter(([id]) => first.counterIssues.has(id)));
      rechecked += first.counterIssues.size - counterIssues.size;
    }
    for (const d of [...counterIssues.values()].flat()) found.add(d);
    for (const d of first.other) found.add(d);
    for (const f of first.inFlight) found.flight(f);
    checked.cycles += first.cycles;
    checked.counters += first.counters;
    checked.events += first.events;
  }
  await verifyBalances(deps, applicationId, o, found, checked);
  await verifyGiftCards(deps, applicationId, o, found, checked);
  return {
    applicationId,
    startedAt,
    finishedAt: deps.now(),
    checked,
    eventsSkipped: events.skipped,
    rechecked,
    inFlight: found.inFlight,
    inFlightCount: found.inFlightCount,
    discrepancies: found.discrepancies,
    discrepancyCount: found.discrepancyCount,
  };
}

/**
 * Verifies every application (of `within` when given: a limited operator's), one after the
 * other; `onReport` hears each report as it is made.
 */
export async function verifyAllApplications(
  deps: Deps,
  options: VerifyOptions = {},
  within: readonly string[] | null = null,
  onReport: (report: VerifyReport) => void = () => undefined,
): Promise<VerifyReport[]> {
  const reports: VerifyReport[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await deps.repos.applications.page({ limit: 100, ...(after ? { after } : {}) }, within);
    for (const app of page) {
      const report = await verifyApplication(deps, app.id, options);
      onReport(report);
      reports.push(report);
    }
    if (page.length < 100) return reports;
    after = page[page.length - 1]!.id;
  }
}

/** The redemptions whose events are checked: from the first endpoint (plus the grace) to now (less it), within the retention. */
async function eventWindow(
  deps: Deps,
  applicationId: string,
  o: Required<VerifyOptions>,
  now: Date,
): Promise<{ window: { from: number; until: number } | null; skipped: string | null }> {
  const endpoints = await deps.repos.webhookEndpoints.listByApplication(applicationId);
  if (endpoints.length === 0) return { window: null, skipped: 'no webhook endpoint: events are not recorded' };
  const firstEndpoint = Math.min(...endpoints.map((e) => e.createdAt.getTime()));
  const from = Math.max(firstEndpoint + o.eventGraceMs, now.getTime() - (o.eventRetentionDays - 1) * DAY_MS);
  return { window: { from, until: now.getTime() - o.eventGraceMs }, skipped: null };
}

interface CampaignResult {
  /** Counter discrepancies by counter id (rechecked before they are reported). */
  counterIssues: Map<string, Discrepancy[]>;
  other: Discrepancy[];
  inFlight: InFlight[];
  cycles: number;
  counters: number;
  events: number;
}

/** One campaign's journal against its counters, limits and events; `events` null: not checked. */
async function verifyCampaign(
  deps: Deps,
  applicationId: string,
  campaign: Campaign,
  o: Required<VerifyOptions>,
  events: { from: number; until: number } | null,
): Promise<CampaignResult> {
  const { repos } = deps;
  const result: CampaignResult = { counterIssues: new Map(), other: [], inFlight: [], cycles: 0, counters: 0, events: 0 };
  const passes = Math.max(1, Math.ceil((await repos.limitCounters.countOfCampaign(campaign.id)) / o.maxKeys));
  for (let pass = 0; pass < passes; pass++) {
    const first = pass === 0;
    const recount = new Recount(campaign.id);
    const orders = new OrderGroups(result.other);
    const expected = new ExpectedEvents(deps, applicationId, result);
    for await (const row of rows((after) => repos.redemptions.campaignPage(campaign.id, after, o.pageSize), o.pageSize)) {
      // A placeholder of abandoned attempts (no state), or another application's: not a cycle of this one.
      if (!row.state || String(row.application) !== applicationId) continue;
      if (row.state === 'completed') {
        for (const id of row.counters ?? []) if (id === campaign.id ? first : shareOf(id, passes) === pass) recount.count(id, row);
      }
      // A revert counts in its redemption's results (docs/results.md).
      if (row.state === 'reverted')
        for (const id of row.counters ?? []) if (kindOfCounter(id) === 'results' && shareOf(id, passes) === pass) recount.reverted(id, row);
      if (!first) continue;
      result.cycles++;
      orders.see(row);
      if (events) await expected.of(row, events);
    }
    orders.flush();
    await expected.flush();
    await compareCounters(deps, applicationId, campaign, recount, { pass, passes, pageSize: o.pageSize }, result);
    if (first) result.other.push(...recount.overLimits(campaign));
    else result.other.push(...recount.overLimits(campaign, false));
  }
  return result;
}

/** The completed redemptions counted per counter id, and the campaign counter's per period; their budget amounts (cents) per counter id. */
class Recount {
  total = 0;
  /** Invariant checked: a counter's `amt` = the `budgetCents` of its completed cycles + its lanes' unsettled amounts. */
  readonly amounts = new Map<string, number>();
  readonly days = new Map<string, number>();
  readonly weeks = new Map<string, number>();
  readonly months = new Map<string, number>();
  /** The campaign counter's money per period (its `d.a`, `w.a`, `m.a`), in cents. */
  readonly dayAmounts = new Map<string, number>();
  readonly weekAmounts = new Map<string, number>();
  readonly monthAmounts = new Map<string, number>();
  /** Customer, code and results counters of this pass. */
  readonly counts = new Map<string, number>();
  /** Results counters of this pass: their reverts, and the amounts of their redemptions that stand. */
  readonly results = new Map<string, ResultFigures>();
  constructor(private readonly campaignId: string) {}

  count(id: string, row: JournalRow) {
    if (row.budgetCents) this.amounts.set(id, (this.amounts.get(id) ?? 0) + row.budgetCents);
    if (kindOfCounter(id) === 'results') {
      this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
      const r = this.resultsOf(id);
      r.disc += row.discountCents ?? 0;
      r.cb += row.cashbackCents ?? 0;
      r.bsk += row.basketCents ?? 0;
      const h = hourOf(r, row.hour);
      h.n++;
      h.d += row.discountCents ?? 0;
      h.c += row.cashbackCents ?? 0;
      h.b += row.basketCents ?? 0;
      h.a += row.budgetCents ?? 0;
      return;
    }
    if (id !== this.campaignId) {
      this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
      return;
    }
    this.total++;
    const bump = (m: Map<string, number>, k: string | undefined, by = 1) => k && m.set(k, (m.get(k) ?? 0) + by);
    bump(this.days, row.periods?.day);
    bump(this.weeks, row.periods?.week);
    bump(this.months, row.periods?.month);
    if (!row.budgetCents) return;
    bump(this.dayAmounts, row.periods?.day, row.budgetCents);
    bump(this.weekAmounts, row.periods?.week, row.budgetCents);
    bump(this.monthAmounts, row.periods?.month, row.budgetCents);
  }

  reverted(id: string, row: JournalRow) {
    const r = this.resultsOf(id);
    r.rv++;
    hourOf(r, row.hour).rv++;
  }

  resultsOf(id: string): ResultFigures {
    let r = this.results.get(id);
    if (!r) this.results.set(id, (r = noResults()));
    return r;
  }

  /** The recount above the campaign's limits as they are now (`campaignWide` false: the per-customer and code limits only). */
  overLimits(campaign: Campaign, campaignWide = true): Discrepancy[] {
    const out: Discrepancy[] = [];
    const l = campaign.limits;
    const over = (counter: string, what: string, limit: number | null | undefined, n: number) => {
      if (!limit || n <= limit) return;
      out.push({
        kind: 'limit_exceeded',
        message: `${what}: ${n} completed redemptions, the limit is ${limit} — exceeded, or the limit was lowered since (the audit log's campaign.update entries say when)`,
        documents: [campaignRef(campaign.id), counterRef(counter)],
        expected: limit,
        found: n,
      });
    };
    if (campaignWide) {
      over(campaign.id, 'total', l.total, this.total);
      for (const [k, n] of this.days) over(campaign.id, `day ${k}`, l.perDay, n);
      for (const [k, n] of this.weeks) over(campaign.id, `week ${k}`, l.perWeek, n);
      for (const [k, n] of this.months) over(campaign.id, `month ${k}`, l.perMonth, n);
    }
    for (const [id, n] of this.counts) {
      if (kindOfCounter(id) === 'results') continue; // no limit
      if (id.includes(':u:')) over(id, `customer ${id.slice(id.indexOf(':u:') + 3)}`, l.perCustomer, n);
      else over(id, `code ${id.slice(id.indexOf(':b:') + 3)}`, campaign.bulkCodeUsageLimit ?? 1, n);
    }
    // A money budget is a limit on cents given away (docs/budgets.md): the completed cycles'
    // budget amounts against each of its caps, as they are now.
    const b = campaign.budget;
    if (!b) return out;
    const overBudget = (counter: string, what: string, capCents: number | null, cents: number) => {
      if (capCents === null || cents <= capCents) return;
      out.push({
        kind: 'limit_exceeded',
        message: `${what}: ${cents} cents given away by completed redemptions, the budget is ${capCents} — exceeded, or the budget was lowered since (the audit log's campaign.update entries say when)`,
        documents: [campaignRef(campaign.id), counterRef(counter)],
        expected: capCents,
        found: cents,
      });
    };
    if (campaignWide) {
      overBudget(campaign.id, 'budget in total', b.totalCents, this.amounts.get(campaign.id) ?? 0);
      for (const [k, cents] of this.dayAmounts) overBudget(campaign.id, `budget of day ${k}`, b.perDayCents, cents);
      for (const [k, cents] of this.weekAmounts) overBudget(campaign.id, `budget of week ${k}`, b.perWeekCents, cents);
      for (const [k, cents] of this.monthAmounts) overBudget(campaign.id, `budget of month ${k}`, b.perMonthCents, cents);
    }
    for (const [id, cents] of this.amounts)
      if (id.includes(':u:')) overBudget(id, `budget of customer ${id.slice(id.indexOf(':u:') + 3)}`, b.perCustomerCents, cents);
    return out;
  }
}

/** An order's cycles are adjacent in `_id` order (`<campaign>:<order ref>:<cycle>`): at most one may be completed. */
class OrderGroups {
  private prefix: string | null = null;
  /** Completed cycles of the current prefix per order id (an order ref shared by two orders holds both). */
  private completed = new Map<string, string[]>();
  constructor(private readonly out: Discrepancy[]) {}

  see(row: JournalRow) {
    const prefix = row._id.slice(0, row._id.lastIndexOf(':'));
    if (prefix !== this.prefix) this.flush();
    this.prefix = prefix;
    if (row.state !== 'completed') return;
    const ids = this.completed.get(row.orderId) ?? [];
    ids.push(row._id);
    this.completed.set(row.orderId, ids);
  }

  flush() {
    for (const [orderId, ids] of this.completed) {
      if (ids.length > 1)
        this.out.push({
          kind: 'order_redeemed_twice',
          message: `order ${orderId} has ${ids.length} completed cycles of one campaign`,
          documents: ids.map(cycleRef),
          expected: 1,
          found: ids.length,
        });
    }
    this.completed = new Map();
    this.prefix = null;
  }
}

/** The events completed and reverted cycles must have, looked up in batches. */
class ExpectedEvents {
  private batch: { eventId: string; cycleId: string; type: string }[] = [];
  constructor(
    private readonly deps: Deps,
    private readonly applicationId: string,
    private readonly result: CampaignResult,
  ) {}

  async of(row: JournalRow, window: { from: number; until: number }) {
    const within = (d: Date | undefined) => !!d && d.getTime() >= window.from && d.getTime() <= window.until;
    const expect = (type: 'redemption.completed' | 'redemption.reverted') =>
      this.batch.push({ eventId: eventIdOf(this.applicationId, type, `redemption:${row._id}`), cycleId: row._id, type });
    if ((row.state === 'completed' || row.state === 'reverted') && within(row.createdAt)) expect('redemption.completed');
    if (row.state === 'reverted' && within(row.updatedAt)) expect('redemption.reverted');
    if (this.batch.length >= EVENT_BATCH) await this.flush();
  }

  async flush() {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    const stored = await this.deps.repos.events.existing(batch.map((b) => b.eventId));
    this.result.events += batch.length;
    for (const b of batch) {
      if (stored.has(b.eventId)) continue;
      this.result.other.push({
        kind: 'event_missing',
        message: `cycle ${b.cycleId} has no ${b.type} event`,
        documents: [cycleRef(b.cycleId), { collection: 'events', id: b.eventId }],
        expected: b.eventId,
      });
    }
  }
}

/** A results counter's figures besides its total (docs/results.md): reverts, amounts in cents, and each local hour's (`h14`). */
interface ResultFigures {
  rv: number;
  disc: number;
  cb: number;
  bsk: number;
  hours: Map<number, HourFigures>;
}

/** One hour's figures of a results counter, as its `hHH` field holds them. */
interface HourFigures {
  n: number;
  rv: number;
  d: number;
  c: number;
  b: number;
  a: number;
}

const noResults = (): ResultFigures => ({ rv: 0, disc: 0, cb: 0, bsk: 0, hours: new Map() });

/** The figures of `hour` (0-23) in `r`, created at 0; a cycle journaled without its hour counts in hour 0, where the counter put it. */
function hourOf(r: ResultFigures, hour: number | null | undefined): HourFigures {
  const k = hour ?? 0;
  let h = r.hours.get(k);
  if (!h) r.hours.set(k, (h = { n: 0, rv: 0, d: 0, c: 0, b: 0, a: 0 }));
  return h;
}

/** A counter's figures: what it holds, and what the recount and its uncommitted lanes say it should. */
interface Figures {
  total: number;
  d?: number;
  w?: number;
  m?: number;
}

/** Reads the campaign's counters of this pass and compares each with the recount (and its lanes). */
async function compareCounters(
  deps: Deps,
  applicationId: string,
  campaign: Campaign,
  recount: Recount,
  p: { pass: number; passes: number; pageSize: number },
  result: CampaignResult,
): Promise<void> {
  const { repos } = deps;
  const unseen = new Set(recount.counts.keys());
  let campaignCounterSeen = false;
  for await (const doc of rows((after) => repos.limitCounters.campaignPage(campaign.id, after, p.pageSize), p.pageSize)) {
    const isCampaign = doc._id === campaign.id;
    if (isCampaign ? p.pass !== 0 : shareOf(doc._id, p.passes) !== p.pass) continue;
    if (String(doc.application) !== applicationId) continue;
    result.counters++;
    unseen.delete(doc._id);
    if (isCampaign) campaignCounterSeen = true;
    const isResults = doc.kind === 'results';
    const pending = await pendingSteps(deps, applicationId, campaign.id, doc, result);
    if (pending === null) continue; // a lane in a format this verifier does not read: in flight, not compared
    const periodOf = (f: PeriodCount | undefined, m: Map<string, number>, step: Map<string, number>) =>
      f ? (m.get(f.k) ?? 0) + (step.get(f.k) ?? 0) : undefined;
    const want: Figures = isCampaign
      ? {
          total: recount.total + pending.total,
          d: periodOf(doc.d, recount.days, pending.days),
          w: periodOf(doc.w, recount.weeks, pending.weeks),
          m: periodOf(doc.m, recount.months, pending.months),
        }
      : { total: (recount.counts.get(doc._id) ?? 0) + pending.total };
    // A results counter that no completed redemption counts in any more (all reverted) is seen too.
    if (isResults) unseen.delete(doc._id);
    const issues: Discrepancy[] = [];
    const compare = (what: string, has: number | undefined, should: number | undefined) => {
      if (has === should) return;
      issues.push({
        kind: 'counter_mismatch',
        message: `${what} is ${has}, the journal's completed redemptions${pending.lanes ? ' and the lanes in flight' : ''} say ${should}`,
        documents: [counterRef(doc._id), ...pending.refs],
        expected: should,
        found: has,
      });
    };
    compare('total', doc.total, want.total);
    if (isResults) {
      const r = recount.results.get(doc._id) ?? noResults();
      const p = pending.results;
      compare('reverts (rv)', doc.rv ?? 0, r.rv + p.rv);
      compare('discount (cents, disc)', doc.disc ?? 0, r.disc + p.disc);
      compare('cashback (cents, cb)', doc.cb ?? 0, r.cb + p.cb);
      compare('basket (cents, bsk)', doc.bsk ?? 0, r.bsk + p.bsk);
      // Each local hour's figures the same way (what a read by hour shows).
      const held = doc as unknown as Record<string, Partial<HourFigures> | undefined>;
      for (let hour = 0; hour < 24; hour++) {
        const field = hourField(hour);
        const want = r.hours.get(hour);
        const plus = p.hours.get(hour);
        const stored = held[field];
        if (!stored && !want && !plus) continue;
        for (const k of ['n', 'rv', 'd', 'c', 'b', 'a'] as const)
          compare(`hour ${field.slice(1)} ${k}`, stored?.[k] ?? 0, (want?.[k] ?? 0) + (plus?.[k] ?? 0));
      }
    }
    const amount = (recount.amounts.get(doc._id) ?? 0) + pending.amt;
    if ((doc.amt ?? 0) !== amount)
      issues.push({
        kind: 'counter_mismatch',
        message: `amt (cents spent) is ${doc.amt ?? 0}, the budget amounts of the journal's completed redemptions${pending.lanes ? ' and the lanes in flight' : ''} say ${amount}`,
        documents: [counterRef(doc._id), ...pending.refs],
        expected: amount,
        found: doc.amt ?? 0,
      });
    if (isCampaign) {
      compare(`day ${doc.d?.k}`, doc.d?.n, want.d);
      compare(`week ${doc.w?.k}`, doc.w?.n, want.w);
      compare(`month ${doc.m?.k}`, doc.m?.n, want.m);
      // The money of each current period (a budget's per day / week / month: docs/budgets.md).
      const money = (f: PeriodCount | undefined, m: Map<string, number>, step: Map<string, number>) =>
        f ? (m.get(f.k) ?? 0) + (step.get(f.k) ?? 0) : undefined;
      const cents = (f: PeriodCount | undefined) => (f ? (f.a ?? 0) : undefined);
      compare(`day ${doc.d?.k} amount (cents)`, cents(doc.d), money(doc.d, recount.dayAmounts, pending.amtDays));
      compare(`week ${doc.w?.k} amount (cents)`, cents(doc.w), money(doc.w, recount.weekAmounts, pending.amtWeeks));
      compare(`month ${doc.m?.k} amount (cents)`, cents(doc.m), money(doc.m, recount.monthAmounts, pending.amtMonths));
    }
    if (issues.length) result.counterIssues.set(doc._id, issues);
  }
  const missing = (id: string, n: number) =>
    result.counterIssues.set(id, [
      {
        kind: 'counter_missing',
        message: `${n} completed redemptions count in counter ${id}, which does not exist`,
        documents: [counterRef(id), campaignRef(campaign.id)],
        expected: n,
        found: 'none',
      },
    ]);
  if (p.pass === 0 && !campaignCounterSeen && recount.total > 0) missing(campaign.id, recount.total);
  for (const id of unseen) missing(id, recount.counts.get(id)!);
}

interface Pending {
  total: number;
  /** Cents the unsettled lanes count in `amt`, and in each period's `a`. */
  amt: number;
  amtDays: Map<string, number>;
  amtWeeks: Map<string, number>;
  amtMonths: Map<string, number>;
  days: Map<string, number>;
  weeks: Map<string, number>;
  months: Map<string, number>;
  /** A results counter's: the reverts and amounts the unsettled lanes count. */
  results: ResultFigures;
  lanes: number;
  /** The commit points the lanes name. */
  refs: DocumentRef[];
}

/**
 * The steps a counter's lanes hold that are not in the journal yet: their commit point (the cycle,
 * or the stack record of a stack's attempt) does not record the attempt as committed, or a stack
 * committed and its cycle is not written (or moved to reverted) yet. Counted in the counter, not
 * in the recount. Null when a lane is in a format this verifier does not read.
 */
async function pendingSteps(
  deps: Deps,
  applicationId: string,
  campaignId: string,
  doc: LimitCounterDoc,
  result: CampaignResult,
): Promise<Pending | null> {
  const pending: Pending = {
    total: 0,
    amt: 0,
    amtDays: new Map(),
    amtWeeks: new Map(),
    amtMonths: new Map(),
    days: new Map(),
    weeks: new Map(),
    months: new Map(),
    results: noResults(),
    lanes: 0,
    refs: [],
  };
  for (const [lane, held] of Object.entries(doc.lanes ?? {})) {
    if (typeof held !== 'string') {
      result.inFlight.push({ document: counterRef(doc._id), detail: `lane ${lane} holds a change in an older format: not compared` });
      return null;
    }
    const change = laneChange(campaignId, held);
    const point = stackKeyOfAttempt(applicationId, change.key, change.attempt) ?? change.key;
    let committed = (await deps.repos.redemptions.get(point))?.att?.[change.attempt] === 'c';
    // A stack commits at its record before its cycles are written (or moved to reverted): until
    // then the change is in the counter and not yet in the journal the recount reads.
    if (committed && point !== change.key) {
      const state = (await deps.repos.redemptions.get(change.key))?.state;
      committed = change.step > 0 ? !!state : state === 'reverted';
    }
    pending.lanes++;
    pending.refs.push(cycleRef(point));
    result.inFlight.push({
      document: counterRef(doc._id),
      detail: `lane ${lane}: ${change.step > 0 ? 'take' : 'give-back'} of ${change.key} by attempt ${change.attempt}, ${committed ? 'committed, lane not cleared yet' : 'not in the journal yet (counted in the counter)'}`,
    });
    if (committed) continue;
    pending.total += change.step;
    pending.amt += change.step * (change.cents ?? 0);
    if (doc.kind === 'results') {
      const t = change.tally;
      const r = pending.results;
      const h = hourOf(r, t?.hour);
      if (change.step < 0) {
        r.rv++;
        h.rv++;
      }
      r.disc += change.step * (t?.discount ?? 0);
      r.cb += change.step * (t?.cashback ?? 0);
      r.bsk += change.step * (t?.basket ?? 0);
      h.n += change.step;
      h.d += change.step * (t?.discount ?? 0);
      h.c += change.step * (t?.cashback ?? 0);
      h.b += change.step * (t?.basket ?? 0);
      h.a += change.step * (change.cents ?? 0);
      continue;
    }
    if (change.periods) {
      const add = (m: Map<string, number>, k: string, by: number) => m.set(k, (m.get(k) ?? 0) + by);
      const cents = change.step * (change.cents ?? 0);
      add(pending.days, change.periods.day, change.step);
      add(pending.weeks, change.periods.week, change.step);
      add(pending.months, change.periods.month, change.step);
      add(pending.amtDays, change.periods.day, cents);
      add(pending.amtWeeks, change.periods.week, cents);
      add(pending.amtMonths, change.periods.month, cents);
    }
  }
  return pending;
}

/** One balance of a page, with what its slots hold. */
interface BalanceState {
  id: string;
  points: number;
  version: number;
  buckets: Bucket[] | undefined;
  before: Float64Array;
  after: Float64Array;
  seen: Uint8Array;
  /** The buckets the entry at the last applied slot recorded (undefined: it recorded none). */
  lastBuckets: Bucket[] | undefined;
  /** The balance's earning counters of capped rules, and the applied entries' recount of them (`<rule>\u0000<period>`: credits add, returns subtract). */
  periodCounters: EarnedInPeriod[];
  recounted: Map<string, number>;
  /** The balance's tier, and the one the entry at the last applied slot recorded (undefined: it recorded none). */
  tier: TierRecord | undefined;
  lastTier: TierRecord | null | undefined;
  /** The applied entries that touched the tier, by slot: a cleared tier (null), or what they counted (signed). */
  tierMoves: Map<number, { month: string; hundredths: number } | null>;
}

/** Every balance of the application against its ledger, a page of balances (and the slots of their range) at a time. */
async function verifyBalances(
  deps: Deps,
  applicationId: string,
  o: Required<VerifyOptions>,
  found: Findings,
  checked: VerifyReport['checked'],
): Promise<void> {
  const { repos } = deps;
  const end = `${applicationId};`;
  // The slot ranges of consecutive pages meet, so an entry of no balance is found wherever it lies.
  let from = `${applicationId}:`;
  let after: string | null = null;
  for (;;) {
    const page = await repos.walletBalances.applicationPage(applicationId, after, o.pageSize);
    const last = page.length < o.pageSize;
    const to = last ? end : `${page[page.length - 1]!._id};`;
    const states = new Map<string, BalanceState>(
      page.map((b) => {
        const version = b.version ?? 0;
        return [
          b._id,
          {
            id: b._id,
            points: b.points,
            version,
            buckets: b.buckets ?? undefined,
            before: new Float64Array(version),
            after: new Float64Array(version),
            seen: new Uint8Array(version),
            lastBuckets: undefined,
            periodCounters: b.periodCounters ?? [],
            recounted: new Map(),
            tier: b.tier ?? undefined,
            lastTier: undefined,
            tierMoves: new Map(),
          },
        ];
      }),
    );
    for await (const e of rows((a) => repos.walletTransactions.slotPage(applicationId, { from, to }, a, o.pageSize), o.pageSize)) {
      checked.entries++;
      const cut = e._id.lastIndexOf(':');
      const slot = Number(e._id.slice(cut + 1));
      const st = states.get(e._id.slice(0, cut));
      const entry = { collection: 'wallet_transactions', id: e._id };
      if (!st || !Number.isInteger(slot) || slot > st.version) {
        found.add({
          kind: 'ledger_orphan',
          message: st ? `an entry at slot ${slot}, past the balance's next slot ${st.version}` : 'a ledger entry of no balance',
          documents: [entry, ...(st ? [{ collection: 'wallet_balances', id: st.id }] : [])],
        });
        continue;
      }
      if (slot === st.version) {
        found.flight({
          document: entry,
          detail: "written at the balance's next slot, not applied yet (the next operation rolls it forward)",
        });
        continue;
      }
      if (e.state !== 'posted' || e.seq !== slot || e.before === null || e.after === null) {
        found.add({
          kind: 'ledger_chain',
          message: `the entry at slot ${slot} is ${e.state} with seq ${e.seq}`,
          documents: [entry, { collection: 'wallet_balances', id: st.id }],
        });
        continue;
      }
      st.seen[slot] = 1;
      st.before[slot] = e.before!;
      st.after[slot] = e.after!;
      if (slot === st.version - 1) {
        st.lastBuckets = e.buckets ?? undefined;
        st.lastTier = e.tier;
      }
      if (e.tier === null) st.tierMoves.set(slot, null);
      else if (e.tierCounted)
        st.tierMoves.set(slot, { month: e.tierCounted.month, hundredths: (e.type === 'debit' ? -1 : 1) * e.tierCounted.hundredths });
      for (const c of e.periodCounted ?? []) {
        const key = `${c.rule}\u0000${c.period}`;
        st.recounted.set(key, (st.recounted.get(key) ?? 0) + (e.type === 'debit' ? -c.hundredths : c.hundredths));
      }
    }
    for (const st of states.values()) {
      checked.balances++;
      checkBalance(st, found);
    }
    if (last) return;
    after = page[page.length - 1]!._id;
    from = to;
  }
}

const slotRef = (balanceId: string, v: number): DocumentRef => ({ collection: 'wallet_transactions', id: `${balanceId}:${v}` });
const bucketKey = (bs: Bucket[] = []) =>
  JSON.stringify(
    bs.map((b) => [b.id, b.points, b.availableAt ? +new Date(b.availableAt) : null, b.expiresAt ? +new Date(b.expiresAt) : null]),
  );
const sameBuckets = (a: Bucket[] | undefined, b: Bucket[] | undefined) => bucketKey(a) === bucketKey(b);

/** A balance against the entries at its slots (the invariants of shared/usecases/wallet-ledger.ts and shared/domain/point-buckets.ts). */
function checkBalance(st: BalanceState, found: Findings): void {
  const balance: DocumentRef = { collection: 'wallet_balances', id: st.id };
  const gaps: number[] = [];
  let sum = 0;
  for (let v = 0; v < st.version; v++) {
    if (!st.seen[v]) {
      gaps.push(v);
      continue;
    }
    sum += st.after[v]! - st.before[v]!;
    const start = v === 0 ? 0 : st.seen[v - 1] ? st.after[v - 1]! : null;
    if (start !== null && st.before[v] !== start)
      found.add({
        kind: 'ledger_chain',
        message: `the entry at slot ${v} starts at ${st.before[v]}, the one before ended at ${start}`,
        documents: [slotRef(st.id, v), ...(v > 0 ? [slotRef(st.id, v - 1)] : []), balance],
        expected: start,
        found: st.before[v]!,
      });
    if (st.after[v]! < 0)
      found.add({ kind: 'ledger_chain', message: `the entry at slot ${v} ends below 0`, documents: [slotRef(st.id, v), balance] });
  }
  if (gaps.length > 0)
    found.add({
      kind: 'ledger_gap',
      message: `${gaps.length} of ${st.version} applied slots hold no entry (${gaps.slice(0, 10).join(', ')}${gaps.length > 10 ? ', …' : ''})`,
      documents: [...gaps.slice(0, 10).map((v) => slotRef(st.id, v)), balance],
      expected: st.version,
      found: st.version - gaps.length,
    });
  const lastAfter = st.version === 0 ? 0 : st.seen[st.version - 1] ? st.after[st.version - 1]! : null;
  if ((lastAfter !== null && lastAfter !== st.points) || (gaps.length === 0 && sum !== st.points))
    found.add({
      kind: 'balance_mismatch',
      message: `the balance holds ${st.points}, its ledger ${gaps.length ? `ends at ${lastAfter}` : `sums to ${sum}`} (hundredths)`,
      documents: [balance, ...(st.version > 0 ? [slotRef(st.id, st.version - 1)] : [])],
      expected: gaps.length ? lastAfter! : sum,
      found: st.points,
    });
  if (st.points < 0) found.add({ kind: 'balance_mismatch', message: 'the balance is below 0', documents: [balance], found: st.points });
  checkBuckets(st, balance, found);
  if (gaps.length === 0) checkTier(st, balance, found);
  for (const c of st.periodCounters) {
    const recount = st.recounted.get(`${c.rule}\u0000${c.period}`) ?? 0;
    if (gaps.length === 0 && recount !== c.hundredths)
      found.add({
        kind: 'period_counter_mismatch',
        message: `the balance counts ${c.hundredths} earned under "${c.rule}" in ${c.period}, its ledger ${recount} (hundredths)`,
        documents: [balance],
        expected: recount,
        found: c.hundredths,
      });
  }
}

function checkBuckets(st: BalanceState, balance: DocumentRef, found: Findings): void {
  const buckets = st.buckets ?? [];
  const problems: string[] = [];
  if (buckets.some((b) => !(b.points > 0))) problems.push('a bucket holds no points');
  if (buckets.some((b) => !b.availableAt && !b.expiresAt)) problems.push('a spendable bucket has no expiry');
  const spendable = buckets.filter((b) => !b.availableAt).reduce((a, b) => a + b.points, 0);
  if (spendable > st.points) problems.push(`the spendable buckets hold ${spendable}, more than the balance's ${st.points}`);
  if (st.version > 0 && st.seen[st.version - 1] && st.lastBuckets !== undefined && !sameBuckets(st.lastBuckets, st.buckets))
    problems.push('the buckets differ from those the last entry recorded');
  for (const p of problems)
    found.add({
      kind: 'buckets_mismatch',
      message: p,
      documents: [balance, ...(st.version > 0 ? [slotRef(st.id, st.version - 1)] : [])],
    });
}

const tierKey = (t: TierRecord | null | undefined) =>
  t
    ? JSON.stringify([
        t.level,
        t.held,
        +new Date(t.until),
        t.due ? +new Date(t.due) : null,
        [...t.earned].sort((a, b) => a.month.localeCompare(b.month)).map((e) => [e.month, e.hundredths]),
      ])
    : null;

/**
 * A balance's tier against its entries (shared/domain/tiers.ts): the tier its last entry recorded,
 * and each month the tier keeps against the entries' recount since it last started (a month it no
 * longer keeps, dropped at a re-assessment, is not compared).
 */
function checkTier(st: BalanceState, balance: DocumentRef, found: Findings): void {
  const last = st.version > 0 ? [slotRef(st.id, st.version - 1)] : [];
  if (st.lastTier !== undefined && tierKey(st.lastTier) !== tierKey(st.tier))
    found.add({
      kind: 'tier_mismatch',
      message: `the tier is ${st.tier ? `"${st.tier.level}"` : 'none'}, its last entry recorded ${st.lastTier ? `"${st.lastTier.level}"` : 'none'}${st.tier?.level === st.lastTier?.level ? ' with other figures' : ''}`,
      documents: [balance, ...last],
      expected: st.lastTier?.level ?? 'none',
      found: st.tier?.level ?? 'none',
    });
  if (!st.tier) return;
  const recount = new Map<string, number>();
  for (const slot of [...st.tierMoves.keys()].sort((a, b) => a - b)) {
    const move = st.tierMoves.get(slot)!;
    if (move === null) recount.clear();
    else recount.set(move.month, (recount.get(move.month) ?? 0) + move.hundredths);
  }
  for (const e of st.tier.earned) {
    const counted = recount.get(e.month) ?? 0;
    if (counted !== e.hundredths)
      found.add({
        kind: 'tier_mismatch',
        message: `the tier counts ${e.hundredths} earned in ${e.month}, its ledger ${counted} (hundredths)`,
        documents: [balance, ...last],
        expected: counted,
        found: e.hundredths,
      });
  }
}

// --- Gift cards and store credit (docs/gift-cards.md, shared/usecases/gift-card-ledger.ts) ---------

/** One card of a page: what it holds, and what the entries at its applied slots add up to. */
interface CardRecount {
  id: string;
  balance: number;
  version: number;
  sum: number;
  seen: number;
  /** The balance the entry at slot `version - 1` left (null: none read). */
  lastAfter: number | null;
}

const cardRef = (id: string): DocumentRef => ({ collection: 'gift_cards', id });
const cardEntryRef = (id: string): DocumentRef => ({ collection: 'gift_card_entries', id });

/**
 * Every gift card of the application against its ledger, a page of cards (and the slots of their
 * range: ranges of consecutive pages meet) at a time. An entry at a card's next slot is in flight
 * (the next writer rolls it forward); one of no card is an issue that failed before its card was
 * created (the issue writes its entry first): never applied, so never a discrepancy.
 */
async function verifyGiftCards(
  deps: Deps,
  applicationId: string,
  o: Required<VerifyOptions>,
  found: Findings,
  checked: VerifyReport['checked'],
): Promise<void> {
  const { giftCards } = deps.repos;
  let from = '';
  let after: string | null = null;
  for (;;) {
    const page = await giftCards.verifierPage(applicationId, after, o.pageSize);
    const last = page.length < o.pageSize;
    const to = last ? '~' : `${page[page.length - 1]!.id};`;
    const cards = new Map<string, CardRecount>(page.map((c) => [c.id, { ...c, sum: 0, seen: 0, lastAfter: null }]));
    for await (const e of rows((a) => giftCards.slotPage(applicationId, { from, to }, a, o.pageSize), o.pageSize)) {
      checked.gift_card_entries++;
      const cut = e._id.lastIndexOf(':');
      const slot = Number(e._id.slice(cut + 1));
      const card = cards.get(e._id.slice(0, cut));
      if (!card) {
        found.flight({ document: cardEntryRef(e._id), detail: 'an issue whose card was never created (never applied)' });
        continue;
      }
      if (slot === card.version) {
        found.flight({
          document: cardEntryRef(e._id),
          detail: "written at the card's next slot, not applied yet (the next writer rolls it forward)",
        });
        continue;
      }
      if (!Number.isInteger(slot) || slot > card.version) {
        found.add({
          kind: 'gift_card_balance_mismatch',
          message: `an entry at slot ${e._id.slice(cut + 1)}, past the card's next slot ${card.version}`,
          documents: [cardEntryRef(e._id), cardRef(card.id)],
        });
        continue;
      }
      card.sum += e.amount;
      card.seen++;
      if (slot === card.version - 1) card.lastAfter = e.after;
      if (e.after < 0)
        found.add({
          kind: 'gift_card_negative',
          message: `the entry at slot ${slot} leaves the card below 0`,
          documents: [cardEntryRef(e._id), cardRef(card.id)],
          found: e.after,
        });
    }
    for (const card of cards.values()) {
      checked.gift_cards++;
      checkGiftCard(card, found);
    }
    if (last) return;
    after = page[page.length - 1]!.id;
    from = to;
  }
}

/** A card against its applied entries (cents): balance == sum of their amounts, one per slot below the version, never below 0. */
function checkGiftCard(card: CardRecount, found: Findings): void {
  const ref = cardRef(card.id);
  const lastSlot = card.version > 0 ? [cardEntryRef(`${card.id}:${card.version - 1}`)] : [];
  if (card.seen !== card.version)
    found.add({
      kind: 'gift_card_balance_mismatch',
      message: `${card.version - card.seen} of its ${card.version} applied slots hold no entry`,
      documents: [ref],
      expected: card.version,
      found: card.seen,
    });
  else if (card.sum !== card.balance || (card.lastAfter !== null && card.lastAfter !== card.balance))
    found.add({
      kind: 'gift_card_balance_mismatch',
      message: `the card holds ${card.balance}, its ledger sums to ${card.sum} and its last entry left ${card.lastAfter} (cents)`,
      documents: [ref, ...lastSlot],
      expected: card.sum,
      found: card.balance,
    });
  if (card.balance < 0) found.add({ kind: 'gift_card_negative', message: 'the card is below 0', documents: [ref], found: card.balance });
}
