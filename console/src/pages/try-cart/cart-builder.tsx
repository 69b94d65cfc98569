/**
 * "Try a cart" without JSON: the cart a promotion manager has in mind — each item's name, SKU,
 * price (and the price before the shop's own markdown), quantity and shipping — in the
 * application's currency, made into the order a storefront sends (subtotals summed, an order id,
 * status completed, shipping on every item), so a verdict is never about a cart a real checkout
 * would send differently; with the order's payment method and its shop data (the `metadata` a
 * campaign's rules read) when given. The JSON form stays beside it for an order to paste.
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

/** The cart being built: its items, the payment method (blank: not sent) and the order's shop data. */
export interface CartDraft {
  lines: CartLine[];
  paymentMode: string;
  /** `metadata` of the order: key and value as typed ("true" / "false" and numbers sent as such). */
  data: { key: string; value: string }[];
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

/** A shop data value as typed: a boolean or a number where it reads as one, else the text. */
const dataValue = (text: string): unknown => {
  const t = text.trim();
  if (t === 'true' || t === 'false') return t === 'true';
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : text;
};

/** The order a storefront would send for this cart (subtotals in cents, then back: no float noise). */
export function orderOf({ lines, paymentMode, data }: CartDraft): Record<string, unknown> {
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
  const metadata = Object.fromEntries(data.filter((d) => d.key.trim() !== '').map((d) => [d.key.trim(), dataValue(d.value)]));
  return {
    order_id: 'try-a-cart',
    status: 'completed',
    original_price_subtotal: sum('original_price'),
    selling_price_subtotal: sum('selling_price'),
    ...(paymentMode.trim() ? { payment_mode: paymentMode.trim() } : {}),
    ...(Object.keys(metadata).length ? { metadata } : {}),
    items,
  };
}

export function CartBuilder({ cart, setCart, currency }: { cart: CartDraft; setCart: (cart: CartDraft) => void; currency: string | null }) {
  const { lines, data } = cart;
  const setLines = (next: CartLine[]) => setCart({ ...cart, lines: next });
  const set = (i: number, change: Partial<CartLine>) => setLines(lines.map((l, j) => (j === i ? { ...l, ...change } : l)));
  const setData = (i: number, change: Partial<CartDraft['data'][number]>) =>
    setCart({ ...cart, data: data.map((d, j) => (j === i ? { ...d, ...change } : d)) });
  const order = orderOf(cart);
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
      <label>
        Payment method (blank: not sent)
        <input value={cart.paymentMode} placeholder="UPI" onChange={(e) => setCart({ ...cart, paymentMode: e.target.value })} />
      </label>
      {data.map((d, i) => (
        <div className="cart-line" key={`data-${i}`} role="group" aria-label={`Shop data ${i + 1}`}>
          <label>
            Name
            <input value={d.key} onChange={(e) => setData(i, { key: e.target.value })} placeholder="channel" />
          </label>
          <label>
            Value
            <input value={d.value} onChange={(e) => setData(i, { value: e.target.value })} placeholder="app" />
          </label>
          <button
            type="button"
            onClick={() => setCart({ ...cart, data: data.filter((_, j) => j !== i) })}
            aria-label={`Remove shop data ${i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => setCart({ ...cart, data: [...data, { key: '', value: '' }] })}>
        Add shop data (for rules on the order&apos;s data)
      </button>
      <p className="hint" data-testid="cart-subtotal">
        Subtotal {formatMoney(order.selling_price_subtotal as number, currency)}
        {order.original_price_subtotal !== order.selling_price_subtotal &&
          ` (before markdown ${formatMoney(order.original_price_subtotal as number, currency)})`}
      </p>
    </fieldset>
  );
}
