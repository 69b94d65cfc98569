/**
 * Plain domain types shared by the rules engine, the use cases and the data layer.
 * Money inside the domain is integer cents; amounts from requests are converted at the edge.
 */
import type { PendingRule } from './point-buckets.js';

/** The seven bases a discount can be computed on (contract: "Discount types"). */
export const DISCOUNT_BASES = [
  'selling_price_subtotal',
  'original_price_subtotal',
  'shipping',
  'selected_items_selling_price_subtotal',
  'selected_items_original_price_subtotal',
  'valid_cart_selling_price_subtotal',
  'valid_cart_original_price_subtotal',
] as const;
export type DiscountBase = (typeof DISCOUNT_BASES)[number];

export const OPERATORS = ['gt', 'gte', 'lt', 'lte', 'eq', 'neq', 'in', 'nin'] as const;
export type Operator = (typeof OPERATORS)[number];

export type Scalar = string | number | boolean;

/**
 * A threshold or membership test on one field, e.g. `{field: 'selling_price_subtotal',
 * operator: 'gt', value: 200}` → message `selling_price_subtotal should be greater than 200.00`.
 * `field` is an order field (cart conditions), an item field (product validations), a
 * selected-items aggregate, or `metadata.<key>` for a declared metadata key.
 */
export interface Condition {
  field: string;
  operator: Operator;
  value: Scalar | Scalar[];
}

/** Cart-level fields a cart condition may test. Mandatory ones fail when not sent (list rule 5). */
export const ORDER_CONDITION_FIELDS = [
  'selling_price_subtotal',
  'original_price_subtotal',
  'shipping',
  'tax',
  'payment_mode',
  'items_count',
  'total_qty',
] as const;
/** The order totals apply requires, in the order their absence is reported (docs/decisions.md, "Apply mandatory fields"). */
export const MANDATORY_ORDER_FIELDS = ['original_price_subtotal', 'selling_price_subtotal'] as const;

/** Item fields a product validation may test. */
export const ITEM_CONDITION_FIELDS = ['selling_price', 'original_price', 'cart_qty', 'shipping', 'product_id', 'sku', 'name'] as const;
/** The item prices apply requires (with `product_id` and a `shipping` key), in the order their absence is reported. */
export const MANDATORY_ITEM_PRICES = ['original_price', 'selling_price'] as const;

/** Aggregates over the selected items; combined with AND. */
export const SELECTED_ITEMS_FIELDS = [
  'selected_items_total_qty',
  'selected_items_selling_price_subtotal',
  'selected_items_original_price_subtotal',
] as const;

/** Item properties a selector may match on (plus `metadata.<declared key>`). */
export const SELECTOR_PROPERTIES = ['product_id', 'sku', 'name'] as const;

/**
 * How a selector tests a property: `in` — equals one of the values; `nin` — equals none of them;
 * `eq` / `neq` — the same with a single value ("equal" / "not equal").
 */
export const SELECTOR_OPERATORS = ['in', 'nin', 'eq', 'neq'] as const;
export type SelectorOperator = (typeof SELECTOR_OPERATORS)[number];

/**
 * One property test of an item selector, e.g. `{property: 'sku', operator: 'nin', values:
 * ['GIFTCARD']}`. `operator` defaults to `in`. An item that did not send the property never
 * satisfies `in`/`eq` and always satisfies `nin`/`neq` (it is not one of the values).
 */
export interface PropertyMatch {
  property: string; // 'product_id' | 'sku' | 'name' | `metadata.${key}`
  operator?: SelectorOperator;
  values: Scalar[];
}

/** Chooses items: `AND` — an item has all the properties; `OR` — any of them. */
export interface ItemSelector {
  match: 'AND' | 'OR';
  properties: PropertyMatch[];
}

export type MetadataType = 'string' | 'number' | 'boolean';

/** Where a declared metadata key is read: the order's metadata, each item's, or both. */
export const METADATA_SCOPES = ['both', 'order', 'item'] as const;
export type MetadataScope = (typeof METADATA_SCOPES)[number];

/** A metadata key the campaign declares; only these are evaluated and echoed (docs/decisions.md#19). */
export interface MetadataKey {
  key: string;
  type: MetadataType;
  /** `both` (the default): usable in cart conditions and in item rules alike. */
  scope: MetadataScope;
}

export interface Discount {
  /** `discount` lowers the amount to pay; `cashback` is promised (and credited on redeem). */
  kind: 'discount' | 'cashback';
  type: 'percentage' | 'flat';
  /** Percent (0-100] for percentage; cents for flat. */
  value: number;
  /** Cap in cents, optional. */
  maxCents?: number | null;
  /** For cashback: the application's `wallet_id` to credit on redeem (docs/decisions.md#20). */
  walletId?: string | null;
  /** For cashback: how long the credit stays pending (docs/wallets.md); null: the wallet's own setting. */
  cashbackPending?: PendingRule;
}

export interface Limits {
  total?: number | null;
  perCustomer?: number | null;
  perDay?: number | null;
  perWeek?: number | null;
  perMonth?: number | null;
}

/** Local days (1 = Monday … 7 = Sunday) and hour ranges `HH:MM`–`HH:MM` (end exclusive). */
export interface Schedule {
  daysOfWeek?: number[];
  hours?: { from: string; to: string }[];
}

/** A campaign is one coupon definition: its rules, and either one fixed code or bulk codes. */
export interface Campaign {
  id: string;
  applicationId: string;
  name: string;
  description: string;
  termsAndConditions: string[];
  codeType: 'fixed' | 'bulk';
  /** The fixed code as configured (spelling echoed); undefined for bulk campaigns. */
  code?: string;
  /** How many times one bulk code can be redeemed (default 1: single use). */
  bulkCodeUsageLimit?: number;
  assignment: 'all_users' | 'assigned_users';
  /** Service customer ids the campaign is assigned to (when `assigned_users`). */
  assignedCustomerIds: string[];
  status: 'active' | 'disabled';
  /**
   * When the campaign was archived (retired for good unless unarchived), or null. An archived
   * campaign is never available, whatever its status: not listed, not applicable, not
   * redeemable; its redemptions can still be reverted.
   */
  archivedAt?: Date | null;
  validFrom: Date;
  validUntil: Date | null;
  schedule: Schedule | null;
  limits: Limits;
  discount: Discount;
  discountCalculatedOn: DiscountBase;
  cartConditions: Condition[];
  itemSelector: ItemSelector | null;
  selectedItemsValidations: Condition[];
  /** Per-item validations; apply to the selected items when a selector exists, else to every item. */
  productValidations: Condition[];
  /** Items left out of a `valid_cart_*` discount. */
  excludedItems: ItemSelector | null;
  metadataKeys: MetadataKey[];
  updatedAt: Date;
}

/** Usage of a campaign as seen by one customer at one moment (period keys of "now"). */
export interface UsageCounts {
  total: number;
  perCustomer: number;
  perDay: number;
  perWeek: number;
  perMonth: number;
  /** Redemptions of the bulk code being validated (bulk campaigns only). */
  bulkCode?: number;
}
