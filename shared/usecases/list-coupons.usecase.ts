/**
 * POST /coupons/list/all — the fixed coupons available to a visitor or a customer (and, for an
 * application that takes them, its automatic promotions: docs/stacking.md), each checked
 * against the order when one is sent (list rules 1-7, docs/decisions.md#11-13). A constant number of
 * database round trips whatever the number of coupons: campaigns come from the in-process cache,
 * the customer is resolved once, usage counters are read in one query.
 */
import { customerTiers } from './customer-tiers.js';
import type { ApplicationRecord } from '../data/application.repository.js';
import { availability } from '../domain/availability.js';
import { evaluateCoupon } from '../domain/engine.js';
import { periodKeys } from '../domain/periods.js';
import type { Services } from '../services.js';
import { bodyNotObject, invalidSourceIdForList } from '../client-errors.js';
import { presentCouponResult, type Presented } from './coupon-result.js';
import { readUsage } from './limit-counters.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Resolves an optional `source_id` (docs/decisions.md#12: unknown → invalid source_id). */
export async function resolveOptionalCustomer(deps: Pick<Services, 'repos'>, applicationId: string, sourceId: unknown) {
  if (sourceId === undefined || sourceId === null || sourceId === '') return null;
  if (typeof sourceId !== 'string' || sourceId.length > 256) throw invalidSourceIdForList();
  const customer = await deps.repos.customers.resolve(applicationId, sourceId.trim());
  if (!customer) throw invalidSourceIdForList();
  return customer;
}

export async function listCoupons(
  deps: Pick<Services, 'repos' | 'campaigns' | 'wallets' | 'now' | 'carts'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion' | 'timezone' | 'stacking' | 'cartRecording'>,
  req: { body: unknown; requestId: string },
): Promise<Presented[]> {
  if (req.body !== undefined && !isObject(req.body)) throw bodyNotObject();
  const body = req.body ?? {};
  const [set, customer] = await Promise.all([deps.campaigns.get(app), resolveOptionalCustomer(deps, app.id, body.source_id)]);
  const now = deps.now();
  // An application that takes automatic promotions lists them after its coupons (docs/stacking.md).
  const offered = app.stacking.automaticPromotions ? [...set.fixed, ...set.automatic] : set.fixed;
  const visible = offered.filter((c) => {
    if (c.assignment === 'assigned_users' && (!customer || !c.assignedCustomerIds.includes(customer.id))) return false;
    const a = availability(c, now, app.timezone);
    return a !== 'expired' && a !== 'not_started'; // docs/decisions.md#13: outside the schedule is listed, not applicable
  });
  const [usage, tiers] = await Promise.all([
    readUsage(deps, app.id, visible, customer?.id ?? null, periodKeys(now, app.timezone)),
    customerTiers(deps, app.id, customer?.id, visible),
  ]);
  const order = body.order === null ? undefined : body.order;
  // For an application that records carts (docs/results.md): the cart, what the list offered is replayed against it.
  deps.carts.record(app, { kind: 'l', at: now, customerId: customer?.id ?? null, order: body.order ?? null });
  return visible.map((campaign) =>
    presentCouponResult({
      campaign,
      code: campaign.code ?? '',
      couponCodeId: campaign.id,
      evaluation: evaluateCoupon({
        now,
        timezone: app.timezone,
        campaign,
        usage: usage.get(campaign.id)!,
        customerKnown: !!customer,
        order,
        ...(tiers ? { customerTiers: tiers } : {}),
      }),
      sourceId: customer ? String(body.source_id) : '',
      requestId: req.requestId,
      endpoint: 'list',
    }),
  );
}
