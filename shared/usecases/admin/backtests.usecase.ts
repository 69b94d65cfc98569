/**
 * Backtests (docs/results.md "Backtests"): a draft campaign, a change to a live one, or a live one
 * as it is, replayed over a period of the application's recorded carts. Asked here (checked as
 * create or update would check the campaign, then queued), run by a worker's backtest pool
 * (shared/usecases/backtest-run.ts), read here with their progress and figures.
 */
import Joi from 'joi';
import { adminInvalid, adminNotFound, queuesNotConnected } from '../../admin-errors.js';
import type { ApplicationRecord } from '../../data/application.repository.js';
import type { BacktestRecord } from '../../data/backtest.repository.js';
import type { BacktestFigures, ChangedCart, Side, Verdict } from '../../domain/backtest.js';
import { fromCents } from '../../domain/money.js';
import { periodKeys, zonedLocalToUtc } from '../../domain/periods.js';
import type { Campaign } from '../../domain/types.js';
import type { BacktestQueue } from '../../queue/backtest-queue.js';
import type { Services } from '../../services.js';
import { validateInput } from './admin-input.js';
import { requireApplication } from './applications.usecase.js';
import { checkedDraft, requireCampaign } from './campaigns.usecase.js';
import { addDays, dayField, validDay } from './results.usecase.js';

type Deps = Pick<Services, 'repos' | 'now'>;

/** The longest period a backtest replays, in days; the period when none is given: the last 7 days up to today. */
export const BACKTEST_MAX_DAYS = 366;
const DEFAULT_DAYS = 7;

const askSchema = Joi.object({
  campaign_id: Joi.string().hex().length(24),
  changes: Joi.object(),
  campaign: Joi.object(),
  from: dayField,
  to: dayField,
  carts: Joi.string().valid('presented', 'all'),
})
  .xor('campaign_id', 'campaign')
  .with('changes', 'campaign_id');

interface Ask {
  campaign_id?: string;
  changes?: Record<string, unknown>;
  campaign?: Record<string, unknown>;
  from?: string;
  to?: string;
  carts?: 'presented' | 'all';
}

/** The period asked, in the application's days, and the instants it spans. */
function periodOf(ask: Ask, app: Pick<ApplicationRecord, 'timezone'>, now: Date) {
  for (const f of ['from', 'to'] as const)
    if (ask[f] !== undefined && !validDay(ask[f]!)) throw adminInvalid(`${f} is not a date`, { [f]: `${f} is not a date` });
  const today = periodKeys(now, app.timezone).day;
  const to = ask.to ?? (ask.from && ask.from > today ? ask.from : today);
  const from = ask.from ?? addDays(to, -(DEFAULT_DAYS - 1));
  if (from > to) throw adminInvalid('from should not be after to', { from: 'from should not be after to' });
  if ((Date.parse(to) - Date.parse(from)) / 86_400_000 + 1 > BACKTEST_MAX_DAYS) {
    const message = `at most ${BACKTEST_MAX_DAYS} days`;
    throw adminInvalid(message, { to: message });
  }
  return {
    from,
    to,
    start: zonedLocalToUtc(`${from}T00:00`, app.timezone),
    end: zonedLocalToUtc(`${addDays(to, 1)}T00:00`, app.timezone),
  };
}

/**
 * The campaign a backtest replays. A draft is checked as create checks it, a change as update
 * would; either is replayed as if it had been live (active, not archived) — a draft without
 * `valid_from` from the start of the period.
 */
async function campaignOf(deps: Deps, app: ApplicationRecord, ask: Ask, start: Date) {
  if (ask.campaign) {
    const body = { valid_from: start.toISOString(), ...ask.campaign };
    const { campaign } = await checkedDraft(deps, app.id, body);
    const replayed = { ...campaign, id: 'draft', applicationId: app.id, status: 'active', archivedAt: null } as unknown as Campaign;
    return { kind: 'draft' as const, live: null, replayed };
  }
  const live = await requireCampaign(deps, app.id, ask.campaign_id!);
  const changed = ask.changes ? (await checkedDraft(deps, app.id, ask.changes, live)).campaign : live;
  const replayed = { ...live, ...changed, status: 'active', archivedAt: null } as Campaign;
  return { kind: ask.changes ? ('change' as const) : ('live' as const), live, replayed };
}

/** Asks for a backtest: checked, stored and queued; 202 with it as it stands (queued). */
export async function askBacktest(deps: Deps & { backtests?: BacktestQueue }, applicationId: string, input: unknown) {
  const ask = validateInput(askSchema, input ?? {}) as Ask;
  const app = await requireApplication(deps, applicationId);
  if (ask.campaign && ask.carts === 'presented') {
    const message = 'a draft was presented by no cart: replay all carts';
    throw adminInvalid(message, { carts: message });
  }
  const period = periodOf(ask, app, deps.now());
  const { kind, live, replayed } = await campaignOf(deps, app, ask, period.start);
  if (!deps.backtests) throw queuesNotConnected();
  const created = await deps.repos.backtests.create({
    applicationId,
    kind,
    campaignId: live?.id ?? null,
    name: replayed.name,
    definition: replayed as unknown as Record<string, unknown>,
    ...period,
    carts: ask.carts ?? (kind === 'draft' ? 'all' : 'presented'),
  });
  await deps.backtests.add(created.id);
  return presentBacktest(created, app);
}

export async function listBacktests(deps: Deps, applicationId: string) {
  const app = await requireApplication(deps, applicationId);
  const rows = await deps.repos.backtests.newest(applicationId);
  return { backtests: rows.map((b) => presentBacktest(b, app)) };
}

export async function getBacktest(deps: Deps, applicationId: string, id: string) {
  const app = await requireApplication(deps, applicationId);
  const found = await deps.repos.backtests.findById(applicationId, id);
  if (!found) throw adminNotFound('backtest');
  return presentBacktest(found, app);
}

/** What a backtest's stored result holds: its figures in cents, and the changed carts' customers by source id. */
export type StoredResult = BacktestFigures & { sourceIds: Record<string, string> };

const side = (s: Side) => ({
  orders: s.orders,
  discount: fromCents(s.discountCents),
  cashback: fromCents(s.cashbackCents),
  basket: fromCents(s.basketCents),
  customers: s.customers,
});
const verdict = (v: Verdict) => ({ applied: v.applied, discount: fromCents(v.discountCents), reason: v.reason });
const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** A backtest in the admin API's words: money in the currency's units, customers by source id. */
export function presentBacktest(b: BacktestRecord, app: Pick<ApplicationRecord, 'timezone' | 'currency'>) {
  const r = b.result as StoredResult | null;
  return {
    id: b.id,
    application_id: b.applicationId,
    status: b.status,
    kind: b.kind,
    campaign_id: b.campaignId,
    name: b.name,
    from: b.from,
    to: b.to,
    carts: b.carts,
    timezone: app.timezone,
    currency: app.currency,
    created_at: b.createdAt.toISOString(),
    started_at: iso(b.startedAt),
    finished_at: iso(b.finishedAt),
    progress: { done: b.done, total: b.total },
    error: b.error,
    result: r && {
      replayed: r.replayed,
      backtest: { ...side(r.backtest), checks_valid: r.backtest.checksValid, lists_shown: r.backtest.listsShown },
      actual: r.actual && side(r.actual),
      refusals_by_reason: r.refusalsByReason,
      limits: r.limits.map((l) => ({
        what: l.what,
        period: l.period,
        limit: l.what === 'budget' ? fromCents(l.limit) : l.limit,
        ran_out_at: iso(l.ranOutAt),
        actual_ran_out_at: iso(l.actualRanOutAt),
      })),
      changed: {
        gained: r.changed.gained,
        lost: r.changed.lost,
        different_amount: r.changed.differentAmount,
        carts: r.changed.carts.map((c: ChangedCart) => ({
          at: iso(c.at),
          customer: c.customerId ? (r.sourceIds[c.customerId] ?? null) : null,
          order_id: c.orderId,
          actual: verdict(c.actual),
          backtest: verdict(c.backtest),
        })),
      },
    },
  };
}
