/**
 * The campaign editor's form state and its translation to and from the admin API's campaign
 * format (docs/campaigns.md). The form keeps what was typed (numbers as text); `toBody` sends a
 * number where the text is one and the text otherwise, so the admin API — the one place the
 * format is checked — refuses it with a message for that field.
 */
import { limitKeyValues, type Schemas } from '@coupons/client';
import type { Campaign } from './api';
import { budgetKeys } from './promotion-words';

/** The text fields of an order or item: their condition values stay text; every other known field is a number. */
const TEXT_FIELDS = new Set(['payment_mode', 'product_id', 'sku', 'name']);

export interface ConditionRow {
  field: string;
  operator: Schemas['ConditionOperator'];
  value: string;
}
export interface SelectorRow {
  property: string;
  operator: Schemas['SelectorOperator'];
  values: string;
}
export interface SelectorDraft {
  enabled: boolean;
  match: Schemas['SelectorMatch'];
  properties: SelectorRow[];
}
export interface MetadataKeyRow {
  key: string;
  type: Schemas['MetadataType'];
  scope: Schemas['MetadataScope'];
}

/** How the campaign combines with other promotions on one order (docs/stacking.md), as typed. */
export interface StackingDraft {
  priority: string;
  category: string;
  exclusive: boolean;
  /** `all`: with every promotion; `only`: with those of the categories listed. */
  combines: 'all' | 'only';
  categories: string;
}

/** One threshold of a tiered discount, as typed: from this much of the base, this value. */
export interface TierRow {
  from: string;
  value: string;
}
/** One part of a bundle: the items it takes and how many. */
export interface BundlePart {
  items: SelectorDraft;
  quantity: string;
}

/**
 * What the campaign gives, as typed: `value` and `max` for a percentage or an amount off, and each
 * promotion kind's own fields (docs/campaigns.md "Promotion kinds"). Only the chosen type's are sent.
 */
export interface DiscountDraft {
  kind: Campaign['discount']['kind'];
  type: Schemas['DiscountType'];
  value: string;
  max: string;
  wallet_id: string;
  /** The cashback's own pending period in days ('' : the wallet's); a pending `until` an instant is kept as it was. */
  pending_days: string;
  pending_until: string | null;
  /** Buy X get Y: the bought items (not enabled: any item) and the items had at `percent_off` (not enabled: the same as bought). */
  buy_quantity: string;
  buy_items: SelectorDraft;
  get_quantity: string;
  get_items: SelectorDraft;
  percent_off: string;
  /** Buy X get Y and bundle: how many times one order may take it. */
  max_repeats: string;
  gift: { product_id: string; sku: string; name: string; quantity: string; value: string };
  /** Free gift: how many it gives away in all ('' : no limit). */
  max_gifts: string;
  tiers: TierRow[];
  tier_type: 'percentage' | 'flat';
  bundle: BundlePart[];
  price: string;
}

/** A money budget as typed: each cap in currency units ('' : none); `enabled` false is no budget. */
export interface BudgetDraft {
  enabled: boolean;
  caps: Record<Schemas['BudgetKey'], string>;
  when_exceeded: Schemas['BudgetWhenExceeded'];
  /** Shares of the total (percent), comma-separated. */
  notify_at: string;
}

/**
 * Who can use it by loyalty tier, as chosen: `only` false is every customer; otherwise customers at
 * one of `levels` (level names) of the tiers of the wallet `wallet_id`.
 */
export interface TierRuleDraft {
  only: boolean;
  wallet_id: string;
  levels: string[];
}

/** Whether a discount type takes `value` (a percentage or an amount); the promotion kinds have their own fields. */
export const takesValue = (type: Schemas['DiscountType']) => type === 'percentage' || type === 'flat';

export interface Draft {
  name: string;
  description: string;
  terms: string;
  /** `automatic`: no code, applied to every qualifying order; set when the campaign is created. */
  trigger: Schemas['CampaignTrigger'];
  code_type: Campaign['code_type'];
  code: string;
  bulk_code_usage_limit: string;
  assignment: Campaign['assignment'];
  assigned: string;
  status: Campaign['status'];
  valid_from: string;
  valid_until: string;
  days: number[];
  hours: { from: string; to: string }[];
  /** Each limit as typed; one not there is empty (no limit). */
  limits: Partial<Record<Schemas['LimitKey'], string>>;
  discount: DiscountDraft;
  budget: BudgetDraft;
  /** The points multiplier of orders redeemed with it, as typed ('' : normal points). */
  earning_multiplier: string;
  tiers: TierRuleDraft;
  base: Schemas['DiscountBase'];
  cart_conditions: ConditionRow[];
  item_selector: SelectorDraft;
  excluded_items: SelectorDraft;
  selected_items_validations: ConditionRow[];
  product_validations: ConditionRow[];
  metadata_keys: MetadataKeyRow[];
  stacking: StackingDraft;
}

const noSelector = (): SelectorDraft => ({ enabled: false, match: 'AND', properties: [{ property: 'sku', operator: 'in', values: '' }] });
/** A bundle part's selector: a bundle part always names its items. */
export const freshPart = (): BundlePart => ({ items: { ...noSelector(), enabled: true }, quantity: '1' });
const noCaps = (): BudgetDraft['caps'] => Object.fromEntries(budgetKeys.map((k) => [k, ''])) as BudgetDraft['caps'];

export function emptyDraft(): Draft {
  return {
    name: '',
    description: '',
    terms: '',
    trigger: 'code',
    code_type: 'fixed',
    code: '',
    bulk_code_usage_limit: '1',
    assignment: 'all_users',
    assigned: '',
    status: 'active',
    valid_from: '',
    valid_until: '',
    days: [],
    hours: [],
    limits: {},
    discount: {
      kind: 'discount',
      type: 'percentage',
      value: '',
      max: '',
      wallet_id: '',
      pending_days: '',
      pending_until: null,
      buy_quantity: '1',
      buy_items: noSelector(),
      get_quantity: '1',
      get_items: noSelector(),
      percent_off: '100',
      max_repeats: '1',
      gift: { product_id: '', sku: '', name: '', quantity: '1', value: '0' },
      max_gifts: '',
      tiers: [{ from: '', value: '' }],
      tier_type: 'percentage',
      bundle: [freshPart()],
      price: '',
    },
    budget: { enabled: false, caps: noCaps(), when_exceeded: 'refuse', notify_at: '' },
    earning_multiplier: '',
    tiers: { only: false, wallet_id: '', levels: [] },
    base: 'selling_price_subtotal',
    cart_conditions: [],
    item_selector: noSelector(),
    excluded_items: noSelector(),
    selected_items_validations: [],
    product_validations: [],
    metadata_keys: [],
    stacking: { priority: '0', category: '', exclusive: false, combines: 'all', categories: '' },
  };
}

type Scalar = string | number | boolean;
const text = (v: Scalar | Scalar[] | null | undefined): string =>
  v === null || v === undefined ? '' : Array.isArray(v) ? v.join(', ') : String(v);

function selectorDraft(s: Campaign['item_selector']): SelectorDraft {
  if (!s) return noSelector();
  return {
    enabled: true,
    match: s.match,
    properties: s.properties.map((p) => ({ property: p.property, operator: p.operator ?? 'in', values: p.values.join(', ') })),
  };
}

const conditionRows = (cs: Schemas['Condition'][] | undefined): ConditionRow[] =>
  (cs ?? []).map((c) => ({ field: c.field, operator: c.operator, value: text(c.value) }));

function discountDraft(d: Campaign['discount']): DiscountDraft {
  const empty = emptyDraft().discount;
  return {
    kind: d.kind,
    type: d.type,
    value: text(d.value),
    max: text(d.max),
    wallet_id: d.wallet_id ?? '',
    pending_days: d.pending && 'days' in d.pending ? String(d.pending.days) : '',
    pending_until: d.pending && 'until' in d.pending ? d.pending.until : null,
    buy_quantity: d.buy ? String(d.buy.quantity) : empty.buy_quantity,
    buy_items: selectorDraft(d.buy?.items ?? null),
    get_quantity: d.get ? String(d.get.quantity) : empty.get_quantity,
    get_items: selectorDraft(d.get?.items ?? null),
    percent_off: d.get ? String(d.get.percent_off) : empty.percent_off,
    max_repeats: text(d.max_repeats) || empty.max_repeats,
    gift: d.gift
      ? {
          product_id: d.gift.product_id,
          sku: d.gift.sku ?? '',
          name: d.gift.name,
          quantity: String(d.gift.quantity ?? 1),
          value: String(d.gift.value ?? 0),
        }
      : empty.gift,
    max_gifts: text(d.max_gifts),
    tiers: d.tiers?.length ? d.tiers.map((t) => ({ from: String(t.from), value: String(t.value) })) : empty.tiers,
    tier_type: d.tier_type ?? empty.tier_type,
    bundle: d.bundle?.length ? d.bundle.map((p) => ({ items: selectorDraft(p.items), quantity: String(p.quantity ?? 1) })) : empty.bundle,
    price: text(d.price),
  };
}

/** A saved campaign in the form. */
/**
 * A new campaign's draft from an existing one (the campaigns list's "Duplicate"): every rule, its
 * name marked as a copy, no code (a code is one campaign's: the copy needs its own; a bulk
 * campaign's codes stay with it), and paused until it is made active.
 */
export function copyDraftOf(c: Campaign): Draft {
  return { ...draftOf(c), name: `Copy of ${c.name}`, code: '', status: 'disabled' };
}

export function draftOf(c: Campaign): Draft {
  return {
    name: c.name,
    description: c.description ?? '',
    terms: (c.terms_and_conditions ?? []).join('\n'),
    trigger: c.trigger,
    code_type: c.code_type ?? 'fixed',
    code: c.code ?? '',
    bulk_code_usage_limit: text(c.bulk_code_usage_limit),
    assignment: c.assignment ?? 'all_users',
    assigned: (c.assigned_source_ids ?? []).join('\n'),
    status: c.status ?? 'active',
    valid_from: c.valid_from ?? '',
    valid_until: c.valid_until ?? '',
    days: c.schedule?.days_of_week ?? [],
    hours: c.schedule?.hours ?? [],
    limits: Object.fromEntries(limitKeyValues.map((k) => [k, text(c.limits[k])])),
    discount: discountDraft(c.discount),
    budget: c.budget
      ? {
          enabled: true,
          caps: Object.fromEntries(budgetKeys.map((k) => [k, text(c.budget?.[k])])) as BudgetDraft['caps'],
          when_exceeded: c.budget.when_exceeded ?? 'refuse',
          notify_at: (c.budget.notify_at ?? []).join(', '),
        }
      : emptyDraft().budget,
    earning_multiplier: text(c.earning_multiplier),
    tiers: c.tiers ? { only: true, wallet_id: c.tiers.wallet_id, levels: [...c.tiers.levels] } : emptyDraft().tiers,
    base: c.discount_calculated_on_property ?? 'selling_price_subtotal',
    cart_conditions: conditionRows(c.cart_conditions),
    item_selector: selectorDraft(c.item_selector),
    excluded_items: selectorDraft(c.excluded_items),
    selected_items_validations: conditionRows(c.selected_items_validations),
    product_validations: conditionRows(c.product_validations),
    metadata_keys: (c.metadata_keys ?? []).map((k) => ({ key: k.key, type: k.type, scope: k.scope ?? 'both' })),
    stacking: {
      priority: String(c.stacking.priority),
      category: c.stacking.category ?? '',
      exclusive: c.stacking.exclusive,
      combines: c.stacking.combines_with === 'all' ? 'all' : 'only',
      categories: c.stacking.combines_with === 'all' ? '' : c.stacking.combines_with.join(', '),
    },
  };
}

/** A number where the text is one; otherwise the text itself, for the API to refuse by name. */
function numberOr(s: string): number | string {
  const t = s.trim();
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : t;
}
const optionalNumber = (s: string): number | string | null => (s.trim() === '' ? null : numberOr(s));

/** A condition's value as the field takes it: numbers for amounts and counts, text for text fields, booleans for boolean metadata. */
function valueOf(row: ConditionRow, metadata: MetadataKeyRow[]): Scalar | Scalar[] {
  const key = row.field.startsWith('metadata.') ? metadata.find((k) => `metadata.${k.key}` === row.field) : undefined;
  const one = (s: string): Scalar => {
    const t = s.trim();
    if (key?.type === 'boolean') return t === 'true' ? true : t === 'false' ? false : t;
    if (key?.type === 'string' || TEXT_FIELDS.has(row.field)) return t;
    return numberOr(t);
  };
  return row.operator === 'in' || row.operator === 'nin' ? row.value.split(',').map(one) : one(row.value);
}

/** The non-empty lines of a text area. */
const eachLine = (s: string) =>
  s
    .split('\n')
    .map((x) => x.trim())
    .filter(Boolean);
/** A list typed as lines or comma-separated. */
const lines = (s: string) => eachLine(s.replace(/,/g, '\n'));

function selectorBody(s: SelectorDraft) {
  if (!s.enabled) return null;
  return { match: s.match, properties: s.properties.map((p) => ({ property: p.property, operator: p.operator, values: lines(p.values) })) };
}

/** The form as the admin API's campaign format: every field for a new campaign; for a saved one, all but its code. */
export function toBody(d: Draft, editing: boolean): Record<string, unknown> {
  const conditions = (rows: ConditionRow[]) =>
    rows.map((r) => ({ field: r.field, operator: r.operator, value: valueOf(r, d.metadata_keys) }));
  const body: Record<string, unknown> = {
    name: d.name,
    description: d.description,
    terms_and_conditions: eachLine(d.terms),
    ...(editing
      ? {}
      : d.trigger === 'automatic'
        ? { trigger: d.trigger, code_type: 'fixed' }
        : { trigger: d.trigger, code_type: d.code_type, ...(d.code_type === 'fixed' ? { code: d.code.trim() } : {}) }),
    ...(d.code_type === 'bulk' && d.trigger === 'code' ? { bulk_code_usage_limit: numberOr(d.bulk_code_usage_limit) } : {}),
    assignment: d.assignment,
    assigned_source_ids: d.assignment === 'assigned_users' ? lines(d.assigned) : [],
    status: d.status,
    ...(d.valid_from.trim() ? { valid_from: d.valid_from.trim() } : {}),
    valid_until: d.valid_until.trim() || null,
    schedule: d.days.length || d.hours.length ? { days_of_week: [...d.days].sort(), hours: d.hours } : null,
    limits: Object.fromEntries(limitKeyValues.map((k) => [k, optionalNumber(d.limits[k] ?? '')])),
    discount: discountBody(d.discount),
    budget: budgetBody(d.budget),
    earning_multiplier: optionalNumber(d.earning_multiplier),
    tiers: d.tiers.only ? { wallet_id: d.tiers.wallet_id, levels: d.tiers.levels } : null,
    discount_calculated_on_property: d.base,
    cart_conditions: conditions(d.cart_conditions),
    item_selector: selectorBody(d.item_selector),
    excluded_items: selectorBody(d.excluded_items),
    selected_items_validations: conditions(d.selected_items_validations),
    product_validations: conditions(d.product_validations),
    metadata_keys: d.metadata_keys.map((k) => ({ key: k.key.trim(), type: k.type, scope: k.scope })),
    stacking: {
      priority: d.stacking.priority.trim() === '' ? 0 : numberOr(d.stacking.priority),
      category: d.stacking.category.trim() || null,
      exclusive: d.stacking.exclusive,
      combines_with: d.stacking.combines === 'all' ? 'all' : lines(d.stacking.categories),
    },
  };
  return body;
}

/** The discount as the format takes it: the chosen type's own keys, every other type's null. */
function discountBody(d: DiscountDraft): Record<string, unknown> {
  const t = d.type;
  return {
    kind: d.kind,
    type: t,
    value: takesValue(t) ? numberOr(d.value) : null,
    max: optionalNumber(d.max),
    wallet_id: d.kind === 'cashback' && d.wallet_id ? d.wallet_id : null,
    pending:
      d.kind !== 'cashback'
        ? null
        : d.pending_days.trim()
          ? { days: numberOr(d.pending_days) }
          : d.pending_until
            ? { until: d.pending_until }
            : null,
    buy: t === 'buy_x_get_y' ? { quantity: numberOr(d.buy_quantity), items: selectorBody(d.buy_items) } : null,
    get:
      t === 'buy_x_get_y'
        ? { quantity: numberOr(d.get_quantity), items: selectorBody(d.get_items), percent_off: numberOr(d.percent_off) }
        : null,
    max_repeats: t === 'buy_x_get_y' || t === 'bundle' ? (optionalNumber(d.max_repeats) ?? 1) : null,
    gift:
      t === 'free_gift'
        ? {
            product_id: d.gift.product_id.trim(),
            sku: d.gift.sku.trim() || null,
            name: d.gift.name.trim(),
            quantity: d.gift.quantity.trim() === '' ? 1 : numberOr(d.gift.quantity),
            value: d.gift.value.trim() === '' ? 0 : numberOr(d.gift.value),
          }
        : null,
    max_gifts: t === 'free_gift' ? optionalNumber(d.max_gifts) : null,
    tiers: t === 'tiered' ? d.tiers.map((r) => ({ from: numberOr(r.from), value: numberOr(r.value) })) : null,
    tier_type: t === 'tiered' ? d.tier_type : null,
    bundle:
      t === 'bundle' ? d.bundle.map((p) => ({ items: selectorBody({ ...p.items, enabled: true }), quantity: numberOr(p.quantity) })) : null,
    price: t === 'bundle' ? numberOr(d.price) : null,
  };
}

/** The budget as the format takes it, or null: none. */
function budgetBody(b: BudgetDraft): Record<string, unknown> | null {
  if (!b.enabled) return null;
  return {
    ...Object.fromEntries(budgetKeys.map((k) => [k, optionalNumber(b.caps[k])])),
    when_exceeded: b.when_exceeded,
    notify_at: lines(b.notify_at).map(numberOr),
  };
}
