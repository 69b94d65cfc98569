import { expect } from 'chai';
import { evaluateCoupon } from '../../shared/domain/engine.js';
import { blankSavingsOrder, presentSavingsOrder, type SavingsOrder } from '../../shared/domain/savings.js';
import type { Campaign } from '../../shared/domain/types.js';
import { makeCampaign } from '../fixtures/campaign.js';

const NOW = new Date('2026-03-10T06:00:00Z');
const noUsage = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };

/** Runs the engine, then presents its result, as list and validate do. */
function present(campaignOver: Partial<Campaign>, order: unknown, includeValidateFields = true, sourceId = 'cust-1'): SavingsOrder {
  const campaign = makeCampaign(campaignOver);
  const e = evaluateCoupon({ now: NOW, timezone: 'UTC', campaign, usage: noUsage, customerKnown: true, order });
  if (!e.applicable) throw new Error(`not applicable: ${e.message}`);
  return presentSavingsOrder({ sourceId, order: e.order, campaign, result: e.result, includeValidateFields });
}

const fullOrder = {
  order_id: 'o-1',
  status: 'pending',
  payment_mode: 'UPI',
  original_price_subtotal: 1200,
  selling_price_subtotal: 1000,
  shipping: 40,
  tax: 18,
  metadata: { channel: 'app', secret: 'x' },
  items: [
    {
      product_id: 'p1',
      name: 'Shirt',
      sku: 'A',
      original_price: 700,
      selling_price: 600,
      quantity: 1,
      shipping: 0,
      discount_value: 999,
      extra: 'x',
    },
    { product_id: 'p2', name: 'Socks', sku: 'B', original_price: 250, selling_price: 200, quantity: 2, shipping: 0 },
  ],
};

describe('savings: presentSavingsOrder', () => {
  it('when a whole-cart coupon is validated, then the exact contract object (no item discount_value)', () => {
    expect(present({}, fullOrder)).to.deep.equal({
      order_id: 'o-1',
      source_id: 'cust-1',
      status: 'pending',
      original_price_subtotal: 1200,
      selling_price_subtotal: 1000,
      total_discount: 100,
      total_amount: 900,
      total_cashback: 0,
      shipping: 40,
      payment_mode: 'UPI',
      discount_calculated_on_property: 'selling_price_subtotal',
      coupon_details: {},
      metadata: {},
      items: [
        {
          product_id: 'p1',
          name: 'Shirt',
          sku: 'A',
          original_price: 700,
          selling_price: 600,
          quantity: 1,
          shipping: 0,
          metadata: {},
          final_amount: 600,
        },
        {
          product_id: 'p2',
          name: 'Socks',
          sku: 'B',
          original_price: 250,
          selling_price: 200,
          quantity: 2,
          shipping: 0,
          metadata: {},
          final_amount: 400,
        },
      ],
    });
  });

  it('when listed (not validate), then payment_mode and discount_calculated_on_property are absent', () => {
    const s = present({}, fullOrder, false);
    expect(s).to.not.have.any.keys('payment_mode', 'discount_calculated_on_property');
    expect(s.total_discount).to.equal(100);
  });

  it('when a selected-items coupon applies, then items carry discount_value (0 when not selected) and final_amount', () => {
    const s = present(
      {
        discountCalculatedOn: 'selected_items_selling_price_subtotal',
        itemSelector: { match: 'OR', properties: [{ property: 'sku', values: ['B'] }] },
      },
      fullOrder,
    );
    expect(s.items.map((i) => [i.discount_value, i.final_amount])).to.deep.equal([
      [0, 600],
      [40, 360],
    ]);
    expect(s).to.include({
      total_discount: 40,
      total_amount: 960,
      discount_calculated_on_property: 'selected_items_selling_price_subtotal',
    });
  });

  it('when a valid-cart discount does not divide evenly, then discount_value sums to total_discount and amounts have 2 decimals', () => {
    const items = ['A', 'B', 'C', 'D'].map((sku, i) => ({
      product_id: `p${i}`,
      sku,
      original_price: 100,
      selling_price: 100,
      quantity: 1,
    }));
    const s = present(
      {
        discount: { kind: 'discount', type: 'flat', value: 1000, maxCents: null, walletId: null },
        discountCalculatedOn: 'valid_cart_selling_price_subtotal',
        excludedItems: { match: 'OR', properties: [{ property: 'sku', values: ['D'] }] },
      },
      { original_price_subtotal: 400, selling_price_subtotal: 400, items },
    );
    expect(s.items.map((i) => i.discount_value)).to.deep.equal([3.34, 3.33, 3.33, 0]);
    expect(s.items.map((i) => i.final_amount)).to.deep.equal([96.66, 96.67, 96.67, 100]);
    expect(s.total_discount).to.equal(10);
  });

  it('when optional order fields were not sent, then strings are empty and numbers 0', () => {
    const s = present({}, { original_price_subtotal: 10, selling_price_subtotal: 10 }, true, '');
    expect(s).to.deep.equal({
      order_id: '',
      source_id: '',
      status: '',
      original_price_subtotal: 10,
      selling_price_subtotal: 10,
      total_discount: 1,
      total_amount: 9,
      total_cashback: 0,
      shipping: 0,
      payment_mode: '',
      discount_calculated_on_property: 'selling_price_subtotal',
      coupon_details: {},
      metadata: {},
      items: [],
    });
  });

  it('when optional item fields were not sent, then the item echoes only what was sent, with quantity 1', () => {
    const s = present(
      {},
      { original_price_subtotal: 5, selling_price_subtotal: 5, items: [{ product_id: 'p', original_price: 5, selling_price: 5 }] },
    );
    expect(s.items).to.deep.equal([{ product_id: 'p', original_price: 5, selling_price: 5, quantity: 1, metadata: {}, final_amount: 5 }]);
  });

  it('when amounts carry float noise or sub-cent digits, then they are echoed rounded half away from zero to 2 decimals', () => {
    const s = present({}, { original_price_subtotal: 1000.005, selling_price_subtotal: 0.1 + 0.2, shipping: 1.005 });
    expect(s).to.include({
      original_price_subtotal: 1000.01,
      selling_price_subtotal: 0.3,
      shipping: 1.01,
      total_discount: 0.03,
      total_amount: 0.27,
    });
  });

  it('when a cashback coupon applies, then total_discount is 0, total_amount the selling subtotal, total_cashback the amount', () => {
    const s = present({ discount: { kind: 'cashback', type: 'percentage', value: 5, maxCents: null, walletId: 'w' } }, fullOrder);
    expect(s).to.include({ total_discount: 0, total_amount: 1000, total_cashback: 50 });
  });

  it('when metadata is declared, then only declared keys of the right type are echoed (order and item)', () => {
    const order = JSON.parse(
      JSON.stringify({
        ...fullOrder,
        metadata: { channel: 'app', visits: '3', secret: 'x', $where: 'sleep(1)' },
        items: [{ ...fullOrder.items[0], metadata: { color: 'red', size: 42, note: 'x' } }, fullOrder.items[1]],
      }).replace('"secret"', '"__proto__":{"polluted":1},"secret"'),
    ) as unknown;
    const s = present(
      {
        metadataKeys: [
          { key: 'channel', type: 'string', scope: 'order' },
          { key: 'visits', type: 'number', scope: 'order' },
          { key: 'color', type: 'string', scope: 'item' },
          { key: 'size', type: 'string', scope: 'item' },
        ],
      },
      order,
    );
    expect(s.metadata).to.deep.equal({ channel: 'app' });
    expect(s.items[0]!.metadata).to.deep.equal({ color: 'red' });
    expect(s.items[1]!.metadata).to.deep.equal({});
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('when a key is declared for both levels, then it is echoed on the order and on each item that sent it', () => {
    const order = {
      ...fullOrder,
      metadata: { tier: 'gold' },
      items: [{ ...fullOrder.items[0], metadata: { tier: 'silver' } }, fullOrder.items[1]],
    };
    const s = present({ metadataKeys: [{ key: 'tier', type: 'string', scope: 'both' }] }, order);
    expect(s.metadata).to.deep.equal({ tier: 'gold' });
    expect(s.items[0]!.metadata).to.deep.equal({ tier: 'silver' });
    expect(s.items[1]!.metadata).to.deep.equal({});
  });

  it('when items carry unknown fields, then they are never echoed', () => {
    const s = present({}, fullOrder);
    expect(Object.keys(s.items[0]!)).to.have.members([
      'product_id',
      'name',
      'sku',
      'original_price',
      'selling_price',
      'quantity',
      'shipping',
      'metadata',
      'final_amount',
    ]);
  });

  it('when no order was sent (list rule 1), then every amount is 0 and items are empty', () => {
    const s = present({}, undefined, false, 'cust-9');
    expect(s).to.deep.equal({
      order_id: '',
      source_id: 'cust-9',
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
    });
  });

  it('when two whole-cart coupons present the same order, then their item echoes are equal', () => {
    const raw = structuredClone(fullOrder);
    const a = present({}, raw);
    const b = present({ discount: { kind: 'discount', type: 'flat', value: 500, maxCents: null, walletId: null } }, raw);
    expect(a.items).to.deep.equal(b.items);
  });
});

describe('savings: blankSavingsOrder', () => {
  it('when a coupon is not applicable, then blank strings, zeros and empty objects', () => {
    expect(blankSavingsOrder()).to.deep.equal({
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
    });
  });
  it('when two blank objects are built, then they are independent', () => {
    const a = blankSavingsOrder();
    a.metadata.x = 1;
    expect(blankSavingsOrder().metadata).to.deep.equal({});
  });
});
