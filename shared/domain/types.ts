/**
 * Plain domain types shared by the rules engine, the use cases and the data layer.
 * Money inside the domain is integer cents; amounts from requests are converted at the edge.
 */
import type {
  BUDGET_KEYS,
  CAMPAIGN_TRIGGERS,
  DISCOUNT_BASES,
  DISCOUNT_TYPES,
  LIMIT_KEYS,
  METADATA_SCOPES,
  METADATA_TYPES,
  OPERATORS,
  SELECTOR_MATCHES,
  SELECTOR_OPERATORS,
} from './contract-lists.generated.js';
import type { PendingRule } from './point-buckets.js';

/**
 * The campaign format's lists — bases, operators, the fields each kind of rule may test, selector
 * properties, operators and matches, limit keys, metadata key types and scopes — are declared
 * once, as openapi.yaml's enums, and generated into contract-lists.generated.ts
 * (`npm run contract:lists`), re-exported here; the types below are derived from them.
 */
export * from './contract-lists.generated.js';

/** The seven bases a discount can be computed on (contract: "Discount types"). */
export type DiscountBase = (typeof DISCOUNT_BASES)[number];
export type Operator = (typeof OPERATORS)[number];
/** A key of a campaign's `limits` in the admin format (`per_customer`, …). */
export type LimitKey = (typeof LIMIT_KEYS)[number];

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

/** The order totals apply requires, in the order their absence is reported (docs/decisions.md, "Apply mandatory fields"). */
export const MANDATORY_ORDER_FIELDS = ['original_price_subtotal', 'selling_price_subtotal'] as const;

/** The item prices apply requires (with `product_id` and a `shipping` key), in the order their absence is reported. */
export const MANDATORY_ITEM_PRICES = ['original_price', 'selling_price'] as const;

/**
 * How a selector tests a property: `in` — equals one of the values; `nin` — equals none of them;
 * `eq` / `neq` — the same with a single value ("equal" / "not equal").
 */
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
  match: (typeof SELECTOR_MATCHES)[number];
  properties: PropertyMatch[];
}

export type MetadataType = (typeof METADATA_TYPES)[number];

/** Where a declared metadata key is read: the order's metadata, each item's, or both. */
export type MetadataScope = (typeof METADATA_SCOPES)[number];

/** A metadata key the campaign declares; only these are evaluated and echoed (docs/decisions.md#19). */
export interface MetadataKey {
  key: string;
  type: MetadataType;
  /** `both` (the default): usable in cart conditions and in item rules alike. */
  scope: MetadataScope;
}

/**
 * What a discount gives (docs/campaigns.md "Promotion kinds"): `percentage` or `flat` of the base,
 * or one of the promotion kinds — `buy_x_get_y`, `free_gift`, `tiered`, `bundle`, `free_shipping`.
 */
export type DiscountType = (typeof DISCOUNT_TYPES)[number];

/** Buy N items matching one selector, get M matching another (or the same) at P% off, cheapest first, up to K times. */
export interface BuyXGetY {
  buyQuantity: number;
  /** The items that count as bought; null: any item. */
  buySelector: ItemSelector | null;
  getQuantity: number;
  /** The items that can be had at the reduced price; null: the same as `buySelector`. */
  getSelector: ItemSelector | null;
  /** (0-100]; 100 = free. */
  percentOff: number;
  /** How many times one order may take it (K ≥ 1). */
  maxRepeats: number;
}

/** A product given free when the cart qualifies: the answer names it so the storefront adds it. */
export interface FreeGift {
  productId: string;
  sku: string | null;
  name: string;
  /** How many of it one redemption gives. */
  quantity: number;
  /** What one unit is worth, in cents: counted in a money budget; 0 when not set. */
  valueCents: number;
  /** How many gifts the campaign gives away in all (each redemption gives `quantity`); null: no limit. */
  maxGifts: number | null;
}

/** One step of a tiered discount: from `fromCents` of the base on, `value` (percent, or cents when flat). */
export interface Tier {
  fromCents: number;
  value: number;
}

/** Thresholds on the base, each with its value; the highest step the base reaches applies. */
export interface Tiered {
  valueType: 'percentage' | 'flat';
  /** Ascending by `fromCents`, distinct. */
  tiers: Tier[];
}

/** One part of a bundle: `quantity` units of items matching `selector`. */
export interface BundleComponent {
  selector: ItemSelector;
  quantity: number;
}

/** A set of parts bought together for a fixed price, up to `maxRepeats` sets per order. */
export interface Bundle {
  components: BundleComponent[];
  priceCents: number;
  maxRepeats: number;
}

export interface Discount {
  /** `discount` lowers the amount to pay; `cashback` is promised (and credited on redeem). */
  kind: 'discount' | 'cashback';
  type: DiscountType;
  /** Percent (0-100] for percentage; cents for flat; 0 for the promotion kinds (their own fields say it). */
  value: number;
  buyXGetY?: BuyXGetY | null;
  gift?: FreeGift | null;
  tiered?: Tiered | null;
  bundle?: Bundle | null;
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

/** A key of a campaign's `budget` amounts in the admin format (`total`, `per_day`, …). */
export type BudgetKey = (typeof BUDGET_KEYS)[number];

/**
 * A money budget (docs/budgets.md): the discount money a campaign gives away — discount,
 * cashback and free gifts' value — capped in total, per calendar day / week / month (the
 * application's) and per customer, in cents; null: no cap on that one.
 */
export interface Budget {
  totalCents: number | null;
  perDayCents: number | null;
  perWeekCents: number | null;
  perMonthCents: number | null;
  perCustomerCents: number | null;
  /** `refuse`: a redeem that would pass the budget is refused; `cap`: it gets what is left. */
  whenExceeded: 'refuse' | 'cap';
  /** Shares of the total budget spent (percent, 1-99) at which an event says so; exhaustion always does. */
  notifyAt: number[];
}

/** Local days (1 = Monday … 7 = Sunday) and hour ranges `HH:MM`–`HH:MM` (end exclusive). */
export interface Schedule {
  daysOfWeek?: number[];
  hours?: { from: string; to: string }[];
}

/**
 * How a campaign combines with others on one cart (docs/stacking.md), read only for applications
 * whose `stacking.max_coupons` is above 1 or that take automatic promotions.
 */
export interface Stacking {
  /** Higher applies first; ties keep the request's order, then automatic promotions oldest first. */
  priority: number;
  /** A free label (`sitewide`, `loyalty`, `shipping`…) that other campaigns' `combinesWith` name; null: none. */
  category: string | null;
  /** Applies only alone: never combined with any other coupon or promotion. */
  exclusive: boolean;
  /** The categories this one combines with, or `all`; both campaigns of a pair must allow each other. */
  combinesWith: 'all' | string[];
}

/** The stacking of a campaign that says nothing about it: priority 0, no category, not exclusive, combines with all. */
export const DEFAULT_STACKING: Stacking = Object.freeze({ priority: 0, category: null, exclusive: false, combinesWith: 'all' as const });

/** How a campaign reaches a cart: a code the customer enters, or automatically when the cart qualifies (no code). */
export type Trigger = (typeof CAMPAIGN_TRIGGERS)[number];

/** An application's stacking settings (docs/stacking.md): the default keeps one coupon per request (docs/decisions.md#14). */
export interface AppStacking {
  /** How many `coupon_details` entries validate and apply take (1-10; 1: the held contract). */
  maxCoupons: number;
  /** Whether campaigns with `trigger: automatic` apply to this application's carts. */
  automaticPromotions: boolean;
}

export const DEFAULT_APP_STACKING: AppStacking = Object.freeze({ maxCoupons: 1, automaticPromotions: false });

/** An application's loyalty settings (docs/wallets.md "A redeem as the order's report"). */
export interface AppLoyalty {
  /** Whether a redeem of a `completed` order earns in the application's wallets as the order's report would (and its revert takes it back). */
  earnOnRedeem: boolean;
}

export const DEFAULT_APP_LOYALTY: AppLoyalty = Object.freeze({ earnOnRedeem: false });

/** Recording the carts list, validate and redeem see, for backtests (docs/results.md "Recorded carts"). */
export interface AppCartRecording {
  enabled: boolean;
  /** How long a recorded cart is kept, in days. */
  retentionDays: number;
}

export const DEFAULT_APP_CART_RECORDING: AppCartRecording = Object.freeze({ enabled: false, retentionDays: 30 });

/** A campaign is one coupon definition: its rules, and either one fixed code or bulk codes. */
/** The tiers a campaign is for: the customer's tier in wallet `walletId` must be one of `levels`. */
export interface TierRequirement {
  walletId: string;
  levels: string[];
}

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
  /** A money budget; null: none (only the count limits). */
  budget?: Budget | null;
  /**
   * Orders redeemed with it earn this many times the points (hundredths: 200 = 2×) in wallets with
   * earning rules, when the redeem counts as the order's report (docs/wallets.md); null or absent: 1×.
   */
  earningMultiplier?: number | null;
  /**
   * Only for customers of these levels of a wallet's tiers (docs/wallets.md "Tiers"): `walletId` is
   * the wallet's client-visible id; null or absent: every customer.
   */
  tierRequirement?: TierRequirement | null;
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
  /** How it combines with other campaigns on one cart. */
  stacking: Stacking;
  /** `automatic`: a promotion without a code, applied to every qualifying cart of an opted-in application. */
  trigger: Trigger;
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
  /** Money given away, in cents, for a campaign with a budget (the same periods); absent: no budget. */
  spent?: SpentCents;
}

/** Money a budgeted campaign gave away, in cents, in each period of "now" and by this customer. */
export interface SpentCents {
  total: number;
  perCustomer: number;
  perDay: number;
  perWeek: number;
  perMonth: number;
}
