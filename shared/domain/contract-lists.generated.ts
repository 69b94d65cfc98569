// Generated from openapi.yaml by `npm run contract:lists` (test/unit/contract-lists.spec.ts checks it): edit the spec, not this file.

/** `DiscountBase`: what a discount is computed on (docs/campaigns.md, `discount_calculated_on_property`); selected_items_* need an item selector, valid_cart_* leave out the excluded items */
export const DISCOUNT_BASES = [
  'selling_price_subtotal',
  'original_price_subtotal',
  'shipping',
  'selected_items_selling_price_subtotal',
  'selected_items_original_price_subtotal',
  'valid_cart_selling_price_subtotal',
  'valid_cart_original_price_subtotal',
] as const;

/** `DiscountType`: what a discount gives (docs/campaigns.md) - percentage or flat of the base, or a promotion kind - buy_x_get_y, free_gift, tiered, bundle, free_shipping */
export const DISCOUNT_TYPES = ['percentage', 'flat', 'buy_x_get_y', 'free_gift', 'tiered', 'bundle', 'free_shipping'] as const;

/** `BudgetKey`: the money caps a budget may set (docs/budgets.md) - in total, per calendar day, week and month, and per customer */
export const BUDGET_KEYS = ['total', 'per_day', 'per_week', 'per_month', 'per_customer'] as const;

/** `ConditionOperator`: gt, gte, lt, lte compare numbers; eq, neq any scalar (strings compare case-insensitively); in, nin test membership in an array of scalars */
export const OPERATORS = ['gt', 'gte', 'lt', 'lte', 'eq', 'neq', 'in', 'nin'] as const;

/** `CartConditionField`: the order fields a cart condition may test; selling_price_subtotal and original_price_subtotal are mandatory (always checked), the others are checked only when sent */
export const CART_CONDITION_FIELDS = [
  'selling_price_subtotal',
  'original_price_subtotal',
  'shipping',
  'tax',
  'payment_mode',
  'items_count',
  'total_qty',
] as const;

/** `ItemConditionField`: the item fields a product validation may test (cart_qty is the item's quantity) */
export const ITEM_CONDITION_FIELDS = ['selling_price', 'original_price', 'cart_qty', 'shipping', 'product_id', 'sku', 'name'] as const;

/** `SelectedItemsField`: the aggregates over the selected items a selected-items validation may test */
export const SELECTED_ITEMS_FIELDS = [
  'selected_items_total_qty',
  'selected_items_selling_price_subtotal',
  'selected_items_original_price_subtotal',
] as const;

/** `SelectorProperty`: the item properties a selector test may match on (besides `metadata.<declared item key>`) */
export const SELECTOR_PROPERTIES = ['product_id', 'sku', 'name'] as const;

/** `SelectorOperator`: in / eq — the property equals one of the values; nin / neq — it equals none of them (an item that did not send the property passes nin / neq). eq and neq take exactly one value. */
export const SELECTOR_OPERATORS = ['in', 'nin', 'eq', 'neq'] as const;

/** `SelectorMatch`: AND — an item passes every test; OR — any of them */
export const SELECTOR_MATCHES = ['AND', 'OR'] as const;

/** `LimitKey`: the limits a campaign may set (docs/campaigns.md, `limits`) */
export const LIMIT_KEYS = ['total', 'per_customer', 'per_day', 'per_week', 'per_month'] as const;

/** `MetadataType`: the type a declared metadata key's value must have; a value of another type is dropped */
export const METADATA_TYPES = ['string', 'number', 'boolean'] as const;

/** `MetadataScope`: where a declared metadata key is read - the order's metadata, each item's, or both */
export const METADATA_SCOPES = ['both', 'order', 'item'] as const;

/** `CampaignTrigger`: how a campaign reaches a cart (docs/stacking.md) - code, a code the customer enters; automatic, a promotion without a code that applies to every qualifying cart of an application whose stacking.automatic_promotions is true */
export const CAMPAIGN_TRIGGERS = ['code', 'automatic'] as const;
