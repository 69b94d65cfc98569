/**
 * The contract's `coupon_savings.order` object (openapi.yaml `SavingsOrder` and
 * "Savings item object"), field names exactly as the contract spells them, amounts as 2-decimal
 * numbers. Items echo only the documented fields, metadata only declared keys (docs/decisions.md#19):
 * nothing a client sends beyond that is ever reflected.
 */
import type { DiscountResult } from './discount.js';
import { declaredMetadata, isReadAt } from './metadata.js';
import { fromCents } from './money.js';
import type { ParsedItem, ParsedOrder } from './order.js';
import type { Campaign, DiscountBase, Scalar } from './types.js';

/** Savings item object. Optional request fields (`name`, `sku`, `shipping`) appear only when sent. */
export interface SavingsItem {
  product_id: string;
  name?: string;
  sku?: string;
  original_price: number;
  selling_price: number;
  quantity: number;
  shipping?: number;
  metadata: Record<string, Scalar>;
  /** Only for item-level bases (selected items, valid cart); excluded items carry 0. */
  discount_value?: number;
  /** `selling_price * quantity - discount_value`, 2 decimals. */
  final_amount: number;
}

/** Savings order object. */
export interface SavingsOrder {
  order_id: string;
  source_id: string;
  status: string;
  original_price_subtotal: number;
  selling_price_subtotal: number;
  total_discount: number;
  total_amount: number;
  total_cashback: number;
  shipping: number;
  /** Validate responses only. */
  payment_mode?: string;
  /** Validate responses only. */
  discount_calculated_on_property?: DiscountBase;
  coupon_details: Record<string, never>;
  metadata: Record<string, Scalar>;
  items: SavingsItem[];
}

/** Arguments of {@link presentSavingsOrder}. */
export interface PresentSavingsInput {
  /** The customer id as the client sent it; '' for a visitor. */
  sourceId: string;
  /** The parsed order, or null when the request had none (every amount is then 0). */
  order: ParsedOrder | null;
  campaign: Campaign;
  result: DiscountResult;
  /** Adds `payment_mode` and `discount_calculated_on_property` (validate, not list). */
  includeValidateFields: boolean;
}

/**
 * The Savings order object of an applicable coupon. Order strings not sent are '' and numbers
 * not sent are 0; `total_amount` is `selling_price_subtotal - total_discount` (never below 0).
 */
export function presentSavingsOrder(input: PresentSavingsInput): SavingsOrder {
  const { order, campaign, result } = input;
  return {
    order_id: order?.orderId ?? '',
    source_id: input.sourceId,
    status: order?.status ?? '',
    original_price_subtotal: fromCents(order?.originalSubtotalCents ?? 0),
    selling_price_subtotal: fromCents(order?.sellingSubtotalCents ?? 0),
    total_discount: fromCents(result.totalDiscountCents),
    total_amount: fromCents(order ? result.totalAmountCents : 0),
    total_cashback: fromCents(result.totalCashbackCents),
    shipping: fromCents(order?.shippingCents ?? 0),
    ...(input.includeValidateFields
      ? { payment_mode: order?.paymentMode ?? '', discount_calculated_on_property: campaign.discountCalculatedOn }
      : {}),
    coupon_details: {},
    metadata: order ? declaredMetadata(order.metadata, campaign.metadataKeys, 'order') : {},
    items: !order
      ? []
      : result.itemDiscountCents.every((d) => d === null) && !readsItemMetadata(campaign)
        ? plainItems(order)
        : order.items.map((item, i) => presentItem(item, campaign, result.itemDiscountCents[i] ?? null)),
  };
}

const readsItemMetadata = (campaign: Campaign) => campaign.metadataKeys.some((k) => isReadAt(k.scope, 'item'));

/**
 * Whole-cart coupons with no item metadata echo an order's items identically: one frozen array
 * per order, shared by every such coupon of a list response (and serialized once, see
 * api/json-body.ts) instead of thousands of rebuilt objects.
 */
const plainItemLists = new WeakMap<ParsedOrder, readonly SavingsItem[]>();
function plainItems(order: ParsedOrder): SavingsItem[] {
  let items = plainItemLists.get(order);
  if (!items) {
    items = Object.freeze(order.items.map(plainEcho));
    plainItemLists.set(order, items);
  }
  return items as SavingsItem[];
}

function presentItem(item: ParsedItem, campaign: Campaign, discountCents: number | null): SavingsItem {
  if (discountCents === null && !readsItemMetadata(campaign)) return plainEcho(item);
  // One object literal per item (this runs for every item of every item-level coupon of a list).
  const echo = echoFields(item) as SavingsItem;
  echo.metadata = declaredMetadata(item.metadata, campaign.metadataKeys, 'item');
  if (discountCents !== null) echo.discount_value = fromCents(discountCents);
  echo.final_amount = fromCents(item.sellingLineCents - (discountCents ?? 0));
  return echo;
}

function echoFields(item: ParsedItem): Omit<SavingsItem, 'metadata' | 'final_amount'> {
  const echo: Partial<SavingsItem> = { product_id: item.productId };
  if (item.name !== undefined) echo.name = item.name;
  if (item.sku !== undefined) echo.sku = item.sku;
  echo.original_price = fromCents(item.originalPriceCents);
  echo.selling_price = fromCents(item.sellingPriceCents);
  echo.quantity = item.quantity;
  if (item.shippingCents !== undefined) echo.shipping = fromCents(item.shippingCents);
  return echo as Omit<SavingsItem, 'metadata' | 'final_amount'>;
}

const plainEchoes = new WeakMap<ParsedItem, SavingsItem>();
function plainEcho(item: ParsedItem): SavingsItem {
  let echo = plainEchoes.get(item);
  if (!echo) {
    echo = Object.freeze({
      ...echoFields(item),
      metadata: Object.freeze({}),
      final_amount: fromCents(item.sellingLineCents),
    }) as SavingsItem;
    plainEchoes.set(item, echo);
  }
  return echo;
}

/**
 * The Savings order object of a coupon that is not applicable: blank strings and zeros, empty
 * `coupon_details`, `metadata` and `items` (openapi.yaml).
 */
export function blankSavingsOrder(): SavingsOrder {
  return {
    order_id: '',
    source_id: '',
    status: '',
    original_price_subtotal: 0,
    selling_price_subtotal: 0,
    total_discount: 0,
    total_amount: 0,
    total_cashback: 0,
    shipping: 0,
    coupon_details: {},
    metadata: {},
    items: [],
  };
}
