import { expect } from 'chai';
import { evaluateCoupon, type EvaluateInput, type Evaluation } from '../../shared/domain/engine.js';
import type { RefusalReason } from '../../shared/reasons.js';
import * as M from '../../shared/domain/messages.js';
import type {
  Campaign,
  Condition,
  Discount,
  DiscountBase,
  ItemSelector,
  Operator,
  Scalar,
  UsageCounts,
} from '../../shared/domain/types.js';
import { makeCampaign } from '../fixtures/campaign.js';

const NOW = new Date('2026-03-10T06:00:00Z'); // Tuesday 11:30 in Asia/Kolkata
const TZ = 'Asia/Kolkata';
const noUsage: UsageCounts = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };

/** Two items: p1 (sku A) 600 selling / 700 original × 1; p2 (sku B) 200 / 250 × 2. */
const baseItems = () => [
  { product_id: 'p1', sku: 'A', name: 'Shirt', original_price: 700, selling_price: 600, quantity: 1, shipping: 0 },
  { product_id: 'p2', sku: 'B', name: 'Socks', original_price: 250, selling_price: 200, quantity: 2, shipping: 0 },
];
/** Subtotals 1200 original / 1000 selling, shipping 50. */
const order = (over: Record<string, unknown> = {}) => ({
  original_price_subtotal: 1200,
  selling_price_subtotal: 1000,
  shipping: 50,
  items: baseItems(),
  ...over,
});
const withItem = (index: number, over: Record<string, unknown>) =>
  order({ items: baseItems().map((it, i) => (i === index ? { ...it, ...over } : it)) });

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
const outcome = (e: Evaluation): string => (e.applicable ? 'applicable' : `${e.reason}: ${e.message}`);
const cond = (field: string, operator: Operator, value: Scalar | Scalar[]): Condition => ({ field, operator, value });
const pct = (value: number, maxCents: number | null = null): Discount => ({
  kind: 'discount',
  type: 'percentage',
  value,
  maxCents,
  walletId: null,
});
const flat = (cents: number, maxCents: number | null = null): Discount => ({
  kind: 'discount',
  type: 'flat',
  value: cents,
  maxCents,
  walletId: null,
});
const skuIs = (...values: string[]): ItemSelector => ({ match: 'OR', properties: [{ property: 'sku', values }] });

describe('engine: discount bases, types, caps and cashback', () => {
  const rows: [string, DiscountBase, Discount, Partial<Campaign>, number, (number | null)[]][] = [
    ['10% on the selling subtotal', 'selling_price_subtotal', pct(10), {}, 10000, [null, null]],
    ['a flat 75 on the selling subtotal', 'selling_price_subtotal', flat(7500), {}, 7500, [null, null]],
    ['10% on the original subtotal', 'original_price_subtotal', pct(10), {}, 12000, [null, null]],
    ['a flat 75 on the original subtotal', 'original_price_subtotal', flat(7500), {}, 7500, [null, null]],
    ['10% on shipping', 'shipping', pct(10), {}, 500, [null, null]],
    ['a flat 75 on shipping of 50 (never above shipping)', 'shipping', flat(7500), {}, 5000, [null, null]],
    [
      '10% of selected items (sku B) on selling price',
      'selected_items_selling_price_subtotal',
      pct(10),
      { itemSelector: skuIs('B') },
      4000,
      [0, 4000],
    ],
    [
      'a flat 75 on selected items on selling price',
      'selected_items_selling_price_subtotal',
      flat(7500),
      { itemSelector: skuIs('B') },
      7500,
      [0, 7500],
    ],
    [
      '10% of selected items on original price',
      'selected_items_original_price_subtotal',
      pct(10),
      { itemSelector: skuIs('B') },
      5000,
      [0, 5000],
    ],
    [
      'a flat 75 on selected items on original price',
      'selected_items_original_price_subtotal',
      flat(7500),
      { itemSelector: skuIs('B') },
      7500,
      [0, 7500],
    ],
    ['10% of selected items with no selector (all items)', 'selected_items_selling_price_subtotal', pct(10), {}, 10000, [6000, 4000]],
    [
      '10% of the valid cart excluding sku A (selling)',
      'valid_cart_selling_price_subtotal',
      pct(10),
      { excludedItems: skuIs('A') },
      4000,
      [0, 4000],
    ],
    ['a flat 75 on the valid cart, nothing excluded (selling)', 'valid_cart_selling_price_subtotal', flat(7500), {}, 7500, [4500, 3000]],
    ['10% of the valid cart, nothing excluded (original)', 'valid_cart_original_price_subtotal', pct(10), {}, 12000, [7000, 5000]],
    [
      'a flat 75 on the valid cart excluding sku B (original)',
      'valid_cart_original_price_subtotal',
      flat(7500),
      { excludedItems: skuIs('B') },
      7500,
      [7500, 0],
    ],
    [
      'the valid cart with every item excluded',
      'valid_cart_selling_price_subtotal',
      pct(10),
      { excludedItems: skuIs('A', 'B') },
      0,
      [0, 0],
    ],
    ['20% capped at 150', 'selling_price_subtotal', pct(20, 15000), {}, 15000, [null, null]],
    ['20% under a cap of 250', 'selling_price_subtotal', pct(20, 25000), {}, 20000, [null, null]],
    ['a flat 100 capped at 60', 'selling_price_subtotal', flat(10000, 6000), {}, 6000, [null, null]],
    [
      '50% of selected items capped at 50',
      'selected_items_selling_price_subtotal',
      pct(50, 5000),
      { itemSelector: skuIs('B') },
      5000,
      [0, 5000],
    ],
    ['a flat 2000 on a 1000 cart (never above the base)', 'selling_price_subtotal', flat(200000), {}, 100000, [null, null]],
    ['a percentage above 100 (never above the base)', 'selling_price_subtotal', pct(150), {}, 100000, [null, null]],
    ['a negative flat value (never negative)', 'selling_price_subtotal', flat(-500), {}, 0, [null, null]],
  ];
  for (const [label, base, discount, extra, total, perItem] of rows) {
    it(`when ${label}, then the discount is ${total} cents, items ${JSON.stringify(perItem)}`, () => {
      const e = evaluate({ discountCalculatedOn: base, discount, ...extra });
      if (!e.applicable) throw new Error(outcome(e));
      expect(e.result).to.deep.equal({
        totalDiscountCents: total,
        totalCashbackCents: 0,
        totalAmountCents: 100000 - total,
        itemDiscountCents: perItem,
      });
    });
  }

  it('when the base is shipping and no shipping was sent, then the discount is 0', () => {
    const e = evaluate({ discountCalculatedOn: 'shipping' }, { order: order({ shipping: undefined }) });
    expect(e.applicable && e.result.totalDiscountCents).to.equal(0);
  });

  const cashback: [string, Partial<Campaign>, number, (number | null)[]][] = [
    [
      '5% capped at 40 on the selling subtotal',
      { discount: { kind: 'cashback', type: 'percentage', value: 5, maxCents: 4000, walletId: 'w1' } },
      4000,
      [null, null],
    ],
    ['a flat 30', { discount: { kind: 'cashback', type: 'flat', value: 3000, maxCents: null, walletId: null } }, 3000, [null, null]],
    [
      '10% on selected items (items carry 0: nothing is discounted)',
      {
        discount: { kind: 'cashback', type: 'percentage', value: 10, maxCents: null, walletId: null },
        discountCalculatedOn: 'selected_items_selling_price_subtotal',
        itemSelector: skuIs('B'),
      },
      4000,
      [0, 0],
    ],
  ];
  for (const [label, campaign, amount, perItem] of cashback) {
    it(`when a cashback coupon gives ${label}, then total discount 0 and cashback ${amount} (docs/decisions.md#20c)`, () => {
      const e = evaluate(campaign);
      if (!e.applicable) throw new Error(outcome(e));
      expect(e.result).to.deep.equal({
        totalDiscountCents: 0,
        totalCashbackCents: amount,
        totalAmountCents: 100000,
        itemDiscountCents: perItem,
      });
    });
  }
});

describe('engine: item-level spread and rounding', () => {
  const three = (prices: number[]) => prices.map((p, i) => ({ product_id: `p${i}`, original_price: p, selling_price: p, quantity: 1 }));
  const rows: [string, Discount, number[], number, number[]][] = [
    ['three equal items split a flat 1.00', flat(100), [1, 1, 1], 3, [34, 33, 33]],
    ['10% of three items 19.99, 29.99, 39.99', pct(10), [19.99, 29.99, 39.99], 89.97, [200, 300, 400]],
    ['10% of three items 33.33, 33.33, 33.34', pct(10), [33.33, 33.33, 33.34], 100, [333, 333, 334]],
  ];
  for (const [label, discount, prices, subtotal, parts] of rows) {
    it(`when ${label}, then items get ${JSON.stringify(parts)} summing exactly to the total`, () => {
      const e = evaluate(
        { discount, discountCalculatedOn: 'valid_cart_selling_price_subtotal' },
        { order: { original_price_subtotal: subtotal, selling_price_subtotal: subtotal, items: three(prices) } },
      );
      if (!e.applicable) throw new Error(outcome(e));
      expect(e.result.itemDiscountCents).to.deep.equal(parts);
      expect(parts.reduce((a, b) => a + b, 0)).to.equal(e.result.totalDiscountCents);
    });
  }

  it('when a percentage gives half a cent, then it rounds half away from zero', () => {
    const e = evaluate({ discount: pct(10) }, { order: order({ selling_price_subtotal: 0.05 }) });
    expect(e.applicable && e.result.totalDiscountCents).to.equal(1);
  });

  it('when 5,000 items share a valid-cart discount, then the item discounts sum exactly to it', () => {
    const items = Array.from({ length: 5000 }, (_, i) => ({
      product_id: `p${i}`,
      original_price: 2,
      selling_price: 1.37,
      quantity: 1 + (i % 3),
      sku: i % 2 ? 'X' : 'Y',
    }));
    const e = evaluate(
      { discount: pct(7), discountCalculatedOn: 'valid_cart_selling_price_subtotal', excludedItems: skuIs('X') },
      { order: { original_price_subtotal: 20000, selling_price_subtotal: 13700, items } },
    );
    if (!e.applicable) throw new Error(outcome(e));
    const parts = e.result.itemDiscountCents as number[];
    expect(parts.reduce((a, b) => a + b, 0)).to.equal(e.result.totalDiscountCents);
    expect(parts.filter((_, i) => i % 2 === 1).every((p) => p === 0)).to.equal(true);
  });
});

describe('engine: refusals, their reasons and messages', () => {
  const rows: [string, Partial<Campaign>, Partial<EvaluateInput>, RefusalReason, string][] = [
    // 1. availability
    ['expired', { validUntil: new Date('2026-03-01T00:00:00Z') }, {}, 'not_available', M.NOT_AVAILABLE],
    ['not started', { validFrom: new Date('2026-04-01T00:00:00Z') }, {}, 'not_available', M.NOT_AVAILABLE],
    ['disabled', { status: 'disabled' }, {}, 'not_available', M.NOT_AVAILABLE],
    ['outside its days (Tuesday is 2)', { schedule: { daysOfWeek: [6, 7] } }, {}, 'not_available', M.NOT_AVAILABLE],
    ['outside its hours (11:30 local)', { schedule: { hours: [{ from: '12:00', to: '14:00' }] } }, {}, 'not_available', M.NOT_AVAILABLE],
    // 2. limits
    ['at the total limit', { limits: { total: 3 } }, { usage: { ...noUsage, total: 3 } }, 'total_limit', M.TOTAL_LIMIT_EXCEEDED],
    ['over the total limit', { limits: { total: 3 } }, { usage: { ...noUsage, total: 4 } }, 'total_limit', M.TOTAL_LIMIT_EXCEEDED],
    ['a total limit of 0', { limits: { total: 0 } }, {}, 'total_limit', M.TOTAL_LIMIT_EXCEEDED],
    [
      'at the per-customer limit',
      { limits: { perCustomer: 1 } },
      { usage: { ...noUsage, perCustomer: 1 } },
      'per_user_limit',
      M.PER_USER_LIMIT_EXCEEDED,
    ],
    ['at the per-day limit', { limits: { perDay: 2 } }, { usage: { ...noUsage, perDay: 2 } }, 'per_day_limit', M.PER_DAY_LIMIT_EXCEEDED],
    [
      'at the per-week limit',
      { limits: { perWeek: 2 } },
      { usage: { ...noUsage, perWeek: 2 } },
      'per_week_limit',
      M.PER_WEEK_LIMIT_EXCEEDED,
    ],
    [
      'at the per-month limit',
      { limits: { perMonth: 2 } },
      { usage: { ...noUsage, perMonth: 2 } },
      'per_month_limit',
      M.PER_MONTH_LIMIT_EXCEEDED,
    ],
    [
      'a used single-use bulk code',
      { codeType: 'bulk', bulkCodeUsageLimit: undefined },
      { usage: { ...noUsage, bulkCode: 1 } },
      'bulk_code_used',
      M.TOTAL_LIMIT_EXCEEDED,
    ],
    [
      'a bulk code used 3 of 3 times',
      { codeType: 'bulk', bulkCodeUsageLimit: 3 },
      { usage: { ...noUsage, bulkCode: 3 } },
      'bulk_code_used',
      M.TOTAL_LIMIT_EXCEEDED,
    ],
    // 4. payload
    ['subtotals missing', {}, { order: { items: baseItems() } }, 'invalid_payload', M.INVALID_ORDER_PAYLOAD],
    ['a zero subtotal', {}, { order: order({ original_price_subtotal: 0 }) }, 'invalid_payload', M.INVALID_ORDER_PAYLOAD],
    ['a string subtotal', {}, { order: order({ selling_price_subtotal: '1000' }) }, 'invalid_payload', M.INVALID_ORDER_PAYLOAD],
    ['a mistyped payment_mode', {}, { order: order({ payment_mode: ['UPI'] }) }, 'invalid_payload', M.INVALID_ORDER_PAYLOAD],
    [
      'an item without product_id',
      {},
      { order: order({ items: [{ original_price: 1, selling_price: 1 }] }) },
      'invalid_payload',
      M.PRODUCT_ID_REQUIRED,
    ],
    [
      'an item without original_price',
      {},
      { order: order({ items: [{ product_id: 'x', selling_price: 1 }] }) },
      'invalid_payload',
      M.ORIGINAL_PRICE_REQUIRED,
    ],
    [
      'an item without selling_price',
      {},
      { order: order({ items: [{ product_id: 'x', original_price: 1 }] }) },
      'invalid_payload',
      M.SELLING_PRICE_REQUIRED,
    ],
    // 5. cart conditions, one per field and operator
    [
      'a selling subtotal not above 2000 (gt)',
      { cartConditions: [cond('selling_price_subtotal', 'gt', 200000)] },
      {},
      'cart_rule',
      'selling_price_subtotal should be greater than 2000.00',
    ],
    [
      'an original subtotal below 5000 (gte)',
      { cartConditions: [cond('original_price_subtotal', 'gte', 500000)] },
      {},
      'cart_rule',
      'original_price_subtotal should be greater than or equal to 5000.00',
    ],
    [
      'a cart not below 500 (lt)',
      { cartConditions: [cond('selling_price_subtotal', 'lt', 50000)] },
      {},
      'cart_rule',
      'selling_price_subtotal should be less than 500.00',
    ],
    [
      'a cart above 999.99 (lte)',
      { cartConditions: [cond('selling_price_subtotal', 'lte', 99999)] },
      {},
      'cart_rule',
      'selling_price_subtotal should be less than or equal to 999.99',
    ],
    [
      'a payment mode not equal (eq)',
      { cartConditions: [cond('payment_mode', 'eq', 'UPI')] },
      { order: order({ payment_mode: 'CARD' }) },
      'cart_rule',
      'payment_mode should be equal to UPI',
    ],
    [
      'a payment mode that must differ (neq)',
      { cartConditions: [cond('payment_mode', 'neq', 'CARD')] },
      { order: order({ payment_mode: 'card' }) },
      'cart_rule',
      'payment_mode should not be equal to CARD',
    ],
    [
      'a payment mode not allowed (in)',
      { cartConditions: [cond('payment_mode', 'in', ['UPI', 'CARD'])] },
      { order: order({ payment_mode: 'COD' }) },
      'cart_rule',
      'payment_mode should be one of UPI, CARD',
    ],
    [
      'a payment mode excluded (nin)',
      { cartConditions: [cond('payment_mode', 'nin', ['COD'])] },
      { order: order({ payment_mode: 'cod' }) },
      'cart_rule',
      'payment_mode should not be one of COD',
    ],
    [
      'shipping sent and too high',
      { cartConditions: [cond('shipping', 'lte', 1000)] },
      {},
      'cart_rule',
      'shipping should be less than or equal to 10.00',
    ],
    [
      'tax sent and too low',
      { cartConditions: [cond('tax', 'gte', 1000)] },
      { order: order({ tax: 5 }) },
      'cart_rule',
      'tax should be greater than or equal to 10.00',
    ],
    [
      'too few items (items_count)',
      { cartConditions: [cond('items_count', 'gte', 3)] },
      {},
      'cart_rule',
      'items_count should be greater than or equal to 3',
    ],
    ['too few units (total_qty)', { cartConditions: [cond('total_qty', 'gt', 3)] }, {}, 'cart_rule', 'total_qty should be greater than 3'],
    [
      'a declared order metadata value not allowed',
      {
        metadataKeys: [{ key: 'channel', type: 'string', scope: 'order' }],
        cartConditions: [cond('metadata.channel', 'in', ['app', 'web'])],
      },
      { order: order({ metadata: { channel: 'pos' } }) },
      'cart_rule',
      'channel should be one of app, web',
    ],
    [
      'a condition on a field the engine does not know (fails closed)',
      { cartConditions: [cond('coupon_count', 'gt', 1)] },
      {},
      'cart_rule',
      'coupon_count should be greater than 1',
    ],
    [
      'two failing cart conditions (configured order decides)',
      { cartConditions: [cond('total_qty', 'gt', 3), cond('selling_price_subtotal', 'gt', 200000)] },
      {},
      'cart_rule',
      'total_qty should be greater than 3',
    ],
    // 6. selection
    [
      'no selected item (AND needs every property)',
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
      'selection',
      M.SELECTION_FAILED,
    ],
    ['no selected item (OR, nothing matches)', { itemSelector: skuIs('Z') }, {}, 'selection', M.SELECTION_FAILED],
    ['a selector and no items sent', { itemSelector: skuIs('A') }, { order: order({ items: undefined }) }, 'selection', M.SELECTION_FAILED],
    [
      'a selected-items base and no items sent',
      { discountCalculatedOn: 'selected_items_selling_price_subtotal' },
      { order: order({ items: [] }) },
      'selection',
      M.SELECTION_FAILED,
    ],
    [
      'a selector on an undeclared metadata key',
      { itemSelector: { match: 'OR', properties: [{ property: 'metadata.color', values: ['red'] }] } },
      { order: withItem(0, { metadata: { color: 'red' } }) },
      'selection',
      M.SELECTION_FAILED,
    ],
    [
      'selected-items quantity one below the minimum',
      { itemSelector: skuIs('B'), selectedItemsValidations: [cond('selected_items_total_qty', 'gte', 3)] },
      {},
      'selection',
      M.SELECTION_FAILED,
    ],
    [
      'selected-items selling subtotal one cent below the minimum',
      { itemSelector: skuIs('B'), selectedItemsValidations: [cond('selected_items_selling_price_subtotal', 'gte', 40001)] },
      {},
      'selection',
      M.SELECTION_FAILED,
    ],
    [
      'selected-items original subtotal exactly at a gt value',
      { itemSelector: skuIs('B'), selectedItemsValidations: [cond('selected_items_original_price_subtotal', 'gt', 50000)] },
      {},
      'selection',
      M.SELECTION_FAILED,
    ],
    [
      'one of two selected-items validations failing (AND)',
      {
        itemSelector: skuIs('A', 'B'),
        selectedItemsValidations: [cond('selected_items_total_qty', 'gte', 3), cond('selected_items_selling_price_subtotal', 'gt', 100000)],
      },
      {},
      'selection',
      M.SELECTION_FAILED,
    ],
    // 7. product validations, one per field
    [
      'an item selling price not above 500',
      { productValidations: [cond('selling_price', 'gt', 50000)] },
      {},
      'product_rule',
      'selling_price should be greater than 500.00',
    ],
    [
      'an item original price above 300',
      { productValidations: [cond('original_price', 'lt', 30000)] },
      {},
      'product_rule',
      'original_price should be less than 300.00',
    ],
    [
      'a cart_qty above 1',
      { productValidations: [cond('cart_qty', 'lte', 1)] },
      {},
      'product_rule',
      'cart_qty should be less than or equal to 1',
    ],
    [
      'an item shipping sent and above 0',
      { productValidations: [cond('shipping', 'eq', 0)] },
      { order: withItem(1, { shipping: 5 }) },
      'product_rule',
      'shipping should be equal to 0.00',
    ],
    [
      'a product id not allowed',
      { productValidations: [cond('product_id', 'in', ['p1'])] },
      {},
      'product_rule',
      'product_id should be one of p1',
    ],
    ['a sku excluded', { productValidations: [cond('sku', 'nin', ['B'])] }, {}, 'product_rule', 'sku should not be one of B'],
    [
      'a name that must differ',
      { productValidations: [cond('name', 'neq', 'shirt')] },
      {},
      'product_rule',
      'name should not be equal to shirt',
    ],
    [
      'a declared item metadata number too low',
      { metadataKeys: [{ key: 'weight', type: 'number', scope: 'item' }], productValidations: [cond('metadata.weight', 'gte', 2)] },
      { order: withItem(0, { metadata: { weight: 1.5 } }) },
      'product_rule',
      'weight should be greater than or equal to 2',
    ],
    [
      'the selected item fails a product validation',
      { itemSelector: skuIs('B'), productValidations: [cond('selling_price', 'gte', 50000)] },
      {},
      'product_rule',
      'selling_price should be greater than or equal to 500.00',
    ],
    // order of checks
    [
      'expired and over the limit (availability first)',
      { validUntil: new Date('2026-03-01T00:00:00Z'), limits: { total: 1 } },
      { usage: { ...noUsage, total: 5 } },
      'not_available',
      M.NOT_AVAILABLE,
    ],
    [
      'at total and per-customer limits (total first)',
      { limits: { total: 1, perCustomer: 1 } },
      { usage: { ...noUsage, total: 1, perCustomer: 1 } },
      'total_limit',
      M.TOTAL_LIMIT_EXCEEDED,
    ],
    [
      'at per-customer and per-day limits (customer first)',
      { limits: { perCustomer: 1, perDay: 1 } },
      { usage: { ...noUsage, perCustomer: 1, perDay: 1 } },
      'per_user_limit',
      M.PER_USER_LIMIT_EXCEEDED,
    ],
    [
      'at per-day and per-week limits (day first)',
      { limits: { perDay: 1, perWeek: 1 } },
      { usage: { ...noUsage, perDay: 1, perWeek: 1 } },
      'per_day_limit',
      M.PER_DAY_LIMIT_EXCEEDED,
    ],
    [
      'at per-week and per-month limits (week first)',
      { limits: { perWeek: 1, perMonth: 1 } },
      { usage: { ...noUsage, perWeek: 1, perMonth: 1 } },
      'per_week_limit',
      M.PER_WEEK_LIMIT_EXCEEDED,
    ],
    [
      'at the per-month limit with a used bulk code (month first)',
      { limits: { perMonth: 1 } },
      { usage: { ...noUsage, perMonth: 1, bulkCode: 1 } },
      'per_month_limit',
      M.PER_MONTH_LIMIT_EXCEEDED,
    ],
    [
      'over the limit with a bad order (limits before payload)',
      { limits: { total: 1 } },
      { usage: { ...noUsage, total: 1 }, order: {} },
      'total_limit',
      M.TOTAL_LIMIT_EXCEEDED,
    ],
    [
      'a bad item and a failing cart rule (payload first)',
      { cartConditions: [cond('total_qty', 'gt', 99)] },
      { order: order({ items: [{}] }) },
      'invalid_payload',
      M.PRODUCT_ID_REQUIRED,
    ],
    [
      'a failing cart rule and no selected item (cart first)',
      { cartConditions: [cond('total_qty', 'gt', 99)], itemSelector: skuIs('Z') },
      {},
      'cart_rule',
      'total_qty should be greater than 99',
    ],
    [
      'no selected item and a failing product rule (selection first)',
      { itemSelector: skuIs('Z'), productValidations: [cond('selling_price', 'gt', 999999)] },
      {},
      'selection',
      M.SELECTION_FAILED,
    ],
  ];
  for (const [label, campaign, over, reason, message] of rows) {
    it(`when ${label}, then ${reason} "${message}"`, () => {
      expect(outcome(evaluate(campaign, over))).to.equal(`${reason}: ${message}`);
    });
  }
});

describe('engine: what passes (boundaries, optional fields, selection)', () => {
  const channel = { metadataKeys: [{ key: 'channel', type: 'string' as const, scope: 'order' as const }] };
  const rows: [string, Partial<Campaign>, Partial<EvaluateInput>][] = [
    ['exactly at a gte minimum', { cartConditions: [cond('selling_price_subtotal', 'gte', 100000)] }, {}],
    ['one cent above a gt minimum', { cartConditions: [cond('selling_price_subtotal', 'gt', 99999)] }, {}],
    ['exactly at an lte maximum', { cartConditions: [cond('original_price_subtotal', 'lte', 120000)] }, {}],
    ['one cent below an lt maximum', { cartConditions: [cond('original_price_subtotal', 'lt', 120001)] }, {}],
    [
      'every cart condition holding (AND)',
      { cartConditions: [cond('items_count', 'eq', 2), cond('total_qty', 'gte', 3), cond('shipping', 'lte', 5000)] },
      {},
    ],
    // list rule 5: optional fields not sent are skipped
    ['a payment_mode rule and no payment_mode sent', { cartConditions: [cond('payment_mode', 'in', ['UPI'])] }, {}],
    ['a tax rule and no tax sent', { cartConditions: [cond('tax', 'gt', 100)] }, {}],
    ['a shipping rule and no shipping sent', { cartConditions: [cond('shipping', 'lt', 1)] }, { order: order({ shipping: undefined }) }],
    ['a shipping rule and shipping sent as null', { cartConditions: [cond('shipping', 'lt', 1)] }, { order: order({ shipping: null }) }],
    ['a metadata rule and no metadata sent', { ...channel, cartConditions: [cond('metadata.channel', 'in', ['app'])] }, {}],
    [
      'a metadata rule and the declared key sent with the wrong type (dropped, docs/decisions.md#19)',
      { ...channel, cartConditions: [cond('metadata.channel', 'in', ['app'])] },
      { order: order({ metadata: { channel: 7 } }) },
    ],
    [
      'a metadata rule on an undeclared key',
      { cartConditions: [cond('metadata.channel', 'in', ['app'])] },
      { order: order({ metadata: { channel: 'pos' } }) },
    ],
    [
      'a declared metadata rule that holds',
      { ...channel, cartConditions: [cond('metadata.channel', 'eq', 'APP')] },
      { order: order({ metadata: { channel: 'app' } }) },
    ],
    [
      'a cart_qty rule and no quantity sent',
      { productValidations: [cond('cart_qty', 'gt', 5)] },
      { order: order({ items: [{ product_id: 'p', original_price: 1, selling_price: 1 }] }) },
    ],
    [
      'an item sku rule and no sku sent',
      { productValidations: [cond('sku', 'eq', 'A')] },
      { order: order({ items: [{ product_id: 'p', original_price: 1, selling_price: 1 }] }) },
    ],
    [
      'an item shipping rule and no item shipping sent',
      { productValidations: [cond('shipping', 'eq', 0)] },
      { order: order({ items: [{ product_id: 'p', original_price: 1, selling_price: 1 }] }) },
    ],
    [
      'product validations and no items sent',
      { productValidations: [cond('selling_price', 'gt', 999999)] },
      { order: order({ items: undefined }) },
    ],
    // limits
    [
      'a per-customer limit reached but no customer known',
      { limits: { perCustomer: 1 } },
      { customerKnown: false, usage: { ...noUsage, perCustomer: 1 } },
    ],
    ['one below the total limit', { limits: { total: 3 } }, { usage: { ...noUsage, total: 2 } }],
    [
      'null limits (unlimited)',
      { limits: { total: null, perCustomer: null, perDay: null, perWeek: null, perMonth: null } },
      { usage: { ...noUsage, total: 1e9 } },
    ],
    ['a bulk code used 2 of 3 times', { codeType: 'bulk', bulkCodeUsageLimit: 3 }, { usage: { ...noUsage, bulkCode: 2 } }],
    ['an unused single-use bulk code', { codeType: 'bulk' }, { usage: { ...noUsage, bulkCode: 0 } }],
    // selection
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
      'selected items found with AND (case-insensitive)',
      {
        itemSelector: {
          match: 'AND',
          properties: [
            { property: 'sku', values: ['b'] },
            { property: 'name', values: ['SOCKS'] },
          ],
        },
      },
      {},
    ],
    ['selected by product_id', { itemSelector: { match: 'OR', properties: [{ property: 'product_id', values: ['p1'] }] } }, {}],
    [
      'selected by a declared item metadata key',
      {
        metadataKeys: [{ key: 'color', type: 'string', scope: 'item' }],
        itemSelector: { match: 'OR', properties: [{ property: 'metadata.color', values: ['red'] }] },
      },
      { order: withItem(1, { metadata: { color: 'red' } }) },
    ],
    [
      'selected-items quantity exactly at its minimum',
      { itemSelector: skuIs('B'), selectedItemsValidations: [cond('selected_items_total_qty', 'gte', 2)] },
      {},
    ],
    [
      'selected-items subtotal exactly at its minimum',
      { itemSelector: skuIs('B'), selectedItemsValidations: [cond('selected_items_selling_price_subtotal', 'gte', 40000)] },
      {},
    ],
    [
      'a product rule only the unselected item fails',
      { itemSelector: skuIs('A'), productValidations: [cond('selling_price', 'gte', 50000)] },
      {},
    ],
    ['inside its schedule', { schedule: { daysOfWeek: [2], hours: [{ from: '11:00', to: '12:00' }] } }, {}],
  ];
  for (const [label, campaign, over] of rows) {
    it(`when ${label}, then applicable`, () => expect(outcome(evaluate(campaign, over))).to.equal('applicable'));
  }
});

describe('engine: no order (list rule 1)', () => {
  it('when no order is sent, then applicable with a zero result and no order or item checks', () => {
    const e = evaluate(
      {
        cartConditions: [cond('selling_price_subtotal', 'gt', 999999999)],
        itemSelector: skuIs('Z'),
        productValidations: [cond('sku', 'eq', 'Q')],
      },
      { order: undefined },
    );
    expect(e).to.deep.equal({
      applicable: true,
      order: null,
      result: { totalDiscountCents: 0, totalCashbackCents: 0, totalAmountCents: 0, itemDiscountCents: [] },
    });
  });
  it('when no order is sent but a limit is reached, then the limit still refuses', () => {
    expect(outcome(evaluate({ limits: { perDay: 1 } }, { order: undefined, usage: { ...noUsage, perDay: 1 } }))).to.equal(
      `per_day_limit: ${M.PER_DAY_LIMIT_EXCEEDED}`,
    );
  });
  it('when the order is null (sent, not absent), then it is an invalid payload', () => {
    expect(outcome(evaluate({}, { order: null }))).to.equal(`invalid_payload: ${M.INVALID_ORDER_PAYLOAD}`);
  });
});

describe('engine: timezone edges', () => {
  const until = new Date('2026-03-10T18:29:00Z'); // 23:59 on 10 March in Asia/Kolkata
  const rows: [string, Partial<Campaign>, string, string, string][] = [
    [
      'valid until 23:59 Asia/Kolkata, evaluated at 18:30 UTC that day',
      { validUntil: until },
      '2026-03-10T18:30:00Z',
      TZ,
      `not_available: ${M.NOT_AVAILABLE}`,
    ],
    ['valid until 23:59 Asia/Kolkata, evaluated at 18:28 UTC', { validUntil: until }, '2026-03-10T18:28:00Z', TZ, 'applicable'],
    [
      'Wednesday-only at 19:00 UTC Tuesday (00:30 Wednesday in Kolkata)',
      { schedule: { daysOfWeek: [3] } },
      '2026-03-10T19:00:00Z',
      TZ,
      'applicable',
    ],
    [
      'Wednesday-only at 18:00 UTC Tuesday (23:30 Tuesday in Kolkata)',
      { schedule: { daysOfWeek: [3] } },
      '2026-03-10T18:00:00Z',
      TZ,
      `not_available: ${M.NOT_AVAILABLE}`,
    ],
    [
      'Tuesday-only at 02:00 UTC Wednesday in New York (Tuesday 22:00 local)',
      { schedule: { daysOfWeek: [2] } },
      '2026-03-11T02:00:00Z',
      'America/New_York',
      'applicable',
    ],
  ];
  for (const [label, campaign, now, tz, expected] of rows) {
    it(`when ${label}, then ${expected === 'applicable' ? 'applicable' : 'not available'}`, () => {
      expect(outcome(evaluate(campaign, { now: new Date(now), timezone: tz }))).to.equal(expected);
    });
  }
});

describe('engine: hostile orders never throw', () => {
  const hostile: unknown[] = [
    null,
    42,
    'x',
    true,
    [],
    [1],
    { $gt: 1 },
    { original_price_subtotal: { $gt: 0 }, selling_price_subtotal: { $gt: 0 } },
    { items: 'x', original_price_subtotal: 1, selling_price_subtotal: 1 },
    order({ items: [null] }),
    order({ items: [{ product_id: { $ne: 1 }, original_price: 1, selling_price: 1 }] }),
    order({ metadata: [] }),
    order({ selling_price_subtotal: 1e308 }),
    order({ selling_price_subtotal: 'NaN' }),
    order({ items: [{ product_id: 'p', original_price: 1e300, selling_price: 1, quantity: 1e300 }] }),
    JSON.parse('{"__proto__":{"admin":true},"original_price_subtotal":"1","selling_price_subtotal":1}'),
  ];
  for (const o of hostile) {
    it(`when the order is ${JSON.stringify(o)?.slice(0, 60)}, then invalid_payload and no exception`, () => {
      const campaign = {
        metadataKeys: [{ key: 'channel', type: 'string' as const, scope: 'order' as const }],
        cartConditions: [cond('metadata.channel', 'in', ['app'])],
      };
      const e = evaluate(campaign, { order: o });
      expect(e.applicable).to.equal(false);
      expect(!e.applicable && e.reason).to.equal('invalid_payload');
    });
  }
});

describe('engine: one parse per request order', () => {
  it('when the same raw order is evaluated for two coupons, then both see the same parsed order', () => {
    const raw = order();
    const a = evaluate({}, { order: raw });
    const b = evaluate({ discount: flat(100) }, { order: raw });
    expect(a.applicable && b.applicable && a.order === b.order).to.equal(true);
  });
});
