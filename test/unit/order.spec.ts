import { expect } from 'chai';
import * as M from '../../shared/domain/messages.js';
import { isPlainObject, parseOrder, type ParsedOrder } from '../../shared/domain/order.js';

const item = (over: Record<string, unknown> = {}) => ({ product_id: 'p1', original_price: 10, selling_price: 8, ...over });
const order = (over: Record<string, unknown> = {}) => ({ original_price_subtotal: 10, selling_price_subtotal: 8, ...over });
const messageOf = (raw: unknown): string => {
  const r = parseOrder(raw);
  return r.ok ? 'ok' : r.message;
};
const parsed = (raw: unknown): ParsedOrder => {
  const r = parseOrder(raw);
  if (!r.ok) throw new Error(`expected a parsed order, got "${r.message}"`);
  return r.order;
};

describe('order: parseOrder accepts', () => {
  it('when a full order is sent, then amounts become cents and strings are kept', () => {
    const o = parsed({
      order_id: 'o-1',
      status: 'pending',
      payment_mode: 'UPI',
      original_price_subtotal: 1200.5,
      selling_price_subtotal: 1000.005,
      shipping: 40,
      tax: 18.18,
      metadata: { channel: 'app' },
      items: [
        {
          product_id: 'p1',
          sku: 'S',
          name: 'Shirt',
          original_price: 700,
          selling_price: 600.25,
          quantity: 2,
          shipping: 0,
          metadata: { color: 'red' },
        },
      ],
    });
    expect(o).to.deep.equal({
      orderId: 'o-1',
      status: 'pending',
      paymentMode: 'UPI',
      originalSubtotalCents: 120050,
      sellingSubtotalCents: 100001,
      shippingCents: 4000,
      taxCents: 1818,
      metadata: { channel: 'app' },
      items: [
        {
          productId: 'p1',
          sku: 'S',
          name: 'Shirt',
          originalPriceCents: 70000,
          sellingPriceCents: 60025,
          quantity: 2,
          quantitySent: true,
          originalLineCents: 140000,
          sellingLineCents: 120050,
          shippingCents: 0,
          metadata: { color: 'red' },
        },
      ],
    });
  });

  it('when only the subtotals are sent, then optional fields are absent and items empty', () => {
    expect(parsed(order())).to.deep.equal({ originalSubtotalCents: 1000, sellingSubtotalCents: 800, metadata: {}, items: [] });
  });

  it('when an item has no quantity, then it counts as 1 and is marked as not sent', () => {
    expect(parsed(order({ items: [item()] })).items[0]).to.include({ quantity: 1, quantitySent: false, sellingLineCents: 800 });
  });

  it('when an item has a fractional quantity, then its line is rounded half away from zero', () => {
    expect(parsed(order({ items: [item({ selling_price: 0.05, quantity: 0.5 })] })).items[0]).to.include({ sellingLineCents: 3 });
  });

  it('when optional fields are null, then they count as not sent', () => {
    const o = parsed(order({ shipping: null, tax: null, payment_mode: null, order_id: null, metadata: null, items: null }));
    expect(o).to.deep.equal({ originalSubtotalCents: 1000, sellingSubtotalCents: 800, metadata: {}, items: [] });
  });

  it('when unknown fields are sent, then they are ignored and never copied', () => {
    const o = parsed(order({ $where: 'x', admin: true, items: [item({ discount_value: 999, $gt: 1 })] }));
    expect(Object.keys(o)).to.not.include.members(['$where', 'admin']);
    expect(Object.keys(o.items[0]!)).to.not.include.members(['discount_value', '$gt']);
  });

  it('when zero prices and zero shipping are sent on items, then they are accepted', () => {
    expect(messageOf(order({ items: [item({ original_price: 0, selling_price: 0, shipping: 0 })] }))).to.equal('ok');
  });
});

describe('order: parseOrder refuses', () => {
  const rows: [string, unknown, string][] = [
    ['the order is null', null, M.INVALID_ORDER_PAYLOAD],
    ['the order is a string', 'order', M.INVALID_ORDER_PAYLOAD],
    ['the order is an array', [order()], M.INVALID_ORDER_PAYLOAD],
    ['the order is a number', 1000, M.INVALID_ORDER_PAYLOAD],
    ['the order is empty', {}, M.INVALID_ORDER_PAYLOAD],
    ['the original subtotal is missing', { selling_price_subtotal: 8 }, M.INVALID_ORDER_PAYLOAD],
    ['the selling subtotal is missing', { original_price_subtotal: 10 }, M.INVALID_ORDER_PAYLOAD],
    ['a subtotal is 0', order({ selling_price_subtotal: 0 }), M.INVALID_ORDER_PAYLOAD],
    ['a subtotal rounds to 0 cents', order({ selling_price_subtotal: 0.004 }), M.INVALID_ORDER_PAYLOAD],
    ['a subtotal is negative', order({ original_price_subtotal: -1 }), M.INVALID_ORDER_PAYLOAD],
    ['a subtotal is a numeric string', order({ selling_price_subtotal: '1000' }), M.INVALID_ORDER_PAYLOAD],
    ['a subtotal is "NaN"', order({ selling_price_subtotal: 'NaN' }), M.INVALID_ORDER_PAYLOAD],
    ['a subtotal is NaN', order({ selling_price_subtotal: Number.NaN }), M.INVALID_ORDER_PAYLOAD],
    ['a subtotal is Infinity', order({ selling_price_subtotal: Infinity }), M.INVALID_ORDER_PAYLOAD],
    ['a subtotal is 1e308 (too large for cents)', order({ selling_price_subtotal: 1e308 }), M.INVALID_ORDER_PAYLOAD],
    ['a subtotal is an operator object', order({ selling_price_subtotal: { $gt: 0 } }), M.INVALID_ORDER_PAYLOAD],
    ['a subtotal is an array', order({ selling_price_subtotal: [1000] }), M.INVALID_ORDER_PAYLOAD],
    ['a subtotal is true', order({ selling_price_subtotal: true }), M.INVALID_ORDER_PAYLOAD],
    ['shipping is a string', order({ shipping: '40' }), M.INVALID_ORDER_PAYLOAD],
    ['shipping is negative', order({ shipping: -1 }), M.INVALID_ORDER_PAYLOAD],
    ['tax is an object', order({ tax: { $ne: 0 } }), M.INVALID_ORDER_PAYLOAD],
    ['payment_mode is a number', order({ payment_mode: 1 }), M.INVALID_ORDER_PAYLOAD],
    ['order_id is an object', order({ order_id: { $ne: null } }), M.INVALID_ORDER_PAYLOAD],
    ['status is a boolean', order({ status: true }), M.INVALID_ORDER_PAYLOAD],
    ['metadata is an array', order({ metadata: ['x'] }), M.INVALID_ORDER_PAYLOAD],
    ['metadata is a string', order({ metadata: 'x' }), M.INVALID_ORDER_PAYLOAD],
    ['items is an object', order({ items: { 0: item() } }), M.INVALID_ORDER_PAYLOAD],
    ['items is a string', order({ items: 'x' }), M.INVALID_ORDER_PAYLOAD],
    ['an item is null', order({ items: [null] }), M.INVALID_ORDER_PAYLOAD],
    ['an item is an array', order({ items: [[item()]] }), M.INVALID_ORDER_PAYLOAD],
    ['an item has no product_id', order({ items: [{ original_price: 1, selling_price: 1 }] }), 'product_id is required'],
    ['an item has an empty product_id', order({ items: [item({ product_id: '  ' })] }), 'product_id is required'],
    ['an item has a numeric product_id', order({ items: [item({ product_id: 12 })] }), 'product_id is required'],
    ['an item has an operator as product_id', order({ items: [item({ product_id: { $ne: 1 } })] }), 'product_id is required'],
    ['an item has no original_price', order({ items: [{ product_id: 'p', selling_price: 1 }] }), 'original_price is required'],
    ['an item has a string original_price', order({ items: [item({ original_price: '10' })] }), 'original_price is required'],
    ['an item has a negative selling_price', order({ items: [item({ selling_price: -1 })] }), 'selling_price is required'],
    ['an item has no selling_price', order({ items: [{ product_id: 'p', original_price: 1 }] }), 'selling_price is required'],
    ['an item lacks all three (product_id first)', order({ items: [{}] }), 'product_id is required'],
    ['an item lacks both prices (original_price first)', order({ items: [{ product_id: 'p' }] }), 'original_price is required'],
    ['the first bad item decides', order({ items: [item(), { product_id: 'p' }, {}] }), 'original_price is required'],
    ['an item quantity is 0', order({ items: [item({ quantity: 0 })] }), M.INVALID_ORDER_PAYLOAD],
    ['an item quantity is negative', order({ items: [item({ quantity: -2 })] }), M.INVALID_ORDER_PAYLOAD],
    ['an item quantity is a string', order({ items: [item({ quantity: '2' })] }), M.INVALID_ORDER_PAYLOAD],
    ['an item line overflows exact cents', order({ items: [item({ quantity: 1e300 })] }), M.INVALID_ORDER_PAYLOAD],
    ['an item shipping is a string', order({ items: [item({ shipping: 'free' })] }), M.INVALID_ORDER_PAYLOAD],
    ['an item sku is a number', order({ items: [item({ sku: 5 })] }), M.INVALID_ORDER_PAYLOAD],
    ['an item name is an object', order({ items: [item({ name: {} })] }), M.INVALID_ORDER_PAYLOAD],
    ['an item metadata is an array', order({ items: [item({ metadata: [] })] }), M.INVALID_ORDER_PAYLOAD],
    ['an order field and an item are both wrong (order level first)', order({ tax: 'x', items: [{}] }), M.INVALID_ORDER_PAYLOAD],
  ];
  for (const [label, raw, message] of rows) {
    it(`when ${label}, then "${message}"`, () => expect(messageOf(raw)).to.equal(message));
  }
});

describe('order: parseOrder never throws', () => {
  const throwing = Object.defineProperty({}, 'original_price_subtotal', {
    enumerable: true,
    get() {
      throw new Error('boom');
    },
  });
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const deep: unknown = JSON.parse(`${'['.repeat(5000)}${']'.repeat(5000)}`);
  const hostile: [string, unknown][] = [
    ['undefined', undefined],
    ['a symbol', Symbol('x')],
    ['a function', () => 1],
    ['a Date', new Date()],
    ['an object with a throwing getter', throwing],
    ['a revoked proxy', revoked],
    ['5000 nested arrays as items', order({ items: deep })],
    ['a prototype-polluting body', JSON.parse('{"__proto__":{"x":1},"original_price_subtotal":1,"selling_price_subtotal":1}')],
    ['a class instance', new (class Order {})()],
  ];
  for (const [label, raw] of hostile) {
    it(`when the order is ${label}, then a message and no exception`, () => {
      expect(() => parseOrder(raw)).to.not.throw();
    });
  }
  it('when the order has 10,000 valid items, then it parses them all', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => item({ product_id: `p${i}` }));
    expect(parsed(order({ items })).items).to.have.length(10_000);
  });
});

describe('order: isPlainObject', () => {
  const rows: [string, unknown, boolean][] = [
    ['{}', {}, true],
    ['a null-prototype object', Object.create(null), true],
    ['an array', [], false],
    ['null', null, false],
    ['a Date', new Date(), false],
    ['a string', 'x', false],
  ];
  for (const [label, v, result] of rows) it(`when the value is ${label}, then ${result}`, () => expect(isPlainObject(v)).to.equal(result));
});
