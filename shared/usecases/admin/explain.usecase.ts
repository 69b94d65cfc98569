/**
 * `POST /admin/applications/:app/explain` ("Try a cart"): for one code, or for every campaign of
 * the application, the verdict validate would give for this customer and order — decided by the
 * same engine on the same usage counters — with every rule and its figures
 * (shared/domain/engine.ts `explainCoupon`: the engine's own steps, in their order). Nothing is
 * redeemed, counted or recorded.
 */
import Joi from 'joi';
import { explainCoupon, type Explanation, type RuleCheck } from '../../domain/engine.js';
import { isMoneyField } from '../../domain/messages.js';
import { fromCents } from '../../domain/money.js';
import { periodKeys } from '../../domain/periods.js';
import type { Campaign, UsageCounts } from '../../domain/types.js';
import type { Services } from '../../services.js';
import { loginRequired, validateCouponNotFound } from '../../client-errors.js';
import { findCoupon } from '../find-coupon.js';
import { readUsage } from '../limit-counters.js';
import { resolveOptionalCustomer } from '../list-coupons.usecase.js';
import { validateInput } from './admin-input.js';
import { requireApplication } from './applications.usecase.js';

/** At most this many campaigns are explained without a code (the fixed ones first); `truncated` says when more exist. */
export const EXPLAIN_MAX_CAMPAIGNS = 500;

const INPUT = Joi.object({
  source_id: Joi.string().max(256).allow('', null),
  code: Joi.string().max(256),
  // The order exactly as a storefront would send it to validate: the engine reads it, a bad one is
  // the verdict `invalid_payload`, as in validate.
  order: Joi.any(),
});

type Deps = Pick<Services, 'repos' | 'campaigns' | 'now'>;

export async function explainCart(deps: Deps, applicationId: string, input: unknown) {
  const body = validateInput(INPUT, input ?? {}) as { source_id?: string | null; code?: string; order?: unknown };
  const app = await requireApplication(deps, applicationId);
  const customer = await resolveOptionalCustomer(deps, app.id, body.source_id);
  const now = deps.now();
  const order = body.order === null ? undefined : body.order;
  const explain = (campaign: Campaign, usage: UsageCounts) =>
    explainCoupon({ now, timezone: app.timezone, campaign, usage, customerKnown: !!customer, order });

  if (body.code !== undefined) {
    // The same steps, and the same refusals, as validate (shared/usecases/validate-coupon.usecase.ts).
    const found = await findCoupon(deps, app, { coupon_code: body.code });
    if (!found) throw validateCouponNotFound();
    if (found.campaign.assignment === 'assigned_users') {
      if (!customer) throw loginRequired();
      if (!found.campaign.assignedCustomerIds.includes(customer.id)) throw validateCouponNotFound();
    }
    const usage = await readUsage(deps, app.id, [found.campaign], customer?.id ?? null, periodKeys(now, app.timezone), found.bulkCodeId);
    return {
      as_of: now.toISOString(),
      source_id: customer ? body.source_id : null,
      truncated: false,
      results: [present(found.campaign, found.code, explain(found.campaign, usage.get(found.campaign.id)!))],
    };
  }

  const set = await deps.campaigns.get(app);
  const live = set.all.filter((c) => !c.archivedAt);
  const fixed = new Set(set.fixed);
  const chosen = [...set.fixed, ...live.filter((c) => !fixed.has(c))].slice(0, EXPLAIN_MAX_CAMPAIGNS);
  const usage = await readUsage(deps, app.id, chosen, customer?.id ?? null, periodKeys(now, app.timezone));
  return {
    as_of: now.toISOString(),
    source_id: customer ? body.source_id : null,
    truncated: live.length > chosen.length,
    results: chosen.map((campaign) => {
      const shown = present(campaign, campaign.code ?? null, explain(campaign, usage.get(campaign.id)!));
      const assigned = campaign.assignment !== 'assigned_users' || (!!customer && campaign.assignedCustomerIds.includes(customer.id));
      return assigned ? shown : refusedByAssignment(shown, !!customer);
    }),
  };
}

/** One campaign's verdict and rules, money in currency units like every admin answer. */
function present(campaign: Campaign, code: string | null, { evaluation, checks }: Explanation) {
  return {
    campaign_id: campaign.id,
    campaign_name: campaign.name,
    code,
    applicable: evaluation.applicable,
    reason: evaluation.applicable ? null : evaluation.reason,
    message: evaluation.applicable ? null : evaluation.message,
    discount_amount: evaluation.applicable ? fromCents(evaluation.result.totalDiscountCents) : 0,
    cashback_amount: evaluation.applicable ? fromCents(evaluation.result.totalCashbackCents) : 0,
    checks: checks.map(presentCheck),
  };
}

/**
 * A campaign assigned to other customers (or to some, and no customer was named): validate would
 * not find its code, so `assignment` refuses before the engine's rules, which follow as not reached.
 */
function refusedByAssignment(shown: ReturnType<typeof present>, customerKnown: boolean) {
  const refusal: RuleCheck = {
    rule: 'assignment',
    passed: false,
    text: customerKnown ? 'assigned to other customers' : 'assigned to some customers: name one (source_id)',
    figures: {},
  };
  return {
    ...shown,
    applicable: false,
    reason: 'coupon_not_found',
    message: 'coupon not found, invalid coupon code or coupon id',
    discount_amount: 0,
    cashback_amount: 0,
    checks: [presentCheck(refusal), ...shown.checks.map((c) => ({ ...c, passed: null }))],
  };
}

const presentCheck = (c: RuleCheck) => ({ rule: c.rule, passed: c.passed, text: c.text, figures: inUnits(c.figures) });

/** `…_cents` figures become `…_amount` in units; a money field's condition value and actual too. */
function inUnits(figures: Record<string, unknown>): Record<string, unknown> {
  const money = typeof figures.field === 'string' && isMoneyField(figures.field);
  const units = (v: unknown): unknown => (typeof v === 'number' ? fromCents(v) : Array.isArray(v) ? v.map(units) : v);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(figures)) {
    if (k.endsWith('_cents')) out[`${k.slice(0, -'_cents'.length)}_amount`] = units(v);
    else if (money && (k === 'value' || k === 'actual')) out[k] = units(v);
    else out[k] = v;
  }
  return out;
}
