/** Admin read of the redemption journal. */
import type { Services } from '../../services.js';
import { campaignCounterId, type PeriodKeys } from '../../data/limit-counter.repository.js';
import type { LimitCounterDoc } from '../../data/limit-counter.schema.js';
import { fromCents } from '../../domain/money.js';
import { periodKeys } from '../../domain/periods.js';
import type { Budget } from '../../domain/types.js';
import { adminInvalid, adminNotFound } from '../../admin-errors.js';
import { requireApplication } from './applications.usecase.js';
import { requireCustomer } from './customers.usecase.js';
import { pageOf, parsePageQuery, timeCursor } from './paging.js';

type Deps = Pick<Services, 'repos'>;

/**
 * A page of the journal, newest first, optionally of one customer (its `source_id` or id,
 * archived or not), one campaign (archived or not), one order (`order_id`: its cycles with every
 * campaign) or the orders whose id begins with `order_id_prefix`, one state, and a time range
 * [`from`, `to`). Each row names its campaign and its customer as people know them (the
 * campaign's name, the customer's `source_id` and name): two reads per page, by the page's ids.
 */
export async function listRedemptions(deps: Deps, applicationId: string, query: unknown = {}) {
  await requireApplication(deps, applicationId);
  const q = parsePageQuery(query, ['customer', 'campaign', 'order_id', 'order_id_prefix', 'state', 'from', 'to']);
  if (q.from && q.to && !(q.from < q.to)) throw adminInvalid('"from" must be before "to"');
  if (q.orderId !== undefined && q.orderIdPrefix !== undefined)
    throw adminInvalid('"order_id" and "order_id_prefix" cannot be sent together');
  const customerId = q.customer !== undefined ? (await requireCustomer(deps, applicationId, q.customer)).id : undefined;
  if (q.campaign !== undefined && !(await deps.repos.campaigns.findById(applicationId, q.campaign))) throw adminNotFound('campaign');
  const campaignIds =
    q.orderId === undefined
      ? []
      : q.campaign !== undefined
        ? [q.campaign]
        : (await deps.repos.campaigns.listByApplication(applicationId)).map((c) => c.id);
  if (q.orderId !== undefined && campaignIds.length === 0) return { redemptions: [], next_cursor: null };
  const rows = await deps.repos.redemptions.list(applicationId, {
    ...(customerId ? { customerId } : {}),
    ...(q.campaign !== undefined ? { campaignId: q.campaign } : {}),
    ...(q.orderId !== undefined ? { order: { orderId: q.orderId, campaignIds } } : {}),
    ...(q.orderIdPrefix !== undefined ? { orderPrefix: q.orderIdPrefix } : {}),
    ...(q.state ? { state: q.state } : {}),
    ...(q.from ? { from: q.from } : {}),
    ...(q.to ? { to: q.to } : {}),
    ...(q.cursor !== undefined ? { before: timeCursor.decode(q.cursor) } : {}),
    limit: q.limit + 1,
  });
  const page = pageOf(rows, q.limit, (r) => timeCursor.encode(r.createdAt, r.id));
  const [campaigns, customers] = await Promise.all([
    deps.repos.campaigns.findByIds(applicationId, [...new Set(page.rows.map((r) => r.campaignId))]),
    deps.repos.customers.findByIds(applicationId, [...new Set(page.rows.map((r) => r.customerId))]),
  ]);
  const campaignName = new Map(campaigns.map((c) => [c.id, c.name]));
  const customer = new Map(customers.map((c) => [c.id, c]));
  return {
    redemptions: page.rows.map((r) => ({
      id: r.id,
      campaign_id: r.campaignId,
      campaign_name: campaignName.get(r.campaignId) ?? null,
      customer_id: r.customerId,
      customer_source_id: customer.get(r.customerId)?.sourceId ?? null,
      customer_name: customer.get(r.customerId)?.name ?? null,
      order_id: r.orderId,
      cycle: r.cycle,
      state: r.state,
      coupon_code: r.code,
      discount: r.discountCents / 100,
      cashback: r.cashbackCents / 100,
      periods: r.periods,
      refusal: r.refusal,
      created_at: r.createdAt,
    })),
    next_cursor: page.next_cursor,
  };
}

/** One limit's figures: what it allows, what is used in its current period, what is left (null: no limit). */
const limitUsage = (limit: number | null | undefined, used: number | null, period?: string) => ({
  limit: limit ?? null,
  used,
  remaining: limit === null || limit === undefined || used === null ? null : Math.max(0, limit - used),
  ...(period !== undefined ? { period } : {}),
});

/**
 * A campaign's usage now: the cycles of its journal by state (`redeemed` = completed and not
 * reverted, what the limits count), and each campaign-wide limit with its use in the current
 * day, ISO week and month of the application's timezone (docs/decisions.md#16). The limits'
 * figures are one read of the campaign's counter; the counts by state one pass over the
 * campaign's journal, growing with its redemptions (docs/admin-api.md "Usage").
 */
export async function campaignUsage(deps: Pick<Services, 'repos' | 'now'>, applicationId: string, campaignId: string) {
  const app = await requireApplication(deps, applicationId);
  const campaign = await deps.repos.campaigns.findById(applicationId, campaignId);
  if (!campaign) throw adminNotFound('campaign');
  const now = deps.now();
  const keys = periodKeys(now, app.timezone);
  const [byState, counter] = await Promise.all([
    deps.repos.redemptions.countByState(campaignId),
    deps.repos.limitCounters.find(campaignCounterId(campaignId)),
  ]);
  const redeemed = byState.completed ?? 0;
  const l = campaign.limits;
  // Periods are counted only for campaigns with a campaign-wide limit (docs/architecture.md,
  // limit counters): otherwise a period's use is not known (null), and no limit needs it.
  const counted = [l.total, l.perDay, l.perWeek, l.perMonth].some((x) => x !== null && x !== undefined);
  const inPeriod = (p: { k: string; n: number } | undefined, key: string) => (!counted ? null : p && p.k === key ? p.n : 0);
  return {
    campaign_id: campaign.id,
    as_of: now.toISOString(),
    redeemed,
    reverted: byState.reverted ?? 0,
    refused: byState.refused ?? 0,
    limits: {
      total: limitUsage(l.total, counter ? counter.total : redeemed),
      per_day: limitUsage(l.perDay, inPeriod(counter?.d, keys.day), keys.day),
      per_week: limitUsage(l.perWeek, inPeriod(counter?.w, keys.week), keys.week),
      per_month: limitUsage(l.perMonth, inPeriod(counter?.m, keys.month), keys.month),
      per_customer: { limit: l.perCustomer ?? null },
    },
    budget: budgetUsage(campaign.budget, counter, keys),
  };
}

/** One money cap's figures in currency units: the cap, what was spent in its current period, what is left (null: no cap). */
const moneyUsage = (capCents: number | null, spentCents: number, period?: string) => ({
  budget: capCents === null ? null : fromCents(capCents),
  spent: fromCents(spentCents),
  left: capCents === null ? null : fromCents(Math.max(0, capCents - spentCents)),
  ...(period !== undefined ? { period } : {}),
});

/** A campaign's budget as spent so far (docs/budgets.md), from its counter; null without a budget. */
function budgetUsage(budget: Budget | null | undefined, counter: LimitCounterDoc | null, keys: PeriodKeys) {
  if (!budget) return null;
  const spentIn = (p: { k: string; a?: number } | undefined, key: string) => (p && p.k === key ? (p.a ?? 0) : 0);
  const spent = counter?.amt ?? 0;
  return {
    when_exceeded: budget.whenExceeded,
    total: moneyUsage(budget.totalCents, spent),
    per_day: moneyUsage(budget.perDayCents, spentIn(counter?.d, keys.day), keys.day),
    per_week: moneyUsage(budget.perWeekCents, spentIn(counter?.w, keys.week), keys.week),
    per_month: moneyUsage(budget.perMonthCents, spentIn(counter?.m, keys.month), keys.month),
    per_customer: { budget: budget.perCustomerCents === null ? null : fromCents(budget.perCustomerCents) },
    share_spent: budget.totalCents ? Math.min(100, Math.floor((spent * 100) / budget.totalCents)) : null,
  };
}
