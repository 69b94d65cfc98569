import { expect } from 'chai';
import { evaluateCoupon, type EvaluateInput, type Evaluation } from '../../shared/domain/engine.js';
import * as M from '../../shared/domain/messages.js';
import type { Campaign, UsageCounts } from '../../shared/domain/types.js';
import { makeCampaign } from '../fixtures/campaign.js';

const NOW = new Date('2026-03-10T06:00:00Z'); // Tuesday 11:30 in Asia/Kolkata
const TZ = 'Asia/Kolkata';
const noUsage: UsageCounts = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };

const items = [
  { product_id: 'p1', sku: 'A', name: 'Shirt', original_price: 700, selling_price: 600, quantity: 1, shipping: 0 },
  { product_id: 'p2', sku: 'B', name: 'Socks', original_price: 250, selling_price: 200, quantity: 2, shipping: 0 },
];
const order = (over: Record<string, unknown> = {}) => ({
  original_price_subtotal: 1200,
  selling_price_subtotal: 1000,
  shipping: 50,
  items,
  ...over,
});

function evaluate(campaign: Partial<Campaign>, over: Partial<EvaluateInput> = {}): Evaluation {
  return evaluateCoupon({
    now: NOW,
    timezone: TZ,
    campaign: makeCampaign(campaign),
    usage: noUsage,
    customerKnown: true,
    order: order(),
    ...over,
  });
}
const messageOf = (e: Evaluation) => (e.applicable ? 'applicable' : e.message);
const discountOf = (e: Evaluation) => (e.applicable ? e.result.totalDiscountCents : NaN);

describe('engine: discount bases, types and caps', () => {
  const pct = (value: number, maxCents: number | null = null) => ({
    kind: 'discount' as const,
    type: 'percentage' as const,
    value,
    maxCents,
    walletId: null,
  });
  const flat = (value: number) => ({ kind: 'discount' as const, type: 'flat' as const, value, maxCents: null, walletId: null });
  const sel = { match: 'OR' as const, properties: [{ property: 'sku', values: ['B'] }] };
  const rows: [string, Partial<Campaign>, number, (number | null)[]][] = [
    ['10% of the selling subtotal', { discount: pct(10) }, 10000, [null, null]],
    ['10% of the original subtotal', { discount: pct(10), discountCalculatedOn: 'original_price_subtotal' }, 12000, [null, null]],
    ['50% of shipping', { discount: pct(50), discountCalculatedOn: 'shipping' }, 2500, [null, null]],
    ['a flat 100 on shipping (capped at the shipping)', { discount: flat(10000), discountCalculatedOn: 'shipping' }, 5000, [null, null]],
    ['a flat 75', { discount: flat(7500) }, 7500, [null, null]],
    ['a flat 2000 on a 1000 cart (never above the base)', { discount: flat(200000) }, 100000, [null, null]],
    ['20% capped at 150', { discount: pct(20, 15000) }, 15000, [null, null]],
    [
      '10% of selected items on selling price',
      { discount: pct(10), discountCalculatedOn: 'selected_items_selling_price_subtotal', itemSelector: sel },
      4000,
      [0, 4000],
    ],
    [
      '10% of selected items on original price',
      { discount: pct(10), discountCalculatedOn: 'selected_items_original_price_subtotal', itemSelector: sel },
      5000,
      [0, 5000],
    ],
    [
      '10% of the valid cart on selling price, excluding sku A',
      {
        discount: pct(10),
        discountCalculatedOn: 'valid_cart_selling_price_subtotal',
        excludedItems: { match: 'OR', properties: [{ property: 'sku', values: ['A'] }] },
      },
      4000,
      [0, 4000],
    ],
    [
      '10% of the valid cart on original price, nothing excluded',
      { discount: pct(10), discountCalculatedOn: 'valid_cart_original_price_subtotal' },
      12000,
      [7000, 5000],
    ],
  ];
  for (const [label, campaign, total, perItem] of rows) {
    it(`when ${label}, then the discount is ${total} cents`, () => {
      const e = evaluate(campaign);
      expect(e.applicable).to.equal(true);
      if (!e.applicable) return;
      expect(e.result.totalDiscountCents).to.equal(total);
      expect(e.result.totalAmountCents).to.equal(100000 - total);
      expect(e.result.itemDiscountCents).to.deep.equal(perItem);
    });
  }

  it('when a cashback coupon applies, then total_discount is 0 and the cashback is computed (decision 20c)', () => {
    const e = evaluate({ discount: { kind: 'cashback', type: 'percentage', value: 5, maxCents: 4000, walletId: 'w' } });
    expect(e.applicable && e.result).to.deep.include({ totalDiscountCents: 0, totalCashbackCents: 4000, totalAmountCents: 100000 });
  });

  it('when three equal items split a discount that does not divide evenly, then largest remainder gives 34/33/33', () => {
    const three = [1, 2, 3].map((i) => ({ product_id: `p${i}`, original_price: 1, selling_price: 1, quantity: 1, shipping: 0 }));
    const e = evaluate(
      { discount: flat(100), discountCalculatedOn: 'valid_cart_selling_price_subtotal' },
      { order: { original_price_subtotal: 3, selling_price_subtotal: 3, items: three } },
    );
    expect(e.applicable && e.result.itemDiscountCents).to.deep.equal([34, 33, 33]);
  });

  it('when a percentage gives half a cent, then it rounds half away from zero', () => {
    const e = evaluate({ discount: pct(10) }, { order: order({ selling_price_subtotal: 0.05 }) });
    expect(discountOf(e)).to.equal(1);
  });
});

describe('engine: messages and the order of checks', () => {
  const cond = (field: string, operator: 'gt' | 'gte' | 'lt' | 'lte' | 'eq' | 'neq' | 'in' | 'nin', value: number | string | string[]) => ({
    field,
    operator,
    value,
  });
  const rows: [string, Partial<Campaign>, Partial<EvaluateInput>, string][] = [
    ['expired', { validUntil: new Date('2026-03-01T00:00:00Z') }, {}, M.NOT_AVAILABLE],
    ['not started', { validFrom: new Date('2026-04-01T00:00:00Z') }, {}, M.NOT_AVAILABLE],
    ['disabled', { status: 'disabled' }, {}, M.NOT_AVAILABLE],
    ['outside its days (Tuesday is 2)', { schedule: { daysOfWeek: [6, 7] } }, {}, M.NOT_AVAILABLE],
    ['outside its hours (11:30 local)', { schedule: { hours: [{ from: '12:00', to: '14:00' }] } }, {}, M.NOT_AVAILABLE],
    ['at the total limit', { limits: { total: 3 } }, { usage: { ...noUsage, total: 3 } }, M.TOTAL_LIMIT_EXCEEDED],
    ['at the per-customer limit', { limits: { perCustomer: 1 } }, { usage: { ...noUsage, perCustomer: 1 } }, M.PER_USER_LIMIT_EXCEEDED],
    ['at the per-day limit', { limits: { perDay: 2 } }, { usage: { ...noUsage, perDay: 2 } }, M.PER_DAY_LIMIT_EXCEEDED],
    ['at the per-week limit', { limits: { perWeek: 2 } }, { usage: { ...noUsage, perWeek: 2 } }, M.PER_WEEK_LIMIT_EXCEEDED],
    ['at the per-month limit', { limits: { perMonth: 2 } }, { usage: { ...noUsage, perMonth: 2 } }, M.PER_MONTH_LIMIT_EXCEEDED],
    [
      'at total and per-customer limits (total first)',
      { limits: { total: 1, perCustomer: 1 } },
      { usage: { ...noUsage, total: 1, perCustomer: 1 } },
      M.TOTAL_LIMIT_EXCEEDED,
    ],
    [
      'at the per-day and per-month limits (day first)',
      { limits: { perDay: 1, perMonth: 1 } },
      { usage: { ...noUsage, perDay: 1, perMonth: 1 } },
      M.PER_DAY_LIMIT_EXCEEDED,
    ],
    ['a used single-use bulk code', { codeType: 'bulk' }, { usage: { ...noUsage, bulkCode: 1 } }, M.TOTAL_LIMIT_EXCEEDED],
    ['subtotals missing', {}, { order: { items } }, M.INVALID_ORDER_PAYLOAD],
    ['a zero subtotal', {}, { order: order({ original_price_subtotal: 0 }) }, M.INVALID_ORDER_PAYLOAD],
    ['a string subtotal', {}, { order: order({ selling_price_subtotal: '1000' }) }, M.INVALID_ORDER_PAYLOAD],
    ['an item without product_id', {}, { order: order({ items: [{ original_price: 1, selling_price: 1 }] }) }, 'product_id is required'],
    [
      'an item without selling_price',
      {},
      { order: order({ items: [{ product_id: 'x', original_price: 1 }] }) },
      'selling_price is required',
    ],
    [
      'a selling subtotal not above 2000',
      { cartConditions: [cond('selling_price_subtotal', 'gt', 200000)] },
      {},
      'selling_price_subtotal should be greater than 2000.00',
    ],
    [
      'an original subtotal below 5000',
      { cartConditions: [cond('original_price_subtotal', 'gte', 500000)] },
      {},
      'original_price_subtotal should be greater than or equal to 5000.00',
    ],
    [
      'a cart above 500',
      { cartConditions: [cond('selling_price_subtotal', 'lt', 50000)] },
      {},
      'selling_price_subtotal should be less than 500.00',
    ],
    [
      'a cart above 999.99',
      { cartConditions: [cond('selling_price_subtotal', 'lte', 99999)] },
      {},
      'selling_price_subtotal should be less than or equal to 999.99',
    ],
    [
      'a payment mode not allowed',
      { cartConditions: [cond('payment_mode', 'in', ['UPI', 'CARD'])] },
      { order: order({ payment_mode: 'COD' }) },
      'payment_mode should be one of UPI, CARD',
    ],
    [
      'a payment mode excluded',
      { cartConditions: [cond('payment_mode', 'nin', ['COD'])] },
      { order: order({ payment_mode: 'cod' }) },
      'payment_mode should not be one of COD',
    ],
    [
      'a payment mode not equal',
      { cartConditions: [cond('payment_mode', 'eq', 'UPI')] },
      { order: order({ payment_mode: 'CARD' }) },
      'payment_mode should be equal to UPI',
    ],
    [
      'a payment mode that must differ',
      { cartConditions: [cond('payment_mode', 'neq', 'CARD')] },
      { order: order({ payment_mode: 'CARD' }) },
      'payment_mode should not be equal to CARD',
    ],
    [
      'shipping sent and too high',
      { cartConditions: [cond('shipping', 'lte', 1000)] },
      {},
      'shipping should be less than or equal to 10.00',
    ],
    [
      'an item selling price not above 500',
      { productValidations: [cond('selling_price', 'gt', 50000)] },
      {},
      'selling_price should be greater than 500.00',
    ],
    ['a cart_qty above 1', { productValidations: [cond('cart_qty', 'lte', 1)] }, {}, 'cart_qty should be less than or equal to 1'],
    [
      'no selected item (AND)',
      {
        itemSelector: {
          match: 'AND',
          properties: [
            { property: 'sku', values: ['A'] },
            { property: 'name', values: ['Socks'] },
          ],
        },
      },
      {},
      M.SELECTION_FAILED,
    ],
    [
      'a selected-items base without any item',
      {
        discountCalculatedOn: 'selected_items_selling_price_subtotal',
        itemSelector: { match: 'OR', properties: [{ property: 'sku', values: ['Z'] }] },
      },
      { order: order({ items: [] }) },
      M.SELECTION_FAILED,
    ],
    [
      'selected-items quantity below 3',
      {
        itemSelector: { match: 'OR', properties: [{ property: 'sku', values: ['A', 'B'] }] },
        selectedItemsValidations: [cond('selected_items_total_qty', 'gte', 4)],
      },
      {},
      M.SELECTION_FAILED,
    ],
    [
      'selected-items subtotal below 1000',
      {
        itemSelector: { match: 'OR', properties: [{ property: 'sku', values: ['B'] }] },
        selectedItemsValidations: [cond('selected_items_selling_price_subtotal', 'gte', 100000)],
      },
      {},
      M.SELECTION_FAILED,
    ],
    [
      'expired and over the limit (availability first)',
      { validUntil: new Date('2026-03-01T00:00:00Z'), limits: { total: 1 } },
      { usage: { ...noUsage, total: 5 } },
      M.NOT_AVAILABLE,
    ],
    [
      'over the limit with a bad order (limits before payload)',
      { limits: { total: 1 } },
      { usage: { ...noUsage, total: 1 }, order: {} },
      M.TOTAL_LIMIT_EXCEEDED,
    ],
  ];
  for (const [label, campaign, over, message] of rows) {
    it(`when ${label}, then "${message}"`, () => {
      expect(messageOf(evaluate(campaign, over))).to.equal(message);
    });
  }

  const passes: [string, Partial<Campaign>, Partial<EvaluateInput>][] = [
    ['exactly at a gte minimum', { cartConditions: [cond('selling_price_subtotal', 'gte', 100000)] }, {}],
    ['one cent above a gt minimum', { cartConditions: [cond('selling_price_subtotal', 'gt', 99999)] }, {}],
    ['a rule on an optional field not sent (list rule 5)', { cartConditions: [cond('payment_mode', 'in', ['UPI'])] }, {}],
    [
      'a per-customer limit reached but no customer known',
      { limits: { perCustomer: 1 } },
      { customerKnown: false, usage: { ...noUsage, perCustomer: 1 } },
    ],
    ['one below the total limit', { limits: { total: 3 } }, { usage: { ...noUsage, total: 2 } }],
    [
      'selected items found with OR',
      {
        itemSelector: {
          match: 'OR',
          properties: [
            { property: 'sku', values: ['Z'] },
            { property: 'name', values: ['Socks'] },
          ],
        },
      },
      {},
    ],
    [
      'selected items found with AND',
      {
        itemSelector: {
          match: 'AND',
          properties: [
            { property: 'sku', values: ['B'] },
            { property: 'name', values: ['socks'] },
          ],
        },
      },
      {},
    ],
    ['no order at all (list rule 1)', { cartConditions: [cond('selling_price_subtotal', 'gt', 999999999)] }, { order: undefined }],
    ['inside its schedule', { schedule: { daysOfWeek: [2], hours: [{ from: '11:00', to: '12:00' }] } }, {}],
  ];
  for (const [label, campaign, over] of passes) {
    it(`when ${label}, then applicable`, () => {
      expect(messageOf(evaluate(campaign, over))).to.equal('applicable');
    });
  }

  it('when a rule is one cent below a gte minimum, then it fails with the rule text', () => {
    const e = evaluate({ cartConditions: [cond('selling_price_subtotal', 'gte', 100001)] });
    expect(messageOf(e)).to.equal('selling_price_subtotal should be greater than or equal to 1000.01');
  });
  it('when a rule sits exactly at a gt threshold, then it fails', () => {
    expect(messageOf(evaluate({ cartConditions: [cond('selling_price_subtotal', 'gt', 100000)] }))).to.equal(
      'selling_price_subtotal should be greater than 1000.00',
    );
  });
});

describe('engine: timezone edges', () => {
  const until = new Date('2026-03-10T18:29:00Z'); // 23:59 on 10 March in Asia/Kolkata
  it('when a coupon valid until 23:59 Asia/Kolkata is evaluated at 18:30 UTC, then it has expired', () => {
    expect(messageOf(evaluate({ validUntil: until }, { now: new Date('2026-03-10T18:30:00Z') }))).to.equal(M.NOT_AVAILABLE);
  });
  it('when it is evaluated at 18:28 UTC, then it is available', () => {
    expect(messageOf(evaluate({ validUntil: until }, { now: new Date('2026-03-10T18:28:00Z') }))).to.equal('applicable');
  });
  it('when a Wednesday-only coupon is evaluated at 19:00 UTC on Tuesday (00:30 Wednesday in Kolkata), then it is available', () => {
    expect(messageOf(evaluate({ schedule: { daysOfWeek: [3] } }, { now: new Date('2026-03-10T19:00:00Z') }))).to.equal('applicable');
    expect(messageOf(evaluate({ schedule: { daysOfWeek: [3] } }, { now: new Date('2026-03-10T18:00:00Z') }))).to.equal(M.NOT_AVAILABLE);
  });
});

describe('engine: hostile orders never throw', () => {
  const hostile: unknown[] = [
    null,
    42,
    'x',
    [],
    [1],
    { $gt: 1 },
    { items: 'x', original_price_subtotal: 1, selling_price_subtotal: 1 },
    order({ items: [null] }),
    order({ items: [{ product_id: { $ne: 1 }, original_price: 1, selling_price: 1 }] }),
    order({ metadata: [] }),
  ];
  for (const o of hostile) {
    it(`when the order is ${JSON.stringify(o).slice(0, 60)}, then a not-applicable message`, () => {
      const e = evaluate({}, { order: o });
      expect(e.applicable).to.equal(false);
    });
  }
});
