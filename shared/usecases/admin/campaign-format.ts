/**
 * The admin format of a campaign (snake_case JSON, money in currency units; docs/campaigns.md)
 * and its mapping to and from the domain `Campaign` (integer cents). One module for the API, the
 * CLI and the demo data.
 */
import Joi from 'joi';
import { pendingRuleOf, pendingSchema } from './points-settings.js';
import { isMoneyField } from '../../domain/messages.js';
import { isReadAt } from '../../domain/metadata.js';
import { zonedLocalToUtc } from '../../domain/periods.js';
import {
  CAMPAIGN_TRIGGERS,
  CART_CONDITION_FIELDS,
  DEFAULT_STACKING,
  DISCOUNT_BASES,
  DISCOUNT_TYPES,
  type Budget,
  type Discount,
  ITEM_CONDITION_FIELDS,
  LIMIT_KEYS,
  METADATA_SCOPES,
  METADATA_TYPES,
  OPERATORS,
  SELECTED_ITEMS_FIELDS,
  SELECTOR_MATCHES,
  SELECTOR_OPERATORS,
  SELECTOR_PROPERTIES,
  type Campaign,
  type Condition,
  type ItemSelector,
  type LimitKey,
  type Limits,
  type Scalar,
  type Stacking,
} from '../../domain/types.js';
import type { CampaignInput } from '../../data/campaign.repository.js';
import { adminInvalid } from '../../admin-errors.js';

const scalar = Joi.alternatives(Joi.string().max(200), Joi.number(), Joi.boolean());
const condition = (fields: readonly string[]) =>
  Joi.object({
    field: Joi.alternatives(Joi.string().valid(...fields), Joi.string().pattern(/^metadata\.[A-Za-z0-9_]{1,64}$/)).required(),
    operator: Joi.string()
      .valid(...OPERATORS)
      .required(),
    value: Joi.when('operator', {
      is: Joi.valid('in', 'nin'),
      then: Joi.array().items(scalar).min(1).max(1000).required(),
      otherwise: Joi.when('operator', {
        is: Joi.valid('gt', 'gte', 'lt', 'lte'),
        then: Joi.number().required(),
        otherwise: scalar.required(),
      }),
    }),
  });
export const selector = Joi.object({
  match: Joi.string()
    .valid(...SELECTOR_MATCHES)
    .required(),
  properties: Joi.array()
    .items(
      Joi.object({
        property: Joi.alternatives(
          Joi.string().valid(...SELECTOR_PROPERTIES),
          Joi.string().pattern(/^metadata\.[A-Za-z0-9_]{1,64}$/),
        ).required(),
        operator: Joi.string()
          .valid(...SELECTOR_OPERATORS)
          .default('in'),
        values: Joi.when('operator', {
          is: Joi.valid('eq', 'neq'),
          then: Joi.array()
            .items(scalar)
            .length(1)
            .required()
            .messages({ 'array.length': '{{#label}} must hold exactly one value for eq and neq' }),
          otherwise: Joi.array().items(scalar).min(1).max(10000).required(),
        }),
      }),
    )
    .min(1)
    .required(),
}).allow(null);
const dateTime = Joi.string().pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/, 'ISO date-time');
const limit = Joi.number().integer().min(1).allow(null);
/** The domain's name of each limit of the admin format. */
const LIMIT_FIELDS: Record<LimitKey, keyof Limits> = {
  total: 'total',
  per_customer: 'perCustomer',
  per_day: 'perDay',
  per_week: 'perWeek',
  per_month: 'perMonth',
};

const allOrList = '{{#label}} must be "all" or a list of categories';
/** A stacking category (docs/stacking.md): a label other campaigns' `combines_with` name. */
const category = Joi.string().pattern(/^[A-Za-z0-9_-]{1,64}$/, 'category');
/** Every key optional: left out, a new campaign takes its default and a saved one keeps its value. */
const stacking = Joi.object({
  priority: Joi.number().integer().min(-1000).max(1000),
  category: category.allow(null),
  exclusive: Joi.boolean(),
  combines_with: Joi.alternatives().conditional(Joi.array(), {
    then: Joi.array().items(category).unique().min(1).max(50).messages({ 'array.min': '{{#label}} must name at least one category' }),
    otherwise: Joi.any().valid('all').messages({ 'any.only': allOrList }),
  }),
});
const noCode = '{{#label}} is not allowed: an automatic promotion has no code';

/** A money amount of a budget (currency units), or null: no cap. */
const money = Joi.number().positive().max(1e12).allow(null);
/** A count of items (a promotion kind's quantities and repeats). */
const quantity = Joi.number().integer().min(1).max(1_000_000);
/** A key that belongs to other discount types: absent or null here. */
const onlyFor = (types: string) =>
  Joi.valid(null).messages({ 'any.only': `{{#label}} is only for ${types}`, 'any.unknown': `{{#label}} is only for ${types}` });
/** A promotion kind's own key (docs/campaigns.md "Promotion kinds"): `schema` for that type, absent or null for the others. */
const kindField = (type: (typeof DISCOUNT_TYPES)[number], schema: Joi.Schema) =>
  Joi.when('type', { is: type, then: schema, otherwise: onlyFor(type) });

const fields = {
  name: Joi.string().min(1).max(200),
  description: Joi.string().allow('').max(2000),
  terms_and_conditions: Joi.array().items(Joi.string().max(2000)).max(50),
  code_type: Joi.string()
    .valid('fixed', 'bulk')
    .when('trigger', {
      is: 'automatic',
      then: Joi.valid(Joi.override, 'fixed').messages({ 'any.only': '{{#label}} must be fixed: an automatic promotion has no codes' }),
    }),
  code: Joi.string()
    .pattern(/^[A-Za-z0-9_-]{1,64}$/)
    .when('code_type', { is: 'bulk', then: Joi.forbidden() })
    .when('trigger', { is: 'automatic', then: Joi.forbidden().messages({ 'any.unknown': noCode }) }),
  trigger: Joi.string().valid(...CAMPAIGN_TRIGGERS),
  stacking,
  bulk_code_usage_limit: Joi.number().integer().min(1),
  assignment: Joi.string().valid('all_users', 'assigned_users'),
  assigned_source_ids: Joi.array().items(Joi.string().min(1).max(256)).max(100_000),
  status: Joi.string().valid('active', 'disabled'),
  valid_from: dateTime,
  valid_until: dateTime.allow(null),
  schedule: Joi.object({
    days_of_week: Joi.array().items(Joi.number().integer().min(1).max(7)).unique().min(1),
    hours: Joi.array()
      .items(
        Joi.object({
          from: Joi.string()
            .pattern(/^([01]\d|2[0-3]):[0-5]\d$/)
            .required(),
          to: Joi.string()
            .pattern(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/)
            .required(),
        }),
      )
      .min(1),
  }).allow(null),
  limits: Joi.object(Object.fromEntries(LIMIT_KEYS.map((k) => [k, limit]))),
  budget: Joi.object({
    total: money,
    per_day: money,
    per_week: money,
    per_month: money,
    per_customer: money,
    when_exceeded: Joi.string().valid('refuse', 'cap').default('refuse'),
    notify_at: Joi.array().items(Joi.number().integer().min(1).max(99)).unique().max(10).default([]),
  }).allow(null),
  earning_multiplier: Joi.number().min(0).max(100).precision(2).allow(null),
  tiers: Joi.object({
    wallet_id: Joi.string().min(1).max(64).required(),
    levels: Joi.array().items(Joi.string().trim().min(1).max(50)).min(1).max(10).unique().required(),
  }).allow(null),
  discount: Joi.object({
    kind: Joi.string().valid('discount', 'cashback').required(),
    type: Joi.string()
      .valid(...DISCOUNT_TYPES)
      .required(),
    value: Joi.when('type', {
      is: Joi.valid('percentage', 'flat'),
      then: Joi.number()
        .positive()
        .required()
        .when('type', { is: 'percentage', then: Joi.number().max(100) }),
      otherwise: onlyFor('percentage and flat discounts'),
    }),
    max: Joi.number().positive().allow(null),
    wallet_id: Joi.string()
      .max(100)
      .allow(null)
      .when('kind', { is: 'discount', then: Joi.valid(null) }),
    // A cashback's own pending period, instead of its wallet's (docs/wallets.md).
    pending: pendingSchema.when('kind', { is: 'discount', then: Joi.valid(null) }),
    buy: kindField('buy_x_get_y', Joi.object({ quantity: quantity.required(), items: selector }).required()),
    get: kindField(
      'buy_x_get_y',
      Joi.object({ quantity: quantity.required(), items: selector, percent_off: Joi.number().positive().max(100).required() }).required(),
    ),
    max_repeats: Joi.when('type', {
      is: Joi.valid('buy_x_get_y', 'bundle'),
      then: quantity.default(1),
      otherwise: onlyFor('buy_x_get_y and bundle'),
    }),
    gift: kindField(
      'free_gift',
      Joi.object({
        product_id: Joi.string().min(1).max(256).required(),
        sku: Joi.string().min(1).max(256).allow(null),
        name: Joi.string().min(1).max(200).required(),
        quantity: quantity.default(1),
        value: Joi.number().min(0).max(1e12).default(0),
      }).required(),
    ),
    max_gifts: kindField('free_gift', Joi.number().integer().min(1).allow(null)),
    tiers: kindField(
      'tiered',
      Joi.array()
        .items(Joi.object({ from: Joi.number().min(0).max(1e12).required(), value: Joi.number().positive().max(1e12).required() }))
        .min(1)
        .max(20)
        .unique('from')
        .required(),
    ),
    tier_type: kindField('tiered', Joi.string().valid('percentage', 'flat').required()),
    bundle: kindField(
      'bundle',
      Joi.array()
        .items(Joi.object({ items: selector.invalid(null).required(), quantity: quantity.default(1) }))
        .min(1)
        .max(10)
        .required(),
    ),
    price: kindField('bundle', Joi.number().min(0).max(1e12).required()),
  }),
  discount_calculated_on_property: Joi.string().valid(...DISCOUNT_BASES),
  cart_conditions: Joi.array().items(condition(CART_CONDITION_FIELDS)).max(50),
  item_selector: selector,
  selected_items_validations: Joi.array().items(condition(SELECTED_ITEMS_FIELDS)).max(10),
  product_validations: Joi.array().items(condition(ITEM_CONDITION_FIELDS)).max(50),
  excluded_items: selector,
  metadata_keys: Joi.array()
    .items(
      Joi.object({
        key: Joi.string()
          .pattern(/^[A-Za-z0-9_]{1,64}$/)
          .required(),
        type: Joi.string()
          .valid(...METADATA_TYPES)
          .required(),
        scope: Joi.string()
          .valid(...METADATA_SCOPES)
          .default('both'),
      }),
    )
    .max(50),
};

/**
 * Creation: a name and a discount; everything else has a default (docs/campaigns.md): a `fixed`
 * campaign (whose `code` is then required, unless it is an automatic promotion: no code at all),
 * triggered by its code, on the selling subtotal, valid from now, for all users, without limits,
 * rules or stacking settings.
 */
export const createCampaignSchema = Joi.object({
  ...fields,
  name: fields.name.required(),
  trigger: fields.trigger.default('code'),
  code_type: fields.code_type.default('fixed'),
  code: fields.code.when('code_type', { is: 'fixed', then: Joi.when('trigger', { not: 'automatic', then: Joi.required() }) }),
  discount: fields.discount.required(),
  // Free shipping is computed on the shipping; every other type defaults to the selling subtotal.
  discount_calculated_on_property: fields.discount_calculated_on_property.when('discount.type', {
    is: 'free_shipping',
    then: Joi.any().default('shipping'),
    otherwise: Joi.any().default('selling_price_subtotal'),
  }),
});
/** Update: any subset; the code type, code and trigger of a campaign do not change (they decide whether it has codes). */
export const updateCampaignSchema = Joi.object({
  ...fields,
  code_type: Joi.forbidden(),
  code: Joi.forbidden(),
  trigger: Joi.forbidden().messages({ 'any.unknown': '{{#label}} is set when the campaign is created' }),
}).min(1);

export type AdminCampaign = Record<string, unknown>;

const cents = (x: number) => Math.round(x * 100);
const toDate = (v: string, tz: string) => (/(Z|[+-]\d{2}:\d{2})$/.test(v) ? new Date(v) : zonedLocalToUtc(v.slice(0, 19), tz));

function toConditions(list: { field: string; operator: Condition['operator']; value: Scalar | Scalar[] }[]): Condition[] {
  return list.map((c) => ({
    field: c.field,
    operator: c.operator,
    value: isMoneyField(c.field)
      ? Array.isArray(c.value)
        ? c.value.map((v) => (typeof v === 'number' ? cents(v) : v))
        : typeof c.value === 'number'
          ? cents(c.value)
          : c.value
      : c.value,
  }));
}
function fromConditions(list: Condition[]) {
  return list.map((c) => ({
    field: c.field,
    operator: c.operator,
    value: isMoneyField(c.field)
      ? Array.isArray(c.value)
        ? c.value.map((v) => (typeof v === 'number' ? v / 100 : v))
        : typeof c.value === 'number'
          ? c.value / 100
          : c.value
      : c.value,
  }));
}

/** The admin's stacking keys over `base` (the saved campaign's, or the defaults): a key left out keeps its value. */
function toStacking(a: Record<string, any>, base: Stacking): Stacking {
  return {
    priority: a.priority ?? base.priority,
    category: a.category !== undefined ? a.category : base.category,
    exclusive: a.exclusive ?? base.exclusive,
    combinesWith: a.combines_with ?? base.combinesWith,
  };
}

const centsOrNull = (x: number | null | undefined) => (x === undefined || x === null ? null : cents(x));
const unitsOrNull = (x: number | null | undefined) => (x === undefined || x === null ? null : x / 100);

function toBudget(b: Record<string, any>): Budget {
  return {
    totalCents: centsOrNull(b.total),
    perDayCents: centsOrNull(b.per_day),
    perWeekCents: centsOrNull(b.per_week),
    perMonthCents: centsOrNull(b.per_month),
    perCustomerCents: centsOrNull(b.per_customer),
    whenExceeded: b.when_exceeded ?? 'refuse',
    notifyAt: [...(b.notify_at ?? [])].sort((x: number, y: number) => x - y),
  };
}

function fromBudget(b: Budget | null | undefined) {
  if (!b) return null;
  return {
    total: unitsOrNull(b.totalCents),
    per_day: unitsOrNull(b.perDayCents),
    per_week: unitsOrNull(b.perWeekCents),
    per_month: unitsOrNull(b.perMonthCents),
    per_customer: unitsOrNull(b.perCustomerCents),
    when_exceeded: b.whenExceeded,
    notify_at: b.notifyAt,
  };
}

/** The admin's discount (validated) → the domain's: money in cents, each promotion kind's own settings. */
function toDiscount(d: Record<string, any>): Discount {
  const out: Discount = {
    kind: d.kind,
    type: d.type,
    value: d.type === 'flat' ? cents(d.value) : d.type === 'percentage' ? d.value : 0,
    maxCents: centsOrNull(d.max),
    walletId: d.wallet_id ?? null,
    cashbackPending: pendingRuleOf(d.pending),
  };
  if (d.type === 'buy_x_get_y') {
    out.buyXGetY = {
      buyQuantity: d.buy.quantity,
      buySelector: (d.buy.items ?? null) as ItemSelector | null,
      getQuantity: d.get.quantity,
      getSelector: (d.get.items ?? null) as ItemSelector | null,
      percentOff: d.get.percent_off,
      maxRepeats: d.max_repeats ?? 1,
    };
  }
  if (d.type === 'free_gift') {
    const g = d.gift;
    out.gift = {
      productId: g.product_id,
      sku: g.sku ?? null,
      name: g.name,
      quantity: g.quantity ?? 1,
      valueCents: cents(g.value ?? 0),
      maxGifts: d.max_gifts ?? null,
    };
  }
  if (d.type === 'tiered') {
    const flat = d.tier_type === 'flat';
    out.tiered = {
      valueType: d.tier_type,
      tiers: [...d.tiers]
        .sort((x: { from: number }, y: { from: number }) => x.from - y.from)
        .map((t: { from: number; value: number }) => ({ fromCents: cents(t.from), value: flat ? cents(t.value) : t.value })),
    };
  }
  if (d.type === 'bundle') {
    out.bundle = {
      components: d.bundle.map((c: { items: ItemSelector; quantity?: number }) => ({ selector: c.items, quantity: c.quantity ?? 1 })),
      priceCents: cents(d.price),
      maxRepeats: d.max_repeats ?? 1,
    };
  }
  return out;
}

/** The domain's discount → the admin's: every key of the format, null where the type does not use it. */
function fromDiscount(d: Discount) {
  const x = d.buyXGetY;
  const tiered = d.tiered;
  const flatTiers = tiered?.valueType === 'flat';
  return {
    kind: d.kind,
    type: d.type,
    value: d.type === 'flat' ? d.value / 100 : d.type === 'percentage' ? d.value : null,
    max: unitsOrNull(d.maxCents),
    wallet_id: d.walletId ?? null,
    pending: d.cashbackPending ?? null,
    ...(d.type === 'buy_x_get_y' && x
      ? {
          buy: { quantity: x.buyQuantity, items: fromSelector(x.buySelector) },
          get: { quantity: x.getQuantity, items: fromSelector(x.getSelector), percent_off: x.percentOff },
          max_repeats: x.maxRepeats,
        }
      : {}),
    ...(d.type === 'free_gift' && d.gift
      ? {
          gift: {
            product_id: d.gift.productId,
            sku: d.gift.sku,
            name: d.gift.name,
            quantity: d.gift.quantity,
            value: d.gift.valueCents / 100,
          },
          max_gifts: d.gift.maxGifts,
        }
      : {}),
    ...(d.type === 'tiered' && tiered
      ? {
          tiers: tiered.tiers.map((t) => ({ from: t.fromCents / 100, value: flatTiers ? t.value / 100 : t.value })),
          tier_type: tiered.valueType,
        }
      : {}),
    ...(d.type === 'bundle' && d.bundle
      ? {
          bundle: d.bundle.components.map((c) => ({ items: fromSelector(c.selector), quantity: c.quantity })),
          price: d.bundle.priceCents / 100,
          max_repeats: d.bundle.maxRepeats,
        }
      : {}),
  };
}

/**
 * Admin input (validated) → domain fields. `customerIds` maps assigned source ids; `tz` reads
 * offset-less dates as the application's local time; `current`: the saved campaign an update
 * changes (its stacking keys not sent are kept).
 */
export function toCampaignInput(
  a: Record<string, any>,
  tz: string,
  customerIds: string[] | undefined,
  current?: Pick<Campaign, 'stacking'>,
): Partial<CampaignInput> {
  const out: Partial<CampaignInput> = {};
  if (a.name !== undefined) out.name = a.name;
  if (a.description !== undefined) out.description = a.description;
  if (a.terms_and_conditions !== undefined) out.termsAndConditions = a.terms_and_conditions;
  if (a.code_type !== undefined) out.codeType = a.code_type;
  if (a.code !== undefined) out.code = a.code;
  if (a.trigger !== undefined) out.trigger = a.trigger;
  if (a.stacking !== undefined) out.stacking = toStacking(a.stacking, current?.stacking ?? DEFAULT_STACKING);
  if (a.bulk_code_usage_limit !== undefined) out.bulkCodeUsageLimit = a.bulk_code_usage_limit;
  if (a.assignment !== undefined) out.assignment = a.assignment;
  if (customerIds !== undefined) out.assignedCustomerIds = customerIds;
  if (a.status !== undefined) out.status = a.status;
  if (a.valid_from !== undefined) out.validFrom = toDate(a.valid_from, tz);
  if (a.valid_until !== undefined) out.validUntil = a.valid_until === null ? null : toDate(a.valid_until, tz);
  if (a.schedule !== undefined)
    out.schedule = a.schedule === null ? null : { daysOfWeek: a.schedule.days_of_week, hours: a.schedule.hours };
  if (a.limits !== undefined) out.limits = Object.fromEntries(LIMIT_KEYS.map((k) => [LIMIT_FIELDS[k], a.limits[k] ?? null]));
  if (a.budget !== undefined) out.budget = a.budget === null ? null : toBudget(a.budget);
  if (a.earning_multiplier !== undefined)
    out.earningMultiplier = a.earning_multiplier === null ? null : Math.round(a.earning_multiplier * 100);
  if (a.tiers !== undefined) out.tierRequirement = a.tiers === null ? null : { walletId: a.tiers.wallet_id, levels: a.tiers.levels };
  if (a.discount !== undefined) out.discount = toDiscount(a.discount);
  if (a.discount_calculated_on_property !== undefined) out.discountCalculatedOn = a.discount_calculated_on_property;
  if (a.cart_conditions !== undefined) out.cartConditions = toConditions(a.cart_conditions);
  if (a.item_selector !== undefined) out.itemSelector = a.item_selector as ItemSelector | null;
  if (a.selected_items_validations !== undefined) out.selectedItemsValidations = toConditions(a.selected_items_validations);
  if (a.product_validations !== undefined) out.productValidations = toConditions(a.product_validations);
  if (a.excluded_items !== undefined) out.excludedItems = a.excluded_items as ItemSelector | null;
  if (a.metadata_keys !== undefined) out.metadataKeys = a.metadata_keys;
  return out;
}

/** Cross-field rules joi cannot express alone; each failure names the field. */
export function checkCampaignRules(
  c: Pick<
    Campaign,
    'discountCalculatedOn' | 'itemSelector' | 'metadataKeys' | 'cartConditions' | 'productValidations' | 'excludedItems' | 'discount'
  >,
) {
  const refuse = (field: string, details: string) => {
    throw adminInvalid(details, { [field]: details });
  };
  const type = c.discount.type;
  if (type === 'free_shipping' && c.discountCalculatedOn !== 'shipping')
    refuse('discount_calculated_on_property', '"discount_calculated_on_property" must be shipping for a free_shipping discount');
  if ((type === 'free_shipping' || type === 'free_gift') && c.discount.kind !== 'discount')
    refuse('discount.kind', `"discount.kind" must be discount for a ${type} discount`);
  if (c.discount.tiered?.valueType === 'percentage') {
    c.discount.tiered.tiers.forEach((t, i) => {
      if (t.value > 100) refuse(`discount.tiers.${i}.value`, `"discount.tiers[${i}].value" must be at most 100 for percentage tiers`);
    });
  }
  if (c.discountCalculatedOn.startsWith('selected_items_') && !c.itemSelector) {
    refuse('item_selector', '"item_selector" is required when discount_calculated_on_property is a selected_items_* base');
  }
  const declared = (level: 'order' | 'item') =>
    new Set(c.metadataKeys.filter((k) => isReadAt(k.scope, level)).map((k) => `metadata.${k.key}`));
  const order = declared('order');
  const item = declared('item');
  c.cartConditions.forEach((cond, i) => {
    if (cond.field.startsWith('metadata.') && !order.has(cond.field))
      refuse(`cart_conditions.${i}.field`, `"cart_conditions" uses undeclared order metadata key ${cond.field}`);
  });
  c.productValidations.forEach((cond, i) => {
    if (cond.field.startsWith('metadata.') && !item.has(cond.field))
      refuse(`product_validations.${i}.field`, `"product_validations" uses undeclared item metadata key ${cond.field}`);
  });
  const kindSelectors: [string, ItemSelector | null][] = [
    ['discount.buy.items', c.discount.buyXGetY?.buySelector ?? null],
    ['discount.get.items', c.discount.buyXGetY?.getSelector ?? null],
    ...(c.discount.bundle?.components ?? []).map((b, i): [string, ItemSelector] => [`discount.bundle.${i}.items`, b.selector]),
  ];
  for (const [name, sel] of [['item_selector', c.itemSelector] as const, ['excluded_items', c.excludedItems] as const, ...kindSelectors]) {
    sel?.properties.forEach((p, i) => {
      if (p.property.startsWith('metadata.') && !item.has(p.property))
        refuse(`${name}.properties.${i}.property`, `"${name}" uses undeclared item metadata key ${p.property}`);
    });
  }
}

/** A selector as the admin reads it: every property test names its operator (`in` when stored without). */
export const fromSelector = (s: ItemSelector | null) =>
  s && { match: s.match, properties: s.properties.map((p) => ({ property: p.property, operator: p.operator ?? 'in', values: p.values })) };

/** Domain → admin format (what the admin API returns). */
export function toAdminCampaign(c: Campaign, sourceIds: string[]): AdminCampaign {
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    terms_and_conditions: c.termsAndConditions,
    code_type: c.codeType,
    ...(c.code ? { code: c.code } : {}),
    bulk_code_usage_limit: c.bulkCodeUsageLimit ?? 1,
    assignment: c.assignment,
    assigned_source_ids: sourceIds,
    status: c.status,
    archived_at: c.archivedAt ? c.archivedAt.toISOString() : null,
    valid_from: c.validFrom.toISOString(),
    valid_until: c.validUntil ? c.validUntil.toISOString() : null,
    schedule: c.schedule ? { days_of_week: c.schedule.daysOfWeek, hours: c.schedule.hours } : null,
    limits: Object.fromEntries(LIMIT_KEYS.map((k) => [k, c.limits[LIMIT_FIELDS[k]] ?? null])),
    budget: fromBudget(c.budget),
    earning_multiplier: c.earningMultiplier == null ? null : c.earningMultiplier / 100,
    tiers: c.tierRequirement ? { wallet_id: c.tierRequirement.walletId, levels: c.tierRequirement.levels } : null,
    discount: fromDiscount(c.discount),
    discount_calculated_on_property: c.discountCalculatedOn,
    cart_conditions: fromConditions(c.cartConditions),
    item_selector: fromSelector(c.itemSelector),
    selected_items_validations: fromConditions(c.selectedItemsValidations),
    product_validations: fromConditions(c.productValidations),
    excluded_items: fromSelector(c.excludedItems),
    metadata_keys: c.metadataKeys,
    trigger: c.trigger,
    stacking: {
      priority: c.stacking.priority,
      category: c.stacking.category,
      exclusive: c.stacking.exclusive,
      combines_with: c.stacking.combinesWith,
    },
  };
}
