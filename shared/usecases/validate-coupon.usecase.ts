/**
 * POST /coupons/validate — one coupon, checked against the customer and the order (validate
 * rules 1-6, docs/decisions.md#12, #14, #15): the same engine as list and redeem. An application
 * that opted in to stacking may send several entries and gets its automatic promotions: the
 * stack's answer (docs/stacking.md); one entry without automatic promotions is answered as always.
 */
import { customerTiers } from './customer-tiers.js';
import type { ApplicationRecord } from '../data/application.repository.js';
import { evaluateCoupon } from '../domain/engine.js';
import { stackCoupons } from '../domain/stacking.js';
import { hourKey, periodKeys } from '../domain/periods.js';
import type { Services } from '../services.js';
import { bodyNotObject, loginRequired, tooManyCoupons, validateCouponNotFound } from '../client-errors.js';
import { presentCouponResult, presentStackResult, type Presented } from './coupon-result.js';
import { findCoupon, type FoundCoupon } from './find-coupon.js';
import { automaticPromotions, findEntries, offeredTo, withUsage, type CartCoupon } from './stack.js';
import { resolveOptionalCustomer } from './list-coupons.usecase.js';
import { readUsage } from './limit-counters.js';
import { outcomeOf, outcomesOfStack } from './record-cart.js';
import { findGiftCard, giftCardEntries, presentGiftCardValidation, withGiftCard } from './gift-card-checkout.usecase.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function validateCoupon(
  deps: Pick<Services, 'repos' | 'campaigns' | 'wallets' | 'now' | 'tally' | 'carts'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion' | 'timezone' | 'stacking' | 'giftCardsAtCheckout' | 'cartRecording'>,
  req: { body: unknown; requestId: string },
): Promise<Presented> {
  if (req.body !== undefined && !isObject(req.body)) throw bodyNotObject();
  const body = req.body ?? {};
  const details = body.coupon_details;
  if (!Array.isArray(details) || details.length === 0) throw validateCouponNotFound('coupon_missing');
  if (details.length > app.stacking.maxCoupons) throw tooManyCoupons(app.stacking.maxCoupons);
  if (!details.every(isObject)) throw validateCouponNotFound('coupon_missing');
  if (details.length > 1 || app.stacking.automaticPromotions) return validateStack(deps, app, body, details, req.requestId);
  const detail = details[0]!;

  const [customer, found] = await Promise.all([resolveOptionalCustomer(deps, app.id, body.source_id), findCoupon(deps, app, detail)]);
  if (!found) {
    // A gift card's code, for an application that takes them (docs/gift-cards.md); else the unknown code it always was.
    const card = await findGiftCard(deps, app, detail, customer?.id ?? null);
    if (!card) throw validateCouponNotFound();
    return presentGiftCardValidation({
      card,
      order: body.order,
      sourceId: customer ? String(body.source_id) : '',
      requestId: req.requestId,
      now: deps.now(),
    });
  }
  if (found.campaign.assignment === 'assigned_users') {
    if (!customer) throw loginRequired();
    if (!found.campaign.assignedCustomerIds.includes(customer.id)) throw validateCouponNotFound();
  }
  const now = deps.now();
  const [usage, tiers] = await Promise.all([
    readUsage(deps, app.id, [found.campaign], customer?.id ?? null, periodKeys(now, app.timezone), found.bulkCodeId),
    customerTiers(deps, app.id, customer?.id, [found.campaign]),
  ]);
  const evaluation = evaluateCoupon({
    now,
    timezone: app.timezone,
    campaign: found.campaign,
    usage: usage.get(found.campaign.id)!,
    customerKnown: !!customer,
    order: body.order === null ? undefined : body.order,
    ...(tiers ? { customerTiers: tiers } : {}),
  });
  if (!evaluation.applicable) deps.tally.refused(app.id, found.campaign.id, hourKey(now, app.timezone), evaluation.reason);
  deps.carts.record(app, {
    kind: 'v',
    at: now,
    customerId: customer?.id ?? null,
    order: body.order ?? null,
    codes: [found.code],
    outcomes: [outcomeOf(found.campaign.id, found.code, evaluation)],
  });
  return presentCouponResult({
    campaign: found.campaign,
    code: found.code,
    couponCodeId: found.couponCodeId,
    evaluation,
    sourceId: customer ? String(body.source_id) : '',
    requestId: req.requestId,
    endpoint: 'validate',
  });
}

/** The customer a validate names (or none), and a found coupon it may use: the documented refusals otherwise. */
function offered(found: FoundCoupon | null, customer: { id: string } | null): FoundCoupon {
  if (!found) throw validateCouponNotFound();
  if (found.campaign.assignment === 'assigned_users' && !customer) throw loginRequired();
  if (!offeredTo(found.campaign, customer)) throw validateCouponNotFound();
  return found;
}

/**
 * Several entries, or automatic promotions (docs/stacking.md): every entry found as for one (the
 * first that is not answers the documented refusal), the automatic promotions after them, their
 * usage in one read, and the stack's answer.
 */
async function validateStack(
  deps: Pick<Services, 'repos' | 'campaigns' | 'wallets' | 'now' | 'tally' | 'carts'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion' | 'timezone' | 'stacking' | 'giftCardsAtCheckout' | 'cartRecording'>,
  body: Record<string, unknown>,
  details: Record<string, unknown>[],
  requestId: string,
): Promise<Presented> {
  const [customer, foundAll] = await Promise.all([resolveOptionalCustomer(deps, app.id, body.source_id), findEntries(deps, app, details)]);
  // A gift card among the entries (docs/gift-cards.md): it applies last, on what the coupons leave.
  const { card, found } = await giftCardEntries(deps, app, details, foundAll, customer?.id ?? null);
  const cardRecord = card ? await deps.repos.giftCards.findById(app.id, card.cardId) : null;
  const sourceId = customer ? String(body.source_id) : '';
  if (cardRecord && found.length === 0)
    return presentGiftCardValidation({ card: cardRecord, order: body.order, sourceId, requestId, now: deps.now() });
  const entries = found.map((f, entry): CartCoupon => ({ ...offered(f, customer), entry }));
  const coupons = [...entries, ...(await automaticPromotions(deps, app, customer))];
  const now = deps.now();
  const [candidates, tiers] = await Promise.all([
    withUsage(deps, app.id, coupons, customer?.id ?? null, periodKeys(now, app.timezone)),
    customerTiers(
      deps,
      app.id,
      customer?.id,
      coupons.map((c) => c.campaign),
    ),
  ]);
  const stack = stackCoupons({
    now,
    timezone: app.timezone,
    customerKnown: !!customer,
    order: body.order === null ? undefined : body.order,
    candidates,
    ...(tiers ? { customerTiers: tiers } : {}),
  });
  // The coupons sent that were left out count in their campaigns' refusals (docs/results.md); automatic promotions do not.
  const hour = hourKey(now, app.timezone);
  for (const s of stack.coupons) {
    const c = coupons[s.candidate]!;
    if (s.refusal && c.entry !== null) deps.tally.refused(app.id, c.campaign.id, hour, s.refusal.reason);
  }
  deps.carts.record(app, {
    kind: 'v',
    at: now,
    customerId: customer?.id ?? null,
    order: body.order ?? null,
    codes: entries.map((e) => e.code),
    outcomes: outcomesOfStack(coupons, stack),
  });
  const presented = presentStackResult({ coupons, stack, sourceId, requestId });
  return cardRecord ? withGiftCard(presented, cardRecord, stack.totalAmountCents, now) : presented;
}
