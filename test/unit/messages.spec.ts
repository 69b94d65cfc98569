import { expect } from 'chai';
import * as M from '../../shared/domain/messages.js';
import type { Condition } from '../../shared/domain/types.js';

describe('messages: fixed contract strings', () => {
  // Verbatim from the contract (openapi.yaml); a client matches on these, so a change here is a contract break.
  const rows: [string, string, string][] = [
    ['NOT_AVAILABLE', M.NOT_AVAILABLE, 'coupon is not available at this moment or expired'],
    ['TOTAL_LIMIT_EXCEEDED', M.TOTAL_LIMIT_EXCEEDED, 'coupon code redemption total_limit exceeded'],
    ['PER_USER_LIMIT_EXCEEDED', M.PER_USER_LIMIT_EXCEEDED, 'coupon code redemption per_user_limit exceeded'],
    ['PER_DAY_LIMIT_EXCEEDED', M.PER_DAY_LIMIT_EXCEEDED, 'coupon code redemption per_day_limit exceeded'],
    ['PER_WEEK_LIMIT_EXCEEDED', M.PER_WEEK_LIMIT_EXCEEDED, 'coupon code redemption per_week_limit exceeded'],
    ['PER_MONTH_LIMIT_EXCEEDED', M.PER_MONTH_LIMIT_EXCEEDED, 'coupon code redemption per_month_limit exceeded'],
    [
      'INVALID_ORDER_PAYLOAD',
      M.INVALID_ORDER_PAYLOAD,
      'invalid payload, original_price_subtotal and selling_price_subtotal is required and should not be 0',
    ],
    ['SELECTION_FAILED', M.SELECTION_FAILED, 'Discount validation is failed, please check terms and condition in the coupon tray'],
    ['PRODUCT_ID_REQUIRED', M.PRODUCT_ID_REQUIRED, 'product_id is required'],
    ['ORIGINAL_PRICE_REQUIRED', M.ORIGINAL_PRICE_REQUIRED, 'original_price is required'],
    ['SELLING_PRICE_REQUIRED', M.SELLING_PRICE_REQUIRED, 'selling_price is required'],
    ['itemFieldRequired("sku")', M.itemFieldRequired('sku'), 'sku is required'],
  ];
  for (const [name, actual, expected] of rows) {
    it(`when ${name} is used, then it reads "${expected}"`, () => expect(actual).to.equal(expected));
  }
});

describe('messages: rule text', () => {
  const rows: [Condition, string][] = [
    [{ field: 'selling_price_subtotal', operator: 'gt', value: 20000 }, 'selling_price_subtotal should be greater than 200.00'],
    [
      { field: 'original_price_subtotal', operator: 'gte', value: 99999 },
      'original_price_subtotal should be greater than or equal to 999.99',
    ],
    [{ field: 'selling_price', operator: 'lt', value: 5 }, 'selling_price should be less than 0.05'],
    [{ field: 'shipping', operator: 'lte', value: 1000 }, 'shipping should be less than or equal to 10.00'],
    [{ field: 'tax', operator: 'eq', value: 0 }, 'tax should be equal to 0.00'],
    [{ field: 'original_price', operator: 'neq', value: 150 }, 'original_price should not be equal to 1.50'],
    [{ field: 'payment_mode', operator: 'in', value: ['UPI', 'CARD'] }, 'payment_mode should be one of UPI, CARD'],
    [{ field: 'payment_mode', operator: 'nin', value: ['COD'] }, 'payment_mode should not be one of COD'],
    [
      { field: 'selected_items_selling_price_subtotal', operator: 'gte', value: 50000 },
      'selected_items_selling_price_subtotal should be greater than or equal to 500.00',
    ],
    [{ field: 'cart_qty', operator: 'gt', value: 1 }, 'cart_qty should be greater than 1'],
    [{ field: 'selected_items_total_qty', operator: 'gte', value: 3 }, 'selected_items_total_qty should be greater than or equal to 3'],
    [{ field: 'items_count', operator: 'lte', value: 10 }, 'items_count should be less than or equal to 10'],
    [{ field: 'total_qty', operator: 'lt', value: 2.5 }, 'total_qty should be less than 2.5'],
    [{ field: 'metadata.channel', operator: 'in', value: ['app', 'web'] }, 'channel should be one of app, web'],
    [{ field: 'metadata.price_tier', operator: 'gt', value: 3 }, 'price_tier should be greater than 3'],
    [{ field: 'metadata.vip', operator: 'eq', value: true }, 'vip should be equal to true'],
    [{ field: 'sku', operator: 'eq', value: 'SKU-1' }, 'sku should be equal to SKU-1'],
  ];
  for (const [condition, text] of rows) {
    it(`when ${condition.field} ${condition.operator} ${JSON.stringify(condition.value)} fails, then "${text}"`, () => {
      expect(M.ruleText(condition)).to.equal(text);
    });
  }
});

describe('messages: isMoneyField', () => {
  const rows: [string, boolean][] = [
    ['selling_price_subtotal', true],
    ['original_price_subtotal', true],
    ['selected_items_original_price_subtotal', true],
    ['selling_price', true],
    ['shipping', true],
    ['tax', true],
    ['cart_qty', false],
    ['selected_items_total_qty', false],
    ['items_count', false],
    ['total_qty', false],
    ['payment_mode', false],
    ['metadata.price', false],
  ];
  for (const [field, money] of rows) {
    it(`when the field is ${field}, then money is ${money}`, () => expect(M.isMoneyField(field)).to.equal(money));
  }
});
