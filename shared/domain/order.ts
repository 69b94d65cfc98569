/**
 * Lenient parsing of the raw `order` of a list/validate/redeem request. Never throws: any
 * hostile value (wrong types, `$` operators as values, NaN-like strings, huge arrays) yields the
 * contract's applicability message instead (list rule 7).
 */
import { toCents } from './money.js';
import { INVALID_ORDER_PAYLOAD, itemFieldRequired } from './messages.js';

export interface ParsedItem {
  productId: string;
  sku?: string;
  name?: string;
  originalPriceCents: number;
  sellingPriceCents: number;
  /** Defaults to 1 when not sent. */
  quantity: number;
  quantitySent: boolean;
  shippingCents?: number;
  metadata: Record<string, unknown>;
}

export interface ParsedOrder {
  orderId?: string;
  status?: string;
  paymentMode?: string;
  originalSubtotalCents: number;
  sellingSubtotalCents: number;
  shippingCents?: number;
  taxCents?: number;
  metadata: Record<string, unknown>;
  items: ParsedItem[];
}

export type ParseResult = { ok: true; order: ParsedOrder } | { ok: false; message: string };

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
const finiteNonNegative = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const invalid = (message = INVALID_ORDER_PAYLOAD): ParseResult => ({ ok: false, message });

function optionalNumber(v: unknown): { ok: boolean; cents?: number } {
  if (v === undefined || v === null) return { ok: true };
  return finiteNonNegative(v) ? { ok: true, cents: toCents(v) } : { ok: false };
}
const optionalString = (v: unknown) => v === undefined || v === null || typeof v === 'string';

function parseItem(raw: unknown): ParsedItem | string {
  if (!isPlainObject(raw)) return INVALID_ORDER_PAYLOAD;
  if (typeof raw.product_id !== 'string' || raw.product_id.trim() === '') return itemFieldRequired('product_id');
  if (!finiteNonNegative(raw.original_price)) return itemFieldRequired('original_price');
  if (!finiteNonNegative(raw.selling_price)) return itemFieldRequired('selling_price');
  const quantitySent = raw.quantity !== undefined && raw.quantity !== null;
  if (quantitySent && !(typeof raw.quantity === 'number' && Number.isFinite(raw.quantity) && raw.quantity > 0))
    return INVALID_ORDER_PAYLOAD;
  const shipping = optionalNumber(raw.shipping);
  if (!shipping.ok || !optionalString(raw.sku) || !optionalString(raw.name)) return INVALID_ORDER_PAYLOAD;
  if (raw.metadata !== undefined && raw.metadata !== null && !isPlainObject(raw.metadata)) return INVALID_ORDER_PAYLOAD;
  return {
    productId: raw.product_id,
    ...(typeof raw.sku === 'string' ? { sku: raw.sku } : {}),
    ...(typeof raw.name === 'string' ? { name: raw.name } : {}),
    originalPriceCents: toCents(raw.original_price),
    sellingPriceCents: toCents(raw.selling_price),
    quantity: quantitySent ? (raw.quantity as number) : 1,
    quantitySent,
    ...(shipping.cents !== undefined ? { shippingCents: shipping.cents } : {}),
    metadata: isPlainObject(raw.metadata) ? raw.metadata : {},
  };
}

export function parseOrder(raw: unknown): ParseResult {
  if (!isPlainObject(raw)) return invalid();
  for (const f of ['original_price_subtotal', 'selling_price_subtotal'] as const) {
    const v = raw[f];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return invalid();
  }
  const shipping = optionalNumber(raw.shipping);
  const tax = optionalNumber(raw.tax);
  if (!shipping.ok || !tax.ok) return invalid();
  if (!optionalString(raw.order_id) || !optionalString(raw.status) || !optionalString(raw.payment_mode)) return invalid();
  if (raw.metadata !== undefined && raw.metadata !== null && !isPlainObject(raw.metadata)) return invalid();
  if (raw.items !== undefined && raw.items !== null && !Array.isArray(raw.items)) return invalid();
  const items: ParsedItem[] = [];
  for (const rawItem of (raw.items as unknown[] | undefined) ?? []) {
    const item = parseItem(rawItem);
    if (typeof item === 'string') return invalid(item);
    items.push(item);
  }
  return {
    ok: true,
    order: {
      ...(typeof raw.order_id === 'string' ? { orderId: raw.order_id } : {}),
      ...(typeof raw.status === 'string' ? { status: raw.status } : {}),
      ...(typeof raw.payment_mode === 'string' ? { paymentMode: raw.payment_mode } : {}),
      originalSubtotalCents: toCents(raw.original_price_subtotal as number),
      sellingSubtotalCents: toCents(raw.selling_price_subtotal as number),
      ...(shipping.cents !== undefined ? { shippingCents: shipping.cents } : {}),
      ...(tax.cents !== undefined ? { taxCents: tax.cents } : {}),
      metadata: isPlainObject(raw.metadata) ? raw.metadata : {},
      items,
    },
  };
}
