/**
 * A wallet's earning rules in the admin format (docs/wallets.md "Earning rules"; money in currency
 * units, points in points) and the explain of what an order would earn under them. Stored on the
 * wallet as the domain's rules (shared/domain/earning.ts); what a reported order earns under them is
 * shared/usecases/order-report.usecase.ts. The explain credits nothing.
 */
import Joi from 'joi';
import {
  EARNING_PERIODS,
  EARNING_ROUNDINGS,
  earningPeriodKey,
  orderEarns,
  periodLeftOf,
  type EarningPeriod,
  type EarningRule,
  type EarningStep,
  type NamedEarningRule,
} from '../../domain/earning.js';
import { balanceIdOf } from '../../data/wallet-balance.repository.js';
import { fromCents, toCents } from '../../domain/money.js';
import { parseOrder } from '../../domain/order.js';
import { fromHundredths, toHundredths } from '../../domain/points.js';
import { DISCOUNT_BASES } from '../../domain/contract-lists.generated.js';
import type { ItemSelector } from '../../domain/types.js';
import type { Services } from '../../services.js';
import { adminInvalid } from '../../admin-errors.js';
import { foundOr404, validateInput } from './admin-input.js';
import { fromSelector, selector } from './campaign-format.js';
import { requireApplication } from './applications.usecase.js';
import { tierMultiplierOf } from '../../domain/tiers.js';
import { tierContextOf } from '../wallet-operation.usecase.js';

/** At most this many rules per wallet: what an order earns is their sum. */
export const MAX_EARNING_RULES = 20;

const points = Joi.number().positive().max(1e9).precision(2);
const money = Joi.number().positive().max(1e12).precision(2);

const ruleSchema = Joi.object({
  name: Joi.string().min(1).max(200).required(),
  earned_on: Joi.string()
    .valid(...DISCOUNT_BASES)
    .default('selling_price_subtotal'),
  item_selector: selector.default(null),
  excluded_items: selector.default(null),
  points: points.required(),
  per: money.required(),
  rounding: Joi.string()
    .valid(...EARNING_ROUNDINGS)
    .default('down'),
  round_to: Joi.string().valid('point', 'hundredth').default('point'),
  min_order: money.allow(null).default(null),
  max_per_order: points.allow(null).default(null),
  max_per_period: Joi.object({
    points: points.required(),
    period: Joi.string()
      .valid(...EARNING_PERIODS)
      .required(),
  })
    .allow(null)
    .default(null),
});

/** The `earning_rules` field of a wallet's create or PATCH: a list, or null for none. */
export const earningRulesSchema = Joi.array().items(ruleSchema).max(MAX_EARNING_RULES).allow(null);

type AdminRule = {
  name: string;
  earned_on: EarningRule['earnedOn'];
  item_selector: ItemSelector | null;
  excluded_items: ItemSelector | null;
  points: number;
  per: number;
  rounding: EarningRule['rounding'];
  round_to: 'point' | 'hundredth';
  min_order: number | null;
  max_per_order: number | null;
  max_per_period: { points: number; period: EarningPeriod } | null;
};

/**
 * Admin format (validated by {@link earningRulesSchema}) → what the wallet stores. A selector may
 * not read item metadata (a wallet declares no metadata keys yet), and a `selected_items_*` base
 * needs its selector, as a campaign's does.
 */
export function toEarningRules(rules: AdminRule[] | null): NamedEarningRule[] | null {
  if (rules === null) return null;
  rules.forEach((r, i) => {
    if (r.earned_on.startsWith('selected_items_') && !r.item_selector)
      throw adminInvalid(`"earning_rules[${i}].item_selector" is required when earned_on is a selected_items_* base`, {
        [`earning_rules.${i}.item_selector`]: 'required',
      });
    for (const [name, sel] of [
      ['item_selector', r.item_selector],
      ['excluded_items', r.excluded_items],
    ] as const) {
      const meta = sel?.properties.find((p) => p.property.startsWith('metadata.'));
      if (meta)
        throw adminInvalid(`"earning_rules[${i}].${name}" cannot read item metadata (${meta.property}) in an earning rule yet`, {
          [`earning_rules.${i}.${name}`]: 'metadata',
        });
    }
  });
  return rules.map((r) => ({
    name: r.name,
    earnedOn: r.earned_on,
    itemSelector: r.item_selector,
    excludedItems: r.excluded_items,
    metadataKeys: [],
    pointsHundredths: toHundredths(r.points),
    perCents: toCents(r.per),
    rounding: r.rounding,
    unitHundredths: r.round_to === 'point' ? 100 : 1,
    minOrderCents: r.min_order === null ? null : toCents(r.min_order),
    maxPerOrderHundredths: r.max_per_order === null ? null : toHundredths(r.max_per_order),
    periodCap: r.max_per_period === null ? null : { period: r.max_per_period.period, maxHundredths: toHundredths(r.max_per_period.points) },
  }));
}

/** What the wallet stores → the admin format. */
export function fromEarningRules(rules: NamedEarningRule[] | null | undefined): AdminRule[] | null {
  if (!rules) return null;
  return rules.map((r) => ({
    name: r.name,
    earned_on: r.earnedOn,
    item_selector: fromSelector(r.itemSelector),
    excluded_items: fromSelector(r.excludedItems),
    points: fromHundredths(r.pointsHundredths),
    per: fromCents(r.perCents),
    rounding: r.rounding,
    round_to: r.unitHundredths === 100 ? 'point' : 'hundredth',
    min_order: r.minOrderCents === null ? null : fromCents(r.minOrderCents),
    max_per_order: r.maxPerOrderHundredths === null ? null : fromHundredths(r.maxPerOrderHundredths),
    max_per_period: r.periodCap ? { points: fromHundredths(r.periodCap.maxHundredths), period: r.periodCap.period } : null,
  }));
}

const EXPLAIN_INPUT = Joi.object({
  // The order as a storefront sends it (validate's shape).
  order: Joi.any().required(),
  // Multipliers as factors (1.5 = one and a half times): a stand-in tier's (absent: the named
  // customer's tier in a wallet with tiers, else 1) and a campaign's.
  tier_multiplier: Joi.number().min(0).max(100).precision(2),
  campaign_multiplier: Joi.number().min(0).max(100).precision(2).default(1),
  // A customer (source_id) whose counters the period caps read; absent: the caps as for a customer who earned nothing yet.
  customer: Joi.string().min(1).max(256),
});

/** A step in the admin's units: money for the base, points for the others. */
const presentStep = (s: EarningStep) => ({
  step: s.step,
  ...(s.step === 'base' ? { amount: fromCents(s.value) } : { points: s.step === 'rate' ? s.value / 100 : fromHundredths(s.value) }),
  limited: s.limited,
});

/**
 * `POST /admin/applications/:app/wallets/:wallet/earning/explain`: what `order` would earn in the
 * wallet under each of its rules, and why (every step), and their sum. Nothing is credited.
 */
export async function explainEarning(deps: Pick<Services, 'repos' | 'now'>, applicationId: string, walletId: string, input: unknown) {
  const body = validateInput(EXPLAIN_INPUT, input ?? {}) as {
    order: unknown;
    tier_multiplier?: number;
    campaign_multiplier: number;
    customer?: string;
  };
  await requireApplication(deps, applicationId);
  const wallet = await foundOr404(deps.repos.wallets.findByWalletId(applicationId, walletId, { includeArchived: true }), 'wallet');
  const parsed = parseOrder(body.order);
  if (!parsed.ok) throw adminInvalid(`"order" ${parsed.message}`, { order: parsed.message });
  const now = deps.now();
  const balance = body.customer ? await customerBalance(deps, applicationId, wallet.id, body.customer) : null;
  const counters = balance?.periodCounters ?? [];
  const tiers = tierContextOf(wallet);
  const tierMultiplier =
    body.tier_multiplier !== undefined ? Math.round(body.tier_multiplier * 100) : tiers ? tierMultiplierOf(tiers, balance?.tier, now) : 100;
  const ctx = { tierMultiplier, campaignMultiplier: Math.round(body.campaign_multiplier * 100) };
  const earned = orderEarns(wallet.earningRules, parsed.order, ctx, (rule) => periodLeftOf(rule, counters, now, wallet.timezone));
  return {
    wallet_id: wallet.walletId,
    points: fromHundredths(earned.hundredths),
    tier_multiplier: tierMultiplier / 100,
    rules: earned.rules.map((r) => ({
      name: r.name,
      points: fromHundredths(r.hundredths),
      steps: r.steps.map(presentStep),
      ...(r.cap
        ? {
            period: {
              period: earningPeriodKey(r.cap.period, now, wallet.timezone).split(':')[1],
              left: fromHundredths(periodLeftOf({ name: r.name, periodCap: r.cap }, counters, now, wallet.timezone)!),
            },
          }
        : {}),
    })),
  };
}

/** A customer's balance in a wallet — its period counters and tier (404 when the application has no such customer). */
async function customerBalance(deps: Pick<Services, 'repos'>, applicationId: string, walletDbId: string, sourceId: string) {
  const customer = await foundOr404(deps.repos.customers.resolve(applicationId, sourceId), 'customer');
  return deps.repos.walletBalances.findById(balanceIdOf(applicationId, customer.id, walletDbId));
}
