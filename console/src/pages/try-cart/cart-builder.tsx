/**
 * "Try a cart" without JSON: the cart a promotion manager has in mind — each item's name, SKU,
 * price (and the price before the shop's own markdown), quantity and shipping — in the
 * application's currency, made into the order a storefront sends (subtotals summed, an order id,
 * status completed, shipping on every item), so a verdict is never about a cart a real checkout
 * would send differently. The JSON form stays for what the builder does not cover (metadata,
 * payment mode), beside it.
 */
import { formatMoney } from '../../money';

export interface CartLine {
  name: string;
  sku: string;
  price: string;
  /** Before the shop's own markdown; blank: the price. */
  was: string;
  quantity: string;
  shipping: string;
}

export const emptyLine = (n: number): CartLine => ({
  name: `Item ${n}`,
  sku: `SKU-${n}`,
  price: '',
  was: '',
  quantity: '1',
  shipping: '0',
});

/** A typed amount as a number; text that is not one is sent as typed, for the engine to refuse as validate would. */
const numberOr = (text: string): number | string => {
  const t = text.trim().replace(',', '.');
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : text;
};
const cents = (n: number) => Math.round(n * 100);

/** The order a storefront would send for these lines (subtotals in cents, then back: no float noise). */
export function orderOf(lines: CartLine[]): Record<string, unknown> {
  const items = lines.map((l, i) => {
    const price = numberOr(l.price);
    const was = l.was.trim() === '' ? price : numberOr(l.was);
    return {
      product_id: l.sku.trim() || `item-${i + 1}`,
      sku: l.sku.trim() || `item-${i + 1}`,
      name: l.name.trim() || `Item ${i + 1}`,
      original_price: was,
      selling_price: price,
      quantity: numberOr(l.quantity),
      shipping: numberOr(l.shipping),
    };
  });
  const sum = (k: 'original_price' | 'selling_price') =>
    items.reduce((s, it) => s + (typeof it[k] === 'number' && typeof it.quantity === 'number' ? cents(it[k] * it.quantity) : 0), 0) / 100;
  return {
    order_id: 'try-a-cart',
    status: 'completed',
    original_price_subtotal: sum('original_price'),
    selling_price_subtotal: sum('selling_price'),
    items,
  };
}

export function CartBuilder({
  lines,
  setLines,
  currency,
}: {
  lines: CartLine[];
  setLines: (lines: CartLine[]) => void;
  currency: string | null;
}) {
  const set = (i: number, change: Partial<CartLine>) => setLines(lines.map((l, j) => (j === i ? { ...l, ...change } : l)));
  const order = orderOf(lines);
  const money = currency ? ` (${currency})` : '';
  return (
    <fieldset className="cart-builder">
      <legend>The cart</legend>
      {lines.map((l, i) => (
        <div className="cart-line" key={i} role="group" aria-label={`Item ${i + 1}`}>
          <label>
            Product
            <input value={l.name} onChange={(e) => set(i, { name: e.target.value })} />
          </label>
          <label>
            SKU
            <input value={l.sku} onChange={(e) => set(i, { sku: e.target.value })} />
          </label>
          <label>
            Price{money}
            <input inputMode="decimal" value={l.price} onChange={(e) => set(i, { price: e.target.value })} required />
          </label>
          <label>
            Price before markdown{money}
            <input inputMode="decimal" value={l.was} placeholder="same" onChange={(e) => set(i, { was: e.target.value })} />
          </label>
          <label>
            Quantity
            <input inputMode="numeric" value={l.quantity} onChange={(e) => set(i, { quantity: e.target.value })} />
          </label>
          <label>
            Shipping{money}
            <input inputMode="decimal" value={l.shipping} onChange={(e) => set(i, { shipping: e.target.value })} />
          </label>
          {lines.length > 1 && (
            <button type="button" onClick={() => setLines(lines.filter((_, j) => j !== i))} aria-label={`Remove item ${i + 1}`}>
              Remove
            </button>
          )}
        </div>
      ))}
      <button type="button" onClick={() => setLines([...lines, emptyLine(lines.length + 1)])}>
        Add an item
      </button>
      <p className="hint" data-testid="cart-subtotal">
        Subtotal {formatMoney(order.selling_price_subtotal as number, currency)}
        {order.original_price_subtotal !== order.selling_price_subtotal &&
          ` (before markdown ${formatMoney(order.original_price_subtotal as number, currency)})`}
      </p>
    </fieldset>
  );
}
