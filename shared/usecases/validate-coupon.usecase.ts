/**
 * POST /coupons/validate — one coupon, checked against the customer and the order (validate
 * rules 1-6, docs/decisions.md#12, #14, #15): the same engine as list and redeem.
 */
import type { ApplicationRecord } from '../data/application.repository.js';
import { evaluateCoupon } from '../domain/engine.js';
import { periodKeys } from '../domain/periods.js';
import type { Services } from '../services.js';
import { bodyNotObject, loginRequired, onlyOneCoupon, validateCouponNotFound } from '../client-errors.js';
import { presentCouponResult, type Presented } from './coupon-result.js';
import { findCoupon } from './find-coupon.js';
import { resolveOptionalCustomer } from './list-coupons.usecase.js';
import { readUsage } from './limit-counters.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function validateCoupon(
  deps: Pick<Services, 'repos' | 'campaigns' | 'now'>,
  app: Pick<ApplicationRecord, 'id' | 'configVersion' | 'timezone'>,
  req: { body: unknown; requestId: string },
): Promise<Presented> {
  if (req.body !== undefined && !isObject(req.body)) throw bodyNotObject();
  const body = req.body ?? {};
  const details = body.coupon_details;
  if (!Array.isArray(details) || details.length === 0) throw validateCouponNotFound('coupon_missing');
  if (details.length > 1) throw onlyOneCoupon();
  const detail = details[0];
  if (!isObject(detail)) throw validateCouponNotFound('coupon_missing');

  const [customer, found] = await Promise.all([resolveOptionalCustomer(deps, app.id, body.source_id), findCoupon(deps, app, detail)]);
  if (!found) throw validateCouponNotFound();
  if (found.campaign.assignment === 'assigned_users') {
    if (!customer) throw loginRequired();
    if (!found.campaign.assignedCustomerIds.includes(customer.id)) throw validateCouponNotFound();
  }
  const now = deps.now();
  const usage = await readUsage(deps, app.id, [found.campaign], customer?.id ?? null, periodKeys(now, app.timezone), found.bulkCodeId);
  const evaluation = evaluateCoupon({
    now,
    timezone: app.timezone,
    campaign: found.campaign,
    usage: usage.get(found.campaign.id)!,
    customerKnown: !!customer,
    order: body.order === null ? undefined : body.order,
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
