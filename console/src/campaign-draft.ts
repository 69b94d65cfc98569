/**
 * The campaign editor's form state and its translation to and from the admin API's campaign
 * format (docs/campaigns.md). The form keeps what was typed (numbers as text); `toBody` sends a
 * number where the text is one and the text otherwise, so the admin API — the one place the
 * format is checked — refuses it with a message for that field.
 */
import { limitKeyValues, type Schemas } from '@coupons/client';
import type { Campaign } from './api';

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
  discount: {
    kind: Campaign['discount']['kind'];
    type: Campaign['discount']['type'];
    value: string;
    max: string;
    wallet_id: string;
    /** The cashback's own pending period in days ('' : the wallet's); a pending `until` an instant is kept as it was. */
    pending_days: string;
    pending_until: string | null;
  };
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
    discount: { kind: 'discount', type: 'percentage', value: '', max: '', wallet_id: '', pending_days: '', pending_until: null },
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

/** A saved campaign in the form. */
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
    discount: {
      kind: c.discount.kind,
      type: c.discount.type,
      value: text(c.discount.value),
      max: text(c.discount.max),
      wallet_id: c.discount.wallet_id ?? '',
      pending_days: c.discount.pending && 'days' in c.discount.pending ? String(c.discount.pending.days) : '',
      pending_until: c.discount.pending && 'until' in c.discount.pending ? c.discount.pending.until : null,
    },
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
    discount: {
      kind: d.discount.kind,
      type: d.discount.type,
      value: numberOr(d.discount.value),
      max: optionalNumber(d.discount.max),
      wallet_id: d.discount.kind === 'cashback' && d.discount.wallet_id ? d.discount.wallet_id : null,
      pending:
        d.discount.kind !== 'cashback'
          ? null
          : d.discount.pending_days.trim()
            ? { days: numberOr(d.discount.pending_days) }
            : d.discount.pending_until
              ? { until: d.discount.pending_until }
              : null,
    },
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
