/**
 * `POST /admin/applications/:app/explain` ("Try a cart"): for one code, or for every campaign of
 * the application, the verdict validate would give for this customer and order — decided by the
 * same engine on the same usage counters — with every rule and its figures
 * (shared/domain/engine.ts `explainCoupon`: the engine's own steps, in their order). Nothing is
 * redeemed, counted or recorded.
 */
import { customerTiers } from '../customer-tiers.js';
import Joi from 'joi';
import { explainCoupon, type Explanation, type RuleCheck } from '../../domain/engine.js';
import type { FreeGiftLine } from '../../domain/discount.js';
import { isMoneyField } from '../../domain/messages.js';
import { presentGifts } from '../coupon-result.js';
import { fromCents } from '../../domain/money.js';
import { periodKeys } from '../../domain/periods.js';
import type { Campaign, UsageCounts } from '../../domain/types.js';
import type { Services } from '../../services.js';
import { loginRequired, tooManyCoupons, validateCouponNotFound } from '../../client-errors.js';
import { findCoupon } from '../find-coupon.js';
import { automaticPromotions, findEntries, offeredTo, withUsage, type CartCoupon } from '../stack.js';
import type { ApplicationRecord } from '../../data/application.repository.js';
import type { CustomerRecord } from '../../data/customer.repository.js';
import { stackCoupons } from '../../domain/stacking.js';
import { readUsage } from '../limit-counters.js';
import { resolveOptionalCustomer } from '../list-coupons.usecase.js';
import { DomainError } from '../../errors.js';
import { checkApplyOrder } from '../apply/prepare-apply.usecase.js';
import { validateInput } from './admin-input.js';
import { requireApplication } from './applications.usecase.js';

/** At most this many campaigns are explained without a code (the fixed ones first); `truncated` says when more exist. */
export const EXPLAIN_MAX_CAMPAIGNS = 500;

const INPUT = Joi.object({
  source_id: Joi.string().max(256).allow('', null),
  code: Joi.string().max(256),
  // Several codes on one cart (docs/stacking.md): the combination, as validate would compute it.
  codes: Joi.array().items(Joi.string().max(256)).min(1).max(10),
  // The order exactly as a storefront would send it to validate: the engine reads it, a bad one is
  // the verdict `invalid_payload`, as in validate.
  order: Joi.any(),
});

type Deps = Pick<Services, 'repos' | 'campaigns' | 'wallets' | 'now'>;

export async function explainCart(deps: Deps, applicationId: string, input: unknown) {
  const body = validateInput(INPUT, input ?? {}) as { source_id?: string | null; code?: string; codes?: string[]; order?: unknown };
  const app = await requireApplication(deps, applicationId);
  const customer = await resolveOptionalCustomer(deps, app.id, body.source_id);
  const now = deps.now();
  const order = body.order === null ? undefined : body.order;
  // The customer's levels for the campaigns for some tiers (read once; none when no campaign has a requirement).
  const tiers = await customerTiers(deps, app.id, customer?.id, (await deps.campaigns.get(app)).byId.values());
  const withTiers = tiers ? { customerTiers: tiers } : {};
  const explain = (campaign: Campaign, usage: UsageCounts) =>
    explainCoupon({ now, timezone: app.timezone, campaign, usage, customerKnown: !!customer, order, ...withTiers });

  const redeemRefusal = redeemRefusalOf(order);
  if (body.codes !== undefined)
    return {
      ...(await explainStack(deps, app, customer, body.codes, order, now, body.source_id ?? null, withTiers)),
      redeem_refusal: redeemRefusal,
    };

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
      redeem_refusal: redeemRefusal,
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
    redeem_refusal: redeemRefusal,
  };
}

/**
 * What a redeem of this order would be refused for — the documented 400's `details`, by the check
 * the apply route itself runs (`checkApplyOrder`) — or null. Validate reads an order more leniently
 * than redeem (an item without `shipping`, no `order_id`), so a verdict alone could call a cart
 * applicable that the redeem refuses. Null without an order (nothing to redeem).
 */
function redeemRefusalOf(order: unknown): string | null {
  if (order === undefined) return null;
  try {
    checkApplyOrder('redeem', order);
    return null;
  } catch (err) {
    if (err instanceof DomainError) return err.details;
    throw err;
  }
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
    ...(evaluation.applicable ? presentGifts(evaluation.result.freeGifts) : {}),
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

/**
 * Figures whose unit is chosen by another figure of the same row: a flat discount's `value` and a
 * flat tier's `tier_value` are money (cents from the engine), a percentage's are percent. Shown
 * in currency units, as the campaign itself states them (`discount.value: 10` is a flat 10.00).
 */
const CENTS_WHEN_FLAT: Record<string, string> = { value: 'type', tier_value: 'value_type' };

/**
 * Every money figure in currency units: `…_cents` figures become `…_amount`; a money field's
 * condition `value` and `actual`, and a flat discount's or tier's value, keep their names; the
 * discount row's free gifts read as the answer's own `free_gifts` (each gift's `value` in units).
 */
function inUnits(figures: Record<string, unknown>): Record<string, unknown> {
  const money = typeof figures.field === 'string' && isMoneyField(figures.field);
  const units = (v: unknown): unknown => (typeof v === 'number' ? fromCents(v) : Array.isArray(v) ? v.map(units) : v);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(figures)) {
    const flat = k in CENTS_WHEN_FLAT && figures[CENTS_WHEN_FLAT[k]!] === 'flat';
    if (k.endsWith('_cents')) out[`${k.slice(0, -'_cents'.length)}_amount`] = units(v);
    else if ((money && (k === 'value' || k === 'actual')) || flat) out[k] = units(v);
    else if (k === 'free_gifts') out[k] = presentGifts(v as FreeGiftLine[]).free_gifts ?? [];
    else out[k] = v;
  }
  return out;
}

/**
 * Several codes on one cart (docs/stacking.md): each found as validate finds it, the application's
 * automatic promotions after them when it takes them, then the stack as validate computes it —
 * the order they were tried in, each one's verdict and rules, why one was left out (its own rules,
 * or a `stacking` row), and each one's share of every item, money in currency units.
 */
async function explainStack(
  deps: Deps,
  app: ApplicationRecord,
  customer: CustomerRecord | null,
  codes: string[],
  order: unknown,
  now: Date,
  sourceId: string | null,
  withTiers: { customerTiers?: ReadonlyMap<string, string> },
) {
  // The same first refusal as validate: more codes than the application takes (docs/stacking.md).
  if (codes.length > app.stacking.maxCoupons) throw tooManyCoupons(app.stacking.maxCoupons);
  const found = await findEntries(
    deps,
    app,
    codes.map((code) => ({ coupon_code: code })),
  );
  const entries = found.map((f, entry): CartCoupon => {
    if (!f) throw validateCouponNotFound();
    if (f.campaign.assignment === 'assigned_users' && !customer) throw loginRequired();
    if (!offeredTo(f.campaign, customer)) throw validateCouponNotFound();
    return { ...f, entry };
  });
  const coupons = [...entries, ...(await automaticPromotions(deps, app, customer))];
  const candidates = await withUsage(deps, app.id, coupons, customer?.id ?? null, periodKeys(now, app.timezone));
  const stack = stackCoupons({ now, timezone: app.timezone, customerKnown: !!customer, order, candidates, ...withTiers });
  const results = stack.tried.map((i) => {
    const { campaign, usage } = candidates[i]!;
    const stacked = stack.coupons[i]!;
    const shown = present(
      campaign,
      coupons[i]!.code || null,
      explainCoupon({ now, timezone: app.timezone, campaign, usage, customerKnown: !!customer, order, ...withTiers }),
    );
    const refusal = stacked.refusal;
    const leftOut = !!refusal && shown.applicable; // its own rules pass: the stacking rules left it out
    return {
      ...shown,
      trigger: campaign.trigger,
      position: stacked.position,
      applicable: !refusal,
      reason: refusal ? refusal.reason : null,
      message: refusal ? refusal.message : null,
      discount_amount: fromCents(stacked.discountCents),
      cashback_amount: fromCents(stacked.cashbackCents),
      shipping_discount_amount: fromCents(stacked.shippingDiscountCents),
      item_discount_amounts: stacked.itemDiscountCents.map(fromCents),
      checks: leftOut
        ? [...shown.checks, presentCheck({ rule: 'stacking', passed: false, text: refusal.message, figures: { reason: refusal.reason } })]
        : shown.checks,
    };
  });
  return {
    as_of: now.toISOString(),
    source_id: customer ? sourceId : null,
    truncated: false,
    results,
    stack: {
      total_discount_amount: fromCents(stack.totalDiscountCents),
      total_cashback_amount: fromCents(stack.totalCashbackCents),
      total_amount: fromCents(stack.totalAmountCents),
      shipping_discount_amount: fromCents(stack.shippingDiscountCents),
      item_discount_amounts: stack.itemDiscountCents.map(fromCents),
      applicable: entries.every((_, i) => !stack.coupons[i]!.refusal),
    },
  };
}
