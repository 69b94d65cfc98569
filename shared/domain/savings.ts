/**
 * The contract's `coupon_savings.order` object (Savings order / Savings item), amounts rounded
 * to 2 decimals. Items echo only the documented fields; metadata only declared keys.
 */
import type { DiscountResult } from './engine.js';
import { declaredMetadata } from './metadata.js';
import { fromCents, roundMoney } from './money.js';
import type { ParsedItem, ParsedOrder } from './order.js';
import type { Campaign, Scalar } from './types.js';

export interface SavingsItem {
  product_id: string;
  name?: string;
  sku?: string;
  original_price: number;
  selling_price: number;
  quantity: number;
  shipping?: number;
  metadata: Record<string, Scalar>;
  discount_value?: number;
  final_amount: number;
}

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
  payment_mode?: string;
  discount_calculated_on_property?: string;
  coupon_details: Record<string, never>;
  metadata: Record<string, Scalar>;
  items: SavingsItem[];
}

export function presentSavingsOrder(args: {
  sourceId: string;
  order: ParsedOrder | null;
  campaign: Campaign;
  result: DiscountResult;
  includeValidateFields: boolean;
}): SavingsOrder {
  const { order, campaign, result } = args;
  const items: SavingsItem[] = (order?.items ?? []).map((item, i) => {
    const discount = result.itemDiscountCents[i] ?? null;
    const echo = plainEcho(item);
    // Whole-cart discounts echo items unchanged: one shared echo per item across coupons (list).
    if (discount === null && campaign.metadataKeys.length === 0) return echo;
    return {
      ...echo,
      metadata: declaredMetadata(item.metadata, campaign.metadataKeys, 'item'),
      ...(discount !== null ? { discount_value: fromCents(discount) } : {}),
      final_amount: roundMoney(fromCents(Math.round(item.sellingPriceCents * item.quantity) - (discount ?? 0))),
    };
  });
  return {
    order_id: order?.orderId ?? '',
    source_id: args.sourceId,
    status: order?.status ?? '',
    original_price_subtotal: fromCents(order?.originalSubtotalCents ?? 0),
    selling_price_subtotal: fromCents(order?.sellingSubtotalCents ?? 0),
    total_discount: fromCents(result.totalDiscountCents),
    total_amount: fromCents(order ? result.totalAmountCents : 0),
    total_cashback: fromCents(result.totalCashbackCents),
    shipping: fromCents(order?.shippingCents ?? 0),
    ...(args.includeValidateFields
      ? { payment_mode: order?.paymentMode ?? '', discount_calculated_on_property: campaign.discountCalculatedOn }
      : {}),
    coupon_details: {},
    metadata: order ? declaredMetadata(order.metadata, campaign.metadataKeys, 'order') : {},
    items,
  };
}

const echoes = new WeakMap<ParsedItem, SavingsItem>();
function plainEcho(item: ParsedItem): SavingsItem {
  let echo = echoes.get(item);
  if (!echo) {
    echo = {
      product_id: item.productId,
      ...(item.name !== undefined ? { name: item.name } : {}),
      ...(item.sku !== undefined ? { sku: item.sku } : {}),
      original_price: fromCents(item.originalPriceCents),
      selling_price: fromCents(item.sellingPriceCents),
      quantity: item.quantity,
      ...(item.shippingCents !== undefined ? { shipping: fromCents(item.shippingCents) } : {}),
      metadata: {},
      final_amount: roundMoney(fromCents(Math.round(item.sellingPriceCents * item.quantity))),
    };
    echoes.set(item, echo);
  }
  return echo;
}

/** The not-applicable shape: blank strings and zeros. */
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
