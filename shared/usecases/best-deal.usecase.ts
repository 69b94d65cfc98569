/**
 * POST /coupons/best-deal (docs/best-deal.md): of the coupons a customer has (the fixed codes list
 * would show them: visible to them, assignment respected) and the automatic promotions their cart
 * gets, the combination that takes the most off the cart under the stacking rules, ready to send to
 * validate and apply. Every candidate's own rules are evaluated once, with its usage now (one read
 * for all: a coupon at a limit, per customer too, is no candidate); the search is
 * shared/domain/best-deal.ts.
 */
import { customerTiers } from './customer-tiers.js';
import type { ApplicationRecord } from '../data/application.repository.js';
import { findBestDeal } from '../domain/best-deal.js';
import { evaluateCoupon } from '../domain/engine.js';
import { parseOrder } from '../domain/order.js';
import { periodKeys } from '../domain/periods.js';
import type { Services } from '../services.js';
import { bodyNotObject, invalidPayload, invalidSourceIdForList, orderRequired, stackingNotEnabled } from '../client-errors.js';
import { presentStack, type StackBody } from './coupon-result.js';
import { resolveOptionalCustomer } from './list-coupons.usecase.js';
import { automaticPromotions, offeredTo, withUsage, type CartCoupon } from './stack.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The best deal's answer (openapi.yaml `BestDeal`). */
export interface BestDealBody {
  /** The chosen coupons, in the order to send them to validate and apply; empty when none applies. */
  coupon_details: { coupon_id: string; coupon_code: string }[];
  /** The chosen coupons and the automatic promotions, as validate's `stack` shows them. */
  stack: StackBody;
  /** How many coupons and automatic promotions were candidates (their own rules pass on this cart for this customer). */
  candidates: number;
  search: 'exact' | 'heuristic';
  request_id: string;
}

export async function bestDeal(
  deps: Pick<Services, 'repos' | 'campaigns' | 'wallets' | 'now'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion' | 'timezone' | 'stacking'>,
  req: { body: unknown; requestId: string },
): Promise<BestDealBody> {
  if (req.body !== undefined && !isObject(req.body)) throw bodyNotObject();
  if (app.stacking.maxCoupons <= 1 && !app.stacking.automaticPromotions) throw stackingNotEnabled();
  const body = req.body ?? {};
  if (body.source_id === undefined || body.source_id === null || body.source_id === '') throw invalidSourceIdForList();
  if (!isObject(body.order)) throw orderRequired();
  const parsed = parseOrder(body.order);
  if (!parsed.ok) throw invalidPayload(parsed.message);

  const [set, customer] = await Promise.all([deps.campaigns.get(app), resolveOptionalCustomer(deps, app.id, body.source_id)]);
  if (!customer) throw invalidSourceIdForList();
  const coded = set.fixed
    .filter((campaign) => offeredTo(campaign, customer))
    .map((campaign): CartCoupon => ({ campaign, bulkCodeId: null, couponCodeId: campaign.id, code: campaign.code ?? '', entry: null }));
  const automatic = await automaticPromotions(deps, app, customer);
  const now = deps.now();
  const [withCounts, tiers] = await Promise.all([
    withUsage(deps, app.id, [...coded, ...automatic], customer.id, periodKeys(now, app.timezone)),
    customerTiers(
      deps,
      app.id,
      customer.id,
      [...coded, ...automatic].map((c) => c.campaign),
    ),
  ]);
  const withTiers = tiers ? { customerTiers: tiers } : {};
  const evaluated = withCounts.map(({ campaign, usage }) => ({
    campaign,
    evaluation: evaluateCoupon({ now, timezone: app.timezone, campaign, usage, customerKnown: true, order: body.order, ...withTiers }),
  }));
  const deal = findBestDeal({
    order: parsed.order,
    maxCoupons: app.stacking.maxCoupons,
    coupons: evaluated.slice(0, coded.length),
    automatic: evaluated.slice(coded.length),
  });
  const chosen = deal.chosen.map((i, entry): CartCoupon => ({ ...coded[i]!, entry }));
  return {
    coupon_details: chosen.map((c) => ({ coupon_id: c.couponCodeId, coupon_code: c.code })),
    stack: presentStack([...chosen, ...automatic], deal.stack),
    candidates: deal.candidates,
    search: deal.search,
    request_id: req.requestId,
  };
}
