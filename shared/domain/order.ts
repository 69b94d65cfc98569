/**
 * Lenient parsing of the raw `order` of a list, validate or redeem request. Never throws: any
 * hostile value (wrong types, `{$gt: 1}` as a value, NaN-like strings, huge numbers, huge arrays)
 * yields one of the contract's applicability messages instead (list rule 7). Amounts become
 * integer cents here, once, so the engine never sees a float amount.
 */
import { roundHalfAway, toCents } from './money.js';
import { INVALID_ORDER_PAYLOAD, ORIGINAL_PRICE_REQUIRED, PRODUCT_ID_REQUIRED, SELLING_PRICE_REQUIRED } from './messages.js';

/** One item of a parsed order. Read-only: list shares one parse across every coupon. */
export interface ParsedItem {
  readonly productId: string;
  readonly sku?: string;
  readonly name?: string;
  readonly originalPriceCents: number;
  readonly sellingPriceCents: number;
  /** As sent (may be fractional, e.g. 0.5 kg); 1 when not sent. */
  readonly quantity: number;
  /** Whether `quantity` was sent: a rule on `cart_qty` is skipped when it was not (list rule 5). */
  readonly quantitySent: boolean;
  /** `originalPriceCents * quantity`, whole cents (half away from zero). */
  readonly originalLineCents: number;
  /** `sellingPriceCents * quantity`, whole cents (half away from zero). */
  readonly sellingLineCents: number;
  readonly shippingCents?: number;
  /** The metadata object as sent, untrusted: read it only through `declaredMetadata`. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** A parsed order. Optional fields are absent when they were not sent (or sent as null). */
export interface ParsedOrder {
  readonly orderId?: string;
  readonly status?: string;
  readonly paymentMode?: string;
  readonly originalSubtotalCents: number;
  readonly sellingSubtotalCents: number;
  readonly shippingCents?: number;
  readonly taxCents?: number;
  /** The metadata object as sent, untrusted: read it only through `declaredMetadata`. */
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly items: readonly ParsedItem[];
}

/** The parse outcome: the order, or the contract message to answer with. */
export type ParseResult = { ok: true; order: ParsedOrder } | { ok: false; message: string };

/**
 * True for a plain object: `{}` literals, JSON objects and null-prototype objects; false for
 * arrays, null, class instances and primitives.
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A field that is absent; null counts as absent, as storefronts often send it for "none". */
const absent = (v: unknown): v is undefined | null => v === undefined || v === null;

/**
 * An amount as whole cents, or undefined when it is not a finite number >= 0 whose cents fit a
 * safe integer (about 90 trillion currency units): larger values could not be added exactly.
 */
function amountCents(v: unknown): number | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) return undefined;
  const cents = toCents(v);
  return Number.isSafeInteger(cents) ? cents : undefined;
}

/** An optional amount: `{ok}` false when sent with a wrong type or range. */
function optionalAmount(v: unknown): { ok: true; cents?: number } | { ok: false } {
  if (absent(v)) return { ok: true };
  const cents = amountCents(v);
  return cents === undefined ? { ok: false } : { ok: true, cents };
}

const optionalString = (v: unknown): boolean => absent(v) || typeof v === 'string';
const optionalObject = (v: unknown): boolean => absent(v) || isPlainObject(v);

/** Quantity as sent when valid, 1 when absent, undefined when invalid. */
function quantityOf(v: unknown): number | undefined {
  if (absent(v)) return 1;
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** `priceCents * quantity` in whole cents, undefined when too large to add exactly. */
function lineCents(priceCents: number, quantity: number): number | undefined {
  const cents = roundHalfAway(priceCents * quantity);
  return Number.isSafeInteger(cents) ? cents : undefined;
}

/** Mandatory fields first, in the documented order (product_id, original_price, selling_price). */
function parseItem(raw: unknown): ParsedItem | string {
  if (!isPlainObject(raw)) return INVALID_ORDER_PAYLOAD;
  if (typeof raw.product_id !== 'string' || raw.product_id.trim() === '') return PRODUCT_ID_REQUIRED;
  const originalPriceCents = amountCents(raw.original_price);
  if (originalPriceCents === undefined) return ORIGINAL_PRICE_REQUIRED;
  const sellingPriceCents = amountCents(raw.selling_price);
  if (sellingPriceCents === undefined) return SELLING_PRICE_REQUIRED;
  const quantity = quantityOf(raw.quantity);
  const shipping = optionalAmount(raw.shipping);
  if (quantity === undefined || !shipping.ok) return INVALID_ORDER_PAYLOAD;
  if (!optionalString(raw.sku) || !optionalString(raw.name) || !optionalObject(raw.metadata)) return INVALID_ORDER_PAYLOAD;
  const originalLineCents = lineCents(originalPriceCents, quantity);
  const sellingLineCents = lineCents(sellingPriceCents, quantity);
  if (originalLineCents === undefined || sellingLineCents === undefined) return INVALID_ORDER_PAYLOAD;
  return {
    productId: raw.product_id,
    ...(typeof raw.sku === 'string' ? { sku: raw.sku } : {}),
    ...(typeof raw.name === 'string' ? { name: raw.name } : {}),
    originalPriceCents,
    sellingPriceCents,
    quantity,
    quantitySent: !absent(raw.quantity),
    originalLineCents,
    sellingLineCents,
    ...(shipping.cents !== undefined ? { shippingCents: shipping.cents } : {}),
    metadata: isPlainObject(raw.metadata) ? raw.metadata : {},
  };
}

/** A subtotal: a number > 0 once in cents (0.004 rounds to 0 cents and is refused). */
function subtotalCents(v: unknown): number | undefined {
  const cents = amountCents(v);
  return cents !== undefined && cents > 0 ? cents : undefined;
}

function parseItems(raw: unknown): ParsedItem[] | string {
  if (absent(raw)) return [];
  if (!Array.isArray(raw)) return INVALID_ORDER_PAYLOAD;
  const items: ParsedItem[] = [];
  for (const rawItem of raw) {
    const item = parseItem(rawItem);
    if (typeof item === 'string') return item; // the first bad item decides the message
    items.push(item);
  }
  return items;
}

function parseOrderUnsafe(raw: unknown): ParseResult {
  const invalid = (message: string = INVALID_ORDER_PAYLOAD): ParseResult => ({ ok: false, message });
  if (!isPlainObject(raw)) return invalid();
  const originalSubtotalCents = subtotalCents(raw.original_price_subtotal);
  const sellingSubtotalCents = subtotalCents(raw.selling_price_subtotal);
  if (originalSubtotalCents === undefined || sellingSubtotalCents === undefined) return invalid();
  const shipping = optionalAmount(raw.shipping);
  const tax = optionalAmount(raw.tax);
  if (!shipping.ok || !tax.ok) return invalid();
  if (!optionalString(raw.order_id) || !optionalString(raw.status) || !optionalString(raw.payment_mode)) return invalid();
  if (!optionalObject(raw.metadata)) return invalid();
  const items = parseItems(raw.items);
  if (typeof items === 'string') return invalid(items);
  return {
    ok: true,
    order: {
      ...(typeof raw.order_id === 'string' ? { orderId: raw.order_id } : {}),
      ...(typeof raw.status === 'string' ? { status: raw.status } : {}),
      ...(typeof raw.payment_mode === 'string' ? { paymentMode: raw.payment_mode } : {}),
      originalSubtotalCents,
      sellingSubtotalCents,
      ...(shipping.cents !== undefined ? { shippingCents: shipping.cents } : {}),
      ...(tax.cents !== undefined ? { taxCents: tax.cents } : {}),
      metadata: isPlainObject(raw.metadata) ? raw.metadata : {},
      items,
    },
  };
}

/**
 * Parses the raw `order` of a request.
 *
 * Order level: the order must be a plain object; `original_price_subtotal` and
 * `selling_price_subtotal` finite numbers > 0; `shipping`/`tax` numbers >= 0, `order_id`/
 * `status`/`payment_mode` strings, `metadata` a plain object, `items` an array when present.
 * Any failure → `invalid payload, original_price_subtotal and selling_price_subtotal is
 * required and should not be 0`.
 *
 * Item level, per item in array order: a plain object (else the order-level message);
 * `product_id` a non-empty string, `original_price` then `selling_price` numbers >= 0 (else
 * `<field> is required`); `quantity` a number > 0 (default 1), `shipping` a number >= 0,
 * `sku`/`name` strings, `metadata` a plain object when present (else the order-level message).
 *
 * Null counts as absent for optional fields. Amounts must fit whole cents exactly (about 90
 * trillion units, item lines included). Unknown fields are ignored and never copied.
 */
export function parseOrder(raw: unknown): ParseResult {
  try {
    return parseOrderUnsafe(raw);
  } catch {
    // JSON values cannot throw on read, but a caller may pass an object with throwing getters
    // or a revoked Proxy; the contract still wants an applicability message, not a 500.
    return { ok: false, message: INVALID_ORDER_PAYLOAD };
  }
}
