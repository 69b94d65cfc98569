/**
 * Redeem and revert, API side (`POST /coupons/apply`): the documented 400s in the documented
 * order, the customer and the coupon, before anything is queued; then the job, or a sold-out
 * refusal the API can prove (sold-out.usecase.ts). The job runs in a worker
 * (redeem-coupon.usecase.ts, revert-coupon.usecase.ts).
 */
import type { ApplicationRecord } from '../../data/application.repository.js';
import { couponMissing, couponNotFound, invalidPayload, invalidQueryType, invalidSourceId, tooManyCoupons } from '../../client-errors.js';
import { MANDATORY_ITEM_PRICES, MANDATORY_ORDER_FIELDS, type Campaign } from '../../domain/types.js';
import type { PreparedOperation } from '../../queue/gateway.js';
import type { RedeemInput, RevertInput, StackEntryInput } from '../../queue/job-payloads.js';
import { JOB } from '../../queue/names.js';
import { refusalOutcome } from '../../queue/outcome.js';
import { hourKey } from '../../domain/periods.js';
import type { Services } from '../../services.js';
import { findCoupon } from '../find-coupon.js';
import { findEntries, offeredTo } from '../stack.js';
import type { Operation } from '../idempotency.js';
import { refuseIfSoldOut } from './sold-out.usecase.js';
import { seenCartId } from '../../cache/cart-recorder.js';
import { giftCardEntries, prepareGiftCardApply } from '../gift-card-checkout.usecase.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
const finiteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The mandatory fields of an apply request, checked in the documented order (`max`: the entries the application takes). */
function checkApplyBody(
  type: 'redeem' | 'revert',
  body: Record<string, unknown>,
  max = 1,
): { details: Record<string, unknown>[]; order: Record<string, unknown> } {
  if (!nonEmptyString(body.source_id)) throw invalidSourceId();
  const details = body.coupon_details;
  if (!Array.isArray(details) || details.length === 0) throw couponMissing();
  if (details.length > max) throw tooManyCoupons(max);
  for (const detail of details)
    if (!isObject(detail) || (!nonEmptyString(detail.coupon_id) && !nonEmptyString(detail.coupon_code))) throw couponMissing();
  return { details: details as Record<string, unknown>[], order: checkApplyOrder(type, body.order) };
}

/**
 * The order of an apply request, checked in the documented order: what a redeem (or revert) of it
 * would be refused for, as the documented 400. "Try a cart" says it beside its verdicts
 * (shared/usecases/admin/explain.usecase.ts), so the explanation and the engine agree on input.
 */
export function checkApplyOrder(type: 'redeem' | 'revert', order: unknown): Record<string, unknown> {
  if (!isObject(order)) throw invalidPayload('order is required');
  if (!nonEmptyString(order.order_id)) throw invalidPayload('order_id is required');
  // It becomes part of the redemption's key: bounded like any identifier.
  if (order.order_id.length > 256) throw invalidPayload('order_id should be at most 256 characters');
  for (const field of MANDATORY_ORDER_FIELDS) {
    if (order[field] === undefined || order[field] === null) throw invalidPayload(`${field} is required`);
    if (!finiteNumber(order[field])) throw invalidPayload(`${field} should be a number greater than or equal to 0`);
  }
  if (!nonEmptyString(order.status)) throw invalidPayload('status is required');
  const allowed = type === 'redeem' ? ['pending', 'completed'] : ['pending', 'completed', 'reverted'];
  if (!allowed.includes(order.status)) throw invalidPayload(`status should be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`);
  if (!Array.isArray(order.items) || order.items.length === 0) throw invalidPayload('items is required');
  for (const item of order.items) {
    if (!isObject(item)) throw invalidPayload('items should be objects');
    if (!nonEmptyString(item.product_id)) throw invalidPayload('product_id is required');
    for (const field of MANDATORY_ITEM_PRICES) {
      if (item[field] === undefined || item[field] === null) throw invalidPayload(`${field} is required`);
      if (!finiteNumber(item[field])) throw invalidPayload(`${field} should be a number greater than or equal to 0`);
    }
    if (!('shipping' in item)) throw invalidPayload('shipping is required');
  }
  return order;
}

/** API side: validates and resolves everything a job needs; throws the documented errors. */
export async function prepareApply(
  deps: Pick<Services, 'repos' | 'campaigns'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion'>,
  req: { type: unknown; body: unknown; requestId: string },
): Promise<{ type: 'redeem'; input: RedeemInput; campaign: Campaign } | { type: 'revert'; input: RevertInput; campaign: Campaign }> {
  if (req.type !== 'redeem' && req.type !== 'revert') throw invalidQueryType();
  const type = req.type;
  const body = isObject(req.body) ? req.body : {};
  const { details, order } = checkApplyBody(type, body);
  const detail = details[0]!;
  const [customer, found] = await Promise.all([
    deps.repos.customers.resolve(app.id, (body.source_id as string).trim()),
    findCoupon(deps, app, detail),
  ]);
  if (!customer) throw invalidSourceId();
  if (!found) throw couponNotFound();
  if (found.campaign.assignment === 'assigned_users' && !found.campaign.assignedCustomerIds.includes(customer.id)) throw couponNotFound();
  const base: RevertInput = {
    applicationId: app.id,
    customerId: customer.id,
    sourceId: customer.sourceId,
    campaignId: found.campaign.id,
    bulkCodeId: found.bulkCodeId,
    couponId: nonEmptyString(detail.coupon_id) ? detail.coupon_id : found.couponCodeId,
    code: found.code,
    orderId: order.order_id as string,
    requestId: req.requestId,
    configVersion: app.configVersion,
  };
  return type === 'redeem'
    ? { type, input: { ...base, order }, campaign: found.campaign }
    : { type, input: base, campaign: found.campaign };
}

/** Whether an application's apply requests take the stacked path (docs/stacking.md). */
const stacks = (app: Pick<ApplicationRecord, 'stacking'>) => app.stacking.maxCoupons > 1 || app.stacking.automaticPromotions;

/**
 * A stacked apply, API side: the documented 400s in the documented order, the customer and every
 * entry's coupon (the first not found answers the documented 404), then the job. A redeem of one
 * entry without automatic promotions, and every apply of an application that does not stack, take
 * the single coupon's path.
 */
async function prepareStackOperation(
  deps: Pick<Services, 'repos' | 'campaigns'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion' | 'stacking' | 'giftCardsAtCheckout'>,
  type: 'redeem' | 'revert',
  body: Record<string, unknown>,
  requestId: string,
): Promise<PreparedOperation> {
  const { details, order } = checkApplyBody(type, body, app.stacking.maxCoupons);
  const [customer, foundAll] = await Promise.all([
    deps.repos.customers.resolve(app.id, (body.source_id as string).trim()),
    findEntries(deps, app, details),
  ]);
  if (!customer) throw invalidSourceId();
  // A gift card among the entries (docs/gift-cards.md): taken out, redeemed after the stack.
  const { card, coupons: couponDetails, found } = await giftCardEntries(deps, app, details, foundAll, customer.id);
  const entries = found.map((f, i): StackEntryInput => {
    if (!f || !offeredTo(f.campaign, customer)) throw couponNotFound();
    const sent = couponDetails[i]!.coupon_id;
    return { campaignId: f.campaign.id, bulkCodeId: f.bulkCodeId, couponId: nonEmptyString(sent) ? sent : f.couponCodeId, code: f.code };
  });
  const base = {
    applicationId: app.id,
    customerId: customer.id,
    sourceId: customer.sourceId,
    orderId: order.order_id as string,
    requestId,
    ...(card ? { giftCard: card } : {}),
  };
  return type === 'redeem'
    ? { job: { name: JOB.redeemStack, customerId: customer.id, payload: { ...base, order, entries, configVersion: app.configVersion } } }
    : { job: { name: JOB.revertStack, customerId: customer.id, payload: { ...base, entries } } };
}

/** The operation of an apply request: its redeem or revert job, or the refusal of a sold-out coupon. */
export async function prepareApplyOperation(
  deps: Pick<Services, 'repos' | 'campaigns' | 'soldOut' | 'webhookEndpoints' | 'now' | 'tally' | 'carts'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion' | 'timezone' | 'stacking' | 'giftCardsAtCheckout' | 'cartRecording'>,
  req: { type: unknown; body: unknown; requestId: string },
  op: Operation,
): Promise<PreparedOperation> {
  if (app.giftCardsAtCheckout && (req.type === 'redeem' || req.type === 'revert') && isObject(req.body)) {
    // A gift card's code (docs/gift-cards.md): found only where no coupon is.
    const type = req.type;
    const card = await prepareGiftCardApply(
      deps,
      app,
      { type, body: req.body, requestId: req.requestId },
      (body) => checkApplyBody(type, body),
      async (detail) => (await findCoupon(deps, app, detail)) !== null,
    );
    if (card) return card;
  }
  if (stacks(app) && (req.type === 'redeem' || req.type === 'revert')) {
    const body = isObject(req.body) ? req.body : {};
    const entries = Array.isArray(body.coupon_details) ? body.coupon_details.length : 0;
    if (req.type === 'revert' || entries > 1 || app.stacking.automaticPromotions)
      return prepareStackOperation(deps, app, req.type, body, req.requestId);
  }
  const prepared = await prepareApply(deps, app, req);
  const { customerId } = prepared.input;
  if (prepared.type === 'revert') return { job: { name: JOB.revert, customerId, payload: prepared.input } };
  const job = { name: JOB.redeem, customerId, payload: prepared.input };
  const refused = await refuseIfSoldOut(deps, app, prepared.campaign, prepared.input, op);
  if (!refused) return { job };
  // Refused here, without a job: counted in the campaign's results as the worker counts its own (docs/results.md).
  const reason = refused.extra.reason;
  if (reason) deps.tally.refused(app.id, prepared.campaign.id, hourKey(deps.now(), app.timezone), reason);
  // And recorded as the worker records its refusals, after the refusal was known (shared/usecases/record-cart.ts).
  const { input } = prepared;
  deps.carts.record(app, {
    id: seenCartId('r'),
    kind: 'r',
    at: deps.now(),
    customerId: input.customerId,
    order: input.order,
    codes: [input.code],
    orderId: input.orderId,
    outcomes: [{ cp: prepared.campaign.id, ok: false, r: reason ?? 'refused' }],
  });
  return { job, answered: refusalOutcome(refused) };
}
