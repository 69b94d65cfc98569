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
const selector = Joi.object({
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
  discount: Joi.object({
    kind: Joi.string().valid('discount', 'cashback').required(),
    type: Joi.string().valid('percentage', 'flat').required(),
    value: Joi.number()
      .positive()
      .required()
      .when('type', { is: 'percentage', then: Joi.number().max(100) }),
    max: Joi.number().positive().allow(null),
    wallet_id: Joi.string()
      .max(100)
      .allow(null)
      .when('kind', { is: 'discount', then: Joi.valid(null) }),
    // A cashback's own pending period, instead of its wallet's (docs/wallets.md).
    pending: pendingSchema.when('kind', { is: 'discount', then: Joi.valid(null) }),
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
  discount_calculated_on_property: fields.discount_calculated_on_property.default('selling_price_subtotal'),
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
  if (a.discount !== undefined) {
    const d = a.discount;
    out.discount = {
      kind: d.kind,
      type: d.type,
      value: d.type === 'flat' ? cents(d.value) : d.value,
      maxCents: d.max === undefined || d.max === null ? null : cents(d.max),
      walletId: d.wallet_id ?? null,
      cashbackPending: pendingRuleOf(d.pending),
    };
  }
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
  c: Pick<Campaign, 'discountCalculatedOn' | 'itemSelector' | 'metadataKeys' | 'cartConditions' | 'productValidations' | 'excludedItems'>,
) {
  const refuse = (field: string, details: string) => {
    throw adminInvalid(details, { [field]: details });
  };
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
  for (const [name, sel] of [
    ['item_selector', c.itemSelector],
    ['excluded_items', c.excludedItems],
  ] as const) {
    sel?.properties.forEach((p, i) => {
      if (p.property.startsWith('metadata.') && !item.has(p.property))
        refuse(`${name}.properties.${i}.property`, `"${name}" uses undeclared item metadata key ${p.property}`);
    });
  }
}

/** A selector as the admin reads it: every property test names its operator (`in` when stored without). */
const fromSelector = (s: ItemSelector | null) =>
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
    discount: {
      kind: c.discount.kind,
      type: c.discount.type,
      value: c.discount.type === 'flat' ? c.discount.value / 100 : c.discount.value,
      max: c.discount.maxCents === null || c.discount.maxCents === undefined ? null : c.discount.maxCents / 100,
      wallet_id: c.discount.walletId ?? null,
      pending: c.discount.cashbackPending ?? null,
    },
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
