/**
 * The one rules engine behind list, validate, redeem, "Try a cart" (explain) and the campaign
 * preview's rule texts. Pure: plain data in, a decision out; `now` and the usage counters are
 * passed in, nothing is read or written here.
 *
 * The rules are the steps of {@link RULE_STEPS}, in the order they are checked. Each step says
 * whether it refuses (the hot path), which rows explain shows for it, and which messages it can
 * give a customer. {@link evaluateCoupon} stops at the first step that refuses: its refusal and
 * message are the answer. {@link explainCoupon} walks the same steps and shows every row.
 * {@link campaignRuleTexts} lists the steps' messages. An applicable coupon's amounts are
 * computed after the steps (shared/domain/discount.ts).
 */
import { availability } from './availability.js';
import { budgetLeft, budgetRefusal, withinBudget } from './budget.js';
import { fromCents } from './money.js';
import { conditionHolds, firstFailing } from './conditions.js';
import { baseCents, computeDiscount, eligibleItems, giftLine, isSelectedItemsBase, type DiscountResult } from './discount.js';
import * as M from './messages.js';
import { firstTier, planBundle, planBuyXGetY, tierReached } from './promotion-kinds.js';
import {
  aggregateMandatory,
  itemFieldMandatory,
  itemFieldValue,
  matchesSelector,
  orderFieldMandatory,
  orderFieldValue,
  selectedAggregates,
} from './order-fields.js';
import { parseOrder, type ParsedItem, type ParsedOrder, type ParseResult } from './order.js';
import type { RefusalReason } from '../reasons.js';
import type { Campaign, Condition, Limits, UsageCounts } from './types.js';

/** Everything the engine needs for one coupon, one customer, one moment. */
export interface EvaluateInput {
  now: Date;
  /** The application's IANA timezone: schedules are read in it. */
  timezone: string;
  campaign: Campaign;
  /** Usage counted for the periods of `now` (see `periodKeys`). */
  usage: UsageCounts;
  /** Whether a customer was identified; the per-customer limit applies only then. */
  customerKnown: boolean;
  /** The raw `order` of the request; `undefined` = no order or item checks (list rule 1). */
  order: unknown;
  /**
   * The customer's level in each wallet with tiers a campaign of the request is for (client wallet
   * id → level name: shared/usecases/customer-tiers.ts); absent: none read (no customer, or no such campaign).
   */
  customerTiers?: ReadonlyMap<string, string>;
}

export type Evaluation =
  { applicable: true; order: ParsedOrder | null; result: DiscountResult } | { applicable: false; reason: RefusalReason; message: string };

/** A step's refusal: the reason, and the contract message the customer is shown. */
export type Refusal = Extract<Evaluation, { applicable: false }>;

/** One row of an explanation: what was checked, with the figures it was checked on. */
export interface RuleCheck {
  /** `availability`, `limit.<kind>`, `order`, `cart_condition`, `selection`, `selected_items_validation`, `product_validation`, `promotion`, `discount`. */
  rule: string;
  /** null: not reached (an earlier rule refused). */
  passed: boolean | null;
  /** A sentence for people: the rule text, or what was found. */
  text: string;
  /** The figures, money in cents (the presenting layer converts). */
  figures: Record<string, unknown>;
}

/** A row as a step reports it: checked, so passed or not. */
export type StepCheck = RuleCheck & { passed: boolean };

/** {@link evaluateCoupon}'s decision with every rule it went through and their figures. */
export interface Explanation {
  evaluation: Evaluation;
  checks: RuleCheck[];
}

/** One message a customer can be shown because of a campaign's rule, and the rule (a path of the campaign format). */
export interface RuleText {
  rule: string;
  text: string;
}

/** What {@link campaignRuleTexts} reads of a campaign. */
export type RuleTextsCampaign = Pick<
  Campaign,
  | 'codeType'
  | 'limits'
  | 'budget'
  | 'tierRequirement'
  | 'discount'
  | 'discountCalculatedOn'
  | 'cartConditions'
  | 'itemSelector'
  | 'selectedItemsValidations'
  | 'productValidations'
>;

/**
 * One walk of the steps for one coupon and one request: the input, and what is worked out from
 * it on first use and kept for the steps after (the parsed order, the selected items).
 */
export interface RuleContext {
  readonly input: EvaluateInput;
  readonly campaign: Campaign;
  /** The parse of `input.order`: undefined until read, null when no order was sent. */
  parsed?: ParseResult | null;
  /** Per item of the parsed order, whether it is selected: undefined until read. */
  selected?: boolean[];
  /** The selected items, in order: undefined until read. */
  selectedItems?: ParsedItem[];
}

/**
 * A rule of the engine. `refusal` is what list, validate and redeem run: no figures, no rows.
 * `explain` gives explain's rows for the same rule: one of them fails exactly when `refusal`
 * refuses. `texts` gives every message the rule can answer for a campaign (the campaign preview).
 */
export interface RuleStep {
  /** The step's name: `availability`, `limits`, `order`, `cart_conditions`, … */
  readonly name: string;
  /**
   * Whether the step reads the parsed order. The walk ends before the first such step when no
   * order was sent (applicable, nothing computed: list rule 1) or when it could not be read.
   */
  readonly needsOrder: boolean;
  refusal(ctx: RuleContext): Refusal | null;
  explain(ctx: RuleContext): StepCheck[];
  texts(campaign: RuleTextsCampaign): RuleText[];
}

/**
 * List evaluates every coupon against the same request order: parse it once per request object.
 * Keyed weakly by the raw object, so nothing outlives the request; the parsed order is read-only.
 */
const parsedOrders = new WeakMap<object, ParseResult>();
function parseOnce(raw: unknown): ParseResult {
  if (typeof raw !== 'object' || raw === null) return parseOrder(raw);
  let parsed = parsedOrders.get(raw);
  if (!parsed) {
    parsed = parseOrder(raw);
    parsedOrders.set(raw, parsed);
  }
  return parsed;
}

/** The parse of the request's order; null when no order was sent. */
function readOrder(ctx: RuleContext): ParseResult | null {
  if (ctx.parsed === undefined) ctx.parsed = ctx.input.order === undefined ? null : parseOnce(ctx.input.order);
  return ctx.parsed;
}

/** The parsed order, or null when none was sent or it could not be read. */
function readableOrder(ctx: RuleContext): ParsedOrder | null {
  const parsed = readOrder(ctx);
  return parsed?.ok ? parsed.order : null;
}

/** The parsed order, for a step that declares `needsOrder` (the walk runs it only with one). */
const orderOf = (ctx: RuleContext): ParsedOrder => readableOrder(ctx)!;

/** Per item of `order`, whether `campaign` selects it: by its item selector, or every item without one. */
export function selectionOf(campaign: Campaign, order: ParsedOrder): boolean[] {
  const selector = campaign.itemSelector;
  return order.items.map((item) => (selector ? matchesSelector(item, campaign, selector) : true));
}

/** Per item, whether it is selected (see {@link selectionOf}), worked out once per walk. */
function selectedOf(ctx: RuleContext): boolean[] {
  ctx.selected ??= selectionOf(ctx.campaign, orderOf(ctx));
  return ctx.selected;
}

function selectedItemsOf(ctx: RuleContext): ParsedItem[] {
  if (!ctx.selectedItems) {
    const selected = selectedOf(ctx);
    ctx.selectedItems = orderOf(ctx).items.filter((_, i) => selected[i]);
  }
  return ctx.selectedItems;
}

const refuse = (reason: RefusalReason, message: string): Refusal => ({ applicable: false, reason, message });

const row = (rule: string, passed: boolean, text: string, figures: Record<string, unknown> = {}): StepCheck => ({
  rule,
  passed,
  text,
  figures,
});

/** A condition's own figures in a row: what it tests, and the value it found. */
const conditionFigures = (c: Condition, actual: unknown) => ({
  field: c.field,
  operator: c.operator,
  value: c.value,
  actual: actual ?? null,
});

const reached = (limit: number | null | undefined, used: number): boolean => limit !== null && limit !== undefined && used >= limit;

/** A counted limit's names, and its refusal once reached. */
interface CountedLimit {
  /** In explain's rule (`limit.<name>`) and the campaign format's path (`limits.<name>`). */
  name: string;
  reason: RefusalReason;
  message: string;
}

const TOTAL: CountedLimit = { name: 'total', reason: 'total_limit', message: M.TOTAL_LIMIT_EXCEEDED };
const PER_CUSTOMER: CountedLimit = { name: 'per_customer', reason: 'per_user_limit', message: M.PER_USER_LIMIT_EXCEEDED };
const PER_DAY: CountedLimit = { name: 'per_day', reason: 'per_day_limit', message: M.PER_DAY_LIMIT_EXCEEDED };
const PER_WEEK: CountedLimit = { name: 'per_week', reason: 'per_week_limit', message: M.PER_WEEK_LIMIT_EXCEEDED };
const PER_MONTH: CountedLimit = { name: 'per_month', reason: 'per_month_limit', message: M.PER_MONTH_LIMIT_EXCEEDED };

/**
 * What is done with one counted limit: its setting (null/undefined: unlimited), its use, and
 * whether it is counted (per customer: only for a known customer). A value other than undefined
 * ends the visit.
 */
type LimitVisitor<T> = (l: CountedLimit, limit: number | null | undefined, used: number, counted: boolean) => T | undefined;

/**
 * Visits the counted limits in the order they are checked: total, per customer, per day, per
 * week, per month. Each is read by name, not looked up by a key: this runs for every coupon list
 * evaluates. Returns the first value a visit returns.
 */
function visitCountedLimits<T>(limits: Limits, usage: UsageCounts, customerKnown: boolean, visit: LimitVisitor<T>): T | undefined {
  return (
    visit(TOTAL, limits.total, usage.total, true) ??
    visit(PER_CUSTOMER, limits.perCustomer, usage.perCustomer, customerKnown) ??
    visit(PER_DAY, limits.perDay, usage.perDay, true) ??
    visit(PER_WEEK, limits.perWeek, usage.perWeek, true) ??
    visit(PER_MONTH, limits.perMonth, usage.perMonth, true)
  );
}

const refuseIfReached: LimitVisitor<Refusal> = (l, limit, used, counted) =>
  counted && reached(limit, used) ? refuse(l.reason, l.message) : undefined;

/**
 * The first counted limit reached (see {@link visitCountedLimits}), then a bulk code's own uses
 * against `bulkCodeUsageLimit` (default 1); null when none is. A limit is reached when usage >=
 * limit. Redeem also asks it of the live counters.
 */
export function limitRefusal(campaign: Campaign, usage: UsageCounts, customerKnown: boolean): Refusal | null {
  const counted = visitCountedLimits(campaign.limits, usage, customerKnown, refuseIfReached);
  if (counted) return counted;
  const gifts = campaign.discount.type === 'free_gift' ? campaign.discount.gift : null;
  if (gifts?.maxGifts && (usage.total + 1) * gifts.quantity > gifts.maxGifts) return refuse('gifts_given_out', M.GIFTS_GIVEN_OUT);
  const left = budgetLeft(campaign.budget, usage.spent, customerKnown);
  if (left && left.cents === 0) return budgetRefusal(left);
  if (usage.bulkCode !== undefined && reached(campaign.bulkCodeUsageLimit ?? 1, usage.bulkCode)) {
    return refuse('bulk_code_used', M.TOTAL_LIMIT_EXCEEDED);
  }
  return null;
}

/** Explain's rows for the limits: each configured counted limit, then the bulk code when one was sent. */
function limitChecks({ campaign, input }: RuleContext): StepCheck[] {
  const rows: StepCheck[] = [];
  visitCountedLimits(campaign.limits, input.usage, input.customerKnown, (l, limit, used, counted) => {
    if (limit === null || limit === undefined) return;
    const remaining = Math.max(0, limit - used);
    const text = counted ? `${remaining} of ${limit} left` : 'applies only to a known customer';
    rows.push(row(`limit.${l.name}`, !counted || !reached(limit, used), text, { limit, used, remaining }));
  });
  const gift = campaign.discount.type === 'free_gift' ? campaign.discount.gift : null;
  if (gift?.maxGifts) {
    const given = input.usage.total * gift.quantity;
    const figures = { limit: gift.maxGifts, given, per_redemption: gift.quantity };
    rows.push(row('limit.max_gifts', given + gift.quantity <= gift.maxGifts, `${given} of ${gift.maxGifts} gifts given`, figures));
  }
  const left = budgetLeft(campaign.budget, input.usage.spent, input.customerKnown);
  if (left) {
    const b = campaign.budget!;
    const figures = { left_cents: left.cents, cap: left.cap, spent_cents: input.usage.spent ?? null, when_exceeded: b.whenExceeded };
    rows.push(row('budget', left.cents > 0, `${fromCents(left.cents).toFixed(2)} of the budget left (${left.cap})`, figures));
  }
  const usedCode = input.usage.bulkCode;
  if (usedCode !== undefined) {
    const limit = campaign.bulkCodeUsageLimit ?? 1;
    const figures = { limit, used: usedCode, remaining: Math.max(0, limit - usedCode) };
    rows.push(row('limit.bulk_code', !reached(limit, usedCode), `this code used ${usedCode} of ${limit} times`, figures));
  }
  return rows;
}

/** The texts depend only on which limits are configured, not on their use. */
const NO_USAGE: UsageCounts = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };

/** The limits' messages: each configured counted limit, then a bulk campaign's code. */
function limitTexts(c: RuleTextsCampaign): RuleText[] {
  const texts: RuleText[] = [];
  visitCountedLimits(c.limits, NO_USAGE, true, (l, limit) => {
    if (limit !== null && limit !== undefined) texts.push({ rule: `limits.${l.name}`, text: l.message });
  });
  if (c.discount?.type === 'free_gift' && c.discount.gift?.maxGifts) texts.push({ rule: 'discount.max_gifts', text: M.GIFTS_GIVEN_OUT });
  const b = c.budget;
  if (b && (b.totalCents || b.perDayCents || b.perWeekCents || b.perMonthCents)) texts.push({ rule: 'budget', text: M.BUDGET_EXHAUSTED });
  if (b?.perCustomerCents) texts.push({ rule: 'budget.per_customer', text: M.PER_USER_BUDGET_EXCEEDED });
  if (c.codeType === 'bulk') texts.push({ rule: 'bulk_code_usage_limit', text: M.TOTAL_LIMIT_EXCEEDED });
  return texts;
}

/** Whether the selection can refuse: an item selector, or a discount on the selected items. */
function selectionMatters(campaign: Campaign): boolean {
  return campaign.itemSelector !== null || isSelectedItemsBase(campaign.discountCalculatedOn);
}

/** Status, validity period (inclusive), then schedule in the application's timezone. */
const availabilityStep: RuleStep = {
  name: 'availability',
  needsOrder: false,
  refusal: ({ campaign, input }) =>
    availability(campaign, input.now, input.timezone) === 'available' ? null : refuse('not_available', M.NOT_AVAILABLE),
  explain({ campaign, input }) {
    const state = availability(campaign, input.now, input.timezone);
    return [
      row('availability', state === 'available', state === 'available' ? 'available now' : M.NOT_AVAILABLE, {
        state,
        valid_from: campaign.validFrom.toISOString(),
        valid_until: campaign.validUntil ? campaign.validUntil.toISOString() : null,
      }),
    ];
  },
  texts: () => [{ rule: 'valid_from, valid_until, schedule, status', text: M.NOT_AVAILABLE }],
};

/** A campaign for some tiers: the customer's level in the wallet is one of them (after the limits: a sold-out answer needs no tier read). */
const tiersStep: RuleStep = {
  name: 'tiers',
  needsOrder: false,
  refusal({ campaign, input }) {
    const need = campaign.tierRequirement;
    if (!need) return null;
    const level = input.customerTiers?.get(need.walletId);
    return level !== undefined && need.levels.includes(level) ? null : refuse('tier_rule', M.tierRequired(need.levels));
  },
  explain({ campaign, input }) {
    const need = campaign.tierRequirement;
    if (!need) return [];
    const level = input.customerTiers?.get(need.walletId) ?? null;
    const passed = level !== null && need.levels.includes(level);
    return [row('tiers', passed, M.tierRequired(need.levels), { wallet_id: need.walletId, levels: need.levels, actual: level })];
  },
  texts: (c) => (c.tierRequirement ? [{ rule: 'tiers', text: M.tierRequired(c.tierRequirement.levels) }] : []),
};

/** Total, per customer (only when the customer is known), per day, week, month, then the bulk code. */
const limitsStep: RuleStep = {
  name: 'limits',
  needsOrder: false,
  refusal: ({ campaign, input }) => limitRefusal(campaign, input.usage, input.customerKnown),
  explain: limitChecks,
  texts: limitTexts,
};

/** The order payload (see `parseOrder`): its messages belong to no rule of the campaign. */
const orderStep: RuleStep = {
  name: 'order',
  needsOrder: false,
  refusal(ctx) {
    const parsed = readOrder(ctx);
    return parsed && !parsed.ok ? refuse('invalid_payload', parsed.message) : null;
  },
  explain(ctx) {
    const parsed = readOrder(ctx);
    if (!parsed) return [row('order', true, 'no order sent: no cart or item rules are checked')];
    return [row('order', parsed.ok, parsed.ok ? 'order read' : parsed.message)];
  },
  texts: () => [],
};

/**
 * Cart conditions, AND, in configured order; the first failure's rule text is the message. A
 * condition on a mandatory order field is always evaluated, one on an optional field (shipping,
 * tax, payment_mode, metadata.*) that was not sent is skipped (list rule 5).
 */
const cartConditionsStep: RuleStep = {
  name: 'cart_conditions',
  needsOrder: true,
  refusal(ctx) {
    const { campaign } = ctx;
    const order = orderOf(ctx);
    const failed = firstFailing(campaign.cartConditions, (f) => orderFieldValue(order, campaign, f), orderFieldMandatory);
    return failed ? refuse('cart_rule', M.ruleText(failed)) : null;
  },
  explain(ctx) {
    const { campaign } = ctx;
    const order = orderOf(ctx);
    return campaign.cartConditions.map((c) => {
      const actual = orderFieldValue(order, campaign, c.field);
      return row('cart_condition', conditionHolds(c, actual, orderFieldMandatory), M.ruleText(c), conditionFigures(c, actual));
    });
  },
  texts: (c) => c.cartConditions.map((cond, i) => ({ rule: `cart_conditions.${i}`, text: M.ruleText(cond) })),
};

/** With an item selector or a `selected_items_*` base, at least one item is selected (the tray message). */
const selectionStep: RuleStep = {
  name: 'selection',
  needsOrder: true,
  refusal: (ctx) => (selectionMatters(ctx.campaign) && selectedItemsOf(ctx).length === 0 ? refuse('selection', M.SELECTION_FAILED) : null),
  explain(ctx) {
    if (!selectionMatters(ctx.campaign)) return [];
    const count = selectedItemsOf(ctx).length;
    const indexes = selectedOf(ctx).flatMap((s, i) => (s ? [i] : []));
    return [row('selection', count > 0, count > 0 ? `${count} item(s) selected` : M.SELECTION_FAILED, { selected_items: indexes })];
  },
  texts: (c) => (c.itemSelector ? [{ rule: 'item_selector', text: M.SELECTION_FAILED }] : []),
};

/** The selected-items validations, AND, on aggregates of the selected items (the tray message). */
const selectedItemsValidationsStep: RuleStep = {
  name: 'selected_items_validations',
  needsOrder: true,
  refusal(ctx) {
    const conditions = ctx.campaign.selectedItemsValidations;
    if (conditions.length === 0) return null;
    const aggregates = selectedAggregates(selectedItemsOf(ctx));
    return firstFailing(conditions, (f) => aggregates[f], aggregateMandatory) ? refuse('selection', M.SELECTION_FAILED) : null;
  },
  explain(ctx) {
    const aggregates = selectedAggregates(selectedItemsOf(ctx));
    return ctx.campaign.selectedItemsValidations.map((c) => {
      const actual = aggregates[c.field];
      return row('selected_items_validation', conditionHolds(c, actual, aggregateMandatory), M.ruleText(c), conditionFigures(c, actual));
    });
  },
  texts: (c) => c.selectedItemsValidations.map((_, i) => ({ rule: `selected_items_validations.${i}`, text: M.SELECTION_FAILED })),
};

/**
 * Product validations on each selected item (every item without a selector), skipping optional
 * item fields not sent. The refusal is the first item's first failing rule, in item order;
 * explain shows each rule with the items it fails on, so when two rules fail on different items
 * its first failing row can be another rule than the one the message names.
 */
const productValidationsStep: RuleStep = {
  name: 'product_validations',
  needsOrder: true,
  refusal(ctx) {
    const { campaign } = ctx;
    if (campaign.productValidations.length === 0) return null;
    for (const item of selectedItemsOf(ctx)) {
      const failed = firstFailing(campaign.productValidations, (f) => itemFieldValue(item, campaign, f), itemFieldMandatory);
      if (failed) return refuse('product_rule', M.ruleText(failed));
    }
    return null;
  },
  explain(ctx) {
    const { campaign } = ctx;
    const items = orderOf(ctx).items;
    const selected = selectedOf(ctx);
    return campaign.productValidations.map((c) => {
      const fails = (item: ParsedItem) => !conditionHolds(c, itemFieldValue(item, campaign, c.field), itemFieldMandatory);
      const failing = items.flatMap((item, i) => (selected[i] && fails(item) ? [i] : []));
      return row('product_validation', failing.length === 0, M.ruleText(c), {
        field: c.field,
        operator: c.operator,
        value: c.value,
        failing_items: failing,
      });
    });
  },
  texts: (c) => c.productValidations.map((cond, i) => ({ rule: `product_validations.${i}`, text: M.ruleText(cond) })),
};

/** A tiered discount's own condition: its base reaches the first tier (printed as a cart condition). */
const firstTierCondition = (c: RuleTextsCampaign, fromCents: number): Condition => ({
  field: c.discountCalculatedOn,
  operator: 'gte',
  value: fromCents,
});

/** A tiered discount's base on the cart, and the first tier's condition when the base is below it. */
function tierCheck(ctx: RuleContext) {
  const { campaign } = ctx;
  const order = orderOf(ctx);
  const base = baseCents(campaign, order, eligibleItems(campaign, order, selectedOf(ctx)));
  const first = campaign.discount.tiered ? firstTier(campaign.discount.tiered) : null;
  return { base, first, below: first !== null && base < first.fromCents ? firstTierCondition(campaign, first.fromCents) : null };
}

/**
 * The promotion kinds' own condition (docs/campaigns.md "Promotion kinds"), on the cart as sent:
 * a buy X get Y or a bundle forms at least one set, else the tray message; a tiered discount's
 * base reaches its first tier, else the rule text of the cart condition `<base> gte <first tier>`.
 * Free shipping and free gifts have no condition; explain shows what they give.
 */
const promotionStep: RuleStep = {
  name: 'promotion',
  needsOrder: true,
  refusal(ctx) {
    const { campaign } = ctx;
    const d = campaign.discount;
    if (d.type === 'buy_x_get_y' && (!d.buyXGetY || planBuyXGetY(d.buyXGetY, campaign, orderOf(ctx).items).repeats === 0))
      return refuse('selection', M.SELECTION_FAILED);
    if (d.type === 'bundle' && (!d.bundle || planBundle(d.bundle, campaign, orderOf(ctx).items).sets === 0))
      return refuse('selection', M.SELECTION_FAILED);
    if (d.type === 'tiered') {
      const { below } = tierCheck(ctx);
      if (below) return refuse('cart_rule', M.ruleText(below));
    }
    return null;
  },
  explain: promotionChecks,
  texts(c) {
    const d = c.discount;
    if (d.type === 'buy_x_get_y') return [{ rule: 'discount.buy, discount.get', text: M.SELECTION_FAILED }];
    if (d.type === 'bundle') return [{ rule: 'discount.bundle', text: M.SELECTION_FAILED }];
    const first = d.type === 'tiered' && d.tiered ? firstTier(d.tiered) : null;
    return first ? [{ rule: 'discount.tiers', text: M.ruleText(firstTierCondition(c, first.fromCents)) }] : [];
  },
};

/** Explain's row for a promotion kind: what it found on the cart (per-item figures by item index). */
function promotionChecks(ctx: RuleContext): StepCheck[] {
  const { campaign } = ctx;
  const d = campaign.discount;
  const order = orderOf(ctx);
  if (d.type === 'buy_x_get_y') {
    const x = d.buyXGetY;
    const plan = x ? planBuyXGetY(x, campaign, order.items) : null;
    const formed = plan !== null && plan.repeats > 0;
    const text = formed
      ? `buy ${x!.buyQuantity} get ${x!.getQuantity} at ${x!.percentOff}% off: ${plan.repeats} time(s)`
      : M.SELECTION_FAILED;
    return [
      row('promotion', formed, text, {
        buy_quantity: x?.buyQuantity ?? null,
        get_quantity: x?.getQuantity ?? null,
        percent_off: x?.percentOff ?? null,
        max_repeats: x?.maxRepeats ?? null,
        repeats: plan?.repeats ?? 0,
        buy_units: plan?.buyUnits ?? 0,
        get_units: plan?.getUnits ?? 0,
        both_units: plan?.bothUnits ?? 0,
        bought_units: plan?.buyTaken ?? [],
        reduced_units: plan?.getTaken ?? [],
        item_discount_cents: plan?.itemCents ?? [],
      }),
    ];
  }
  if (d.type === 'bundle') {
    const plan = d.bundle ? planBundle(d.bundle, campaign, order.items) : null;
    const formed = plan !== null && plan.sets > 0;
    return [
      row('promotion', formed, formed ? `${plan.sets} bundle set(s)` : M.SELECTION_FAILED, {
        price_cents: d.bundle?.priceCents ?? null,
        max_repeats: d.bundle?.maxRepeats ?? null,
        sets: plan?.sets ?? 0,
        component_units: plan?.taken ?? [],
        item_discount_cents: plan?.itemCents ?? [],
      }),
    ];
  }
  if (d.type === 'tiered') {
    const { base, first, below } = tierCheck(ctx);
    const tier = d.tiered ? tierReached(d.tiered, base) : null;
    const text = below ? M.ruleText(below) : tier ? `tier from ${fromCents(tier.fromCents).toFixed(2)} reached` : 'no tier configured';
    return [
      row('promotion', below === null, text, {
        base: campaign.discountCalculatedOn,
        base_cents: base,
        value_type: d.tiered?.valueType ?? null,
        first_tier_cents: first?.fromCents ?? null,
        tier_from_cents: tier?.fromCents ?? null,
        tier_value: tier?.value ?? null,
      }),
    ];
  }
  if (d.type === 'free_gift') {
    const g = d.gift;
    const text = g ? `gift: ${g.quantity} × ${g.name}` : 'no gift configured';
    const figures = g ? { product_id: g.productId, sku: g.sku, name: g.name, quantity: g.quantity, value_cents: g.valueCents } : {};
    return [row('promotion', true, text, figures)];
  }
  if (d.type === 'free_shipping') return [row('promotion', true, 'free shipping', { shipping_cents: order.shippingCents ?? 0 })];
  return [];
}

/**
 * The rules, in the order they are checked: the first that refuses decides the refusal and its
 * message. `order` comes before every step that reads the order.
 */
export const RULE_STEPS: readonly RuleStep[] = [
  availabilityStep,
  limitsStep,
  tiersStep,
  orderStep,
  cartConditionsStep,
  selectionStep,
  selectedItemsValidationsStep,
  productValidationsStep,
  promotionStep,
];

/** A walk's context, every field present from the start so that each has one shape. */
const newContext = (input: EvaluateInput): RuleContext => ({
  input,
  campaign: input.campaign,
  parsed: undefined,
  selected: undefined,
  selectedItems: undefined,
});

/** Whether the walk ends before `step`: it reads the order, and there is none to read. */
const endsBefore = (step: RuleStep, ctx: RuleContext): boolean => step.needsOrder && readableOrder(ctx) === null;

/** The answer once every step passed: the discount on the order, or nothing computed without one. */
function applicable(ctx: RuleContext): Evaluation {
  const order = readableOrder(ctx);
  if (!order) {
    const gift = ctx.campaign.discount.type === 'free_gift' ? ctx.campaign.discount.gift : null;
    return {
      applicable: true,
      order: null,
      result: {
        totalDiscountCents: 0,
        totalCashbackCents: 0,
        totalAmountCents: 0,
        itemDiscountCents: [],
        // A free gift is named without a cart too (list rule 1: applicable, nothing computed), so a storefront can show it.
        ...(gift ? { freeGifts: [giftLine(gift)] } : {}),
      },
    };
  }
  const result = computeDiscount(ctx.campaign, order, selectedOf(ctx));
  const left = budgetLeft(ctx.campaign.budget, ctx.input.usage.spent, ctx.input.customerKnown);
  const fitted = withinBudget(ctx.campaign, result, left, order.sellingSubtotalCents);
  return 'result' in fitted ? { applicable: true, order, result: fitted.result } : fitted;
}

/**
 * Evaluates one coupon for one request: the steps of {@link RULE_STEPS} until one refuses, then
 * the discount. Never throws for any `order` value.
 */
export function evaluateCoupon(input: EvaluateInput): Evaluation {
  const ctx = newContext(input);
  for (const step of RULE_STEPS) {
    if (endsBefore(step, ctx)) break;
    const refused = step.refusal(ctx);
    if (refused) return refused;
  }
  return applicable(ctx);
}

/**
 * The first refusal among the steps that read no order (availability, then the limits), or null:
 * what any cart gets before its own rules are read — the refusal evaluateCoupon gives first
 * whenever this one gives one.
 */
export function refusalBeforeOrder(input: Omit<EvaluateInput, 'order'>): Refusal | null {
  const ctx = newContext({ ...input, order: undefined });
  for (const step of RULE_STEPS) {
    if (step.needsOrder) return null;
    const refused = step.refusal(ctx);
    if (refused) return refused;
  }
  return null;
}

/**
 * Explains one coupon for one request: the decision is {@link evaluateCoupon}'s (the same steps,
 * the first refusal decides, so an explanation never disagrees with validate), and beside it
 * every step's rows with their figures — each limit's use, each cart condition's actual value,
 * which items were selected — then, when applicable, the discount's: the base and each item's
 * share. Rows after the first failing one are listed as not reached. Never throws for any `order`
 * value.
 */
export function explainCoupon(input: EvaluateInput): Explanation {
  const ctx = newContext(input);
  const checks: RuleCheck[] = [];
  let refused: Refusal | null = null;
  let open = true; // false once a row failed: what follows was not reached
  for (const step of RULE_STEPS) {
    if (endsBefore(step, ctx)) break;
    refused ??= step.refusal(ctx);
    for (const check of step.explain(ctx)) {
      checks.push({ ...check, passed: open ? check.passed : null });
      if (!check.passed) open = false;
    }
  }
  const evaluation = refused ?? applicable(ctx);
  if (evaluation.applicable && evaluation.order) checks.push(discountCheck(ctx, evaluation.order, evaluation.result));
  // Every step passed, and what is left of the budget cannot pay the discount (docs/budgets.md).
  if (!refused && !evaluation.applicable) checks.push(row('budget.amount', false, evaluation.message, { reason: evaluation.reason }));
  return { evaluation, checks };
}

/** Explain's last row for an applicable coupon: the base and the amounts of shared/domain/discount.ts. */
function discountCheck(ctx: RuleContext, order: ParsedOrder, result: DiscountResult): StepCheck {
  const { campaign } = ctx;
  const eligible = eligibleItems(campaign, order, selectedOf(ctx));
  const d = campaign.discount;
  const label = d.type === 'percentage' ? `${d.value}%` : d.type === 'flat' ? 'flat' : d.type;
  return row('discount', true, `${label} on ${campaign.discountCalculatedOn}`, {
    base: campaign.discountCalculatedOn,
    base_cents: baseCents(campaign, order, eligible),
    type: d.type,
    value: d.value,
    max_cents: d.maxCents ?? null,
    kind: d.kind,
    discount_cents: d.kind === 'cashback' ? result.totalCashbackCents : result.totalDiscountCents,
    eligible_items: eligible ? eligible.flatMap((e, i) => (e ? [i] : [])) : null,
    item_discount_cents: result.itemDiscountCents,
    ...(result.freeGifts ? { free_gifts: result.freeGifts } : {}),
  });
}

/**
 * Every message the campaign's rules can give a customer, in the order of {@link RULE_STEPS},
 * each with its rule: availability, each configured limit (and a bulk campaign's code), each cart
 * condition, the item selection and its validations, each product validation. The order payload's
 * own messages (subtotals, items' required fields) belong to no rule and are left out.
 */
export function campaignRuleTexts(campaign: RuleTextsCampaign): RuleText[] {
  return RULE_STEPS.flatMap((step) => step.texts(campaign));
}
