import { expect } from 'chai';
import { campaignRuleTexts, evaluateCoupon, explainCoupon, type EvaluateInput, type RuleCheck } from '../../shared/domain/engine.js';
import * as M from '../../shared/domain/messages.js';
import type { Campaign, UsageCounts } from '../../shared/domain/types.js';
import { makeCampaign } from '../fixtures/campaign.js';

const NOW = new Date('2026-03-10T06:00:00Z');
const usage: UsageCounts = { total: 2, perCustomer: 1, perDay: 0, perWeek: 0, perMonth: 0 };
/** Subtotals 1200 original / 1000 selling, shipping 50; p1 (sku A) 600 × 1, p2 (sku B) 200 × 2. */
const order = () => ({
  original_price_subtotal: 1200,
  selling_price_subtotal: 1000,
  shipping: 50,
  items: [
    { product_id: 'p1', sku: 'A', original_price: 700, selling_price: 600, quantity: 1 },
    { product_id: 'p2', sku: 'B', original_price: 250, selling_price: 200, quantity: 2 },
  ],
});
/** A flat 10 on the selected items (sku B), with a rule of every kind, each met by {@link order}. */
const everyRule = (over: Partial<Campaign> = {}) =>
  makeCampaign({
    limits: { total: 10, perCustomer: 3 },
    discount: { kind: 'discount', type: 'flat', value: 1000, maxCents: null, walletId: null },
    discountCalculatedOn: 'selected_items_selling_price_subtotal',
    itemSelector: { match: 'OR', properties: [{ property: 'sku', values: ['B'] }] },
    cartConditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 50000 }],
    selectedItemsValidations: [{ field: 'selected_items_total_qty', operator: 'gte', value: 2 }],
    productValidations: [{ field: 'cart_qty', operator: 'lte', value: 3 }],
    ...over,
  });
const input = (over: Partial<EvaluateInput> = {}): EvaluateInput => ({
  now: NOW,
  timezone: 'UTC',
  campaign: everyRule(),
  usage,
  customerKnown: true,
  order: order(),
  ...over,
});

const AVAILABLE: RuleCheck = {
  rule: 'availability',
  passed: true,
  text: 'available now',
  figures: { state: 'available', valid_from: '2020-01-01T00:00:00.000Z', valid_until: null },
};
const TOTAL_LEFT: RuleCheck = { rule: 'limit.total', passed: true, text: '8 of 10 left', figures: { limit: 10, used: 2, remaining: 8 } };

describe('engine: explainCoupon shows the rules of evaluateCoupon, in its order', () => {
  it('when every rule is met, then each is listed in order with its figures, and the discount last', () => {
    const { evaluation, checks } = explainCoupon(input());
    expect(evaluation).to.deep.equal(evaluateCoupon(input()));
    expect(checks).to.deep.equal([
      AVAILABLE,
      TOTAL_LEFT,
      { rule: 'limit.per_customer', passed: true, text: '2 of 3 left', figures: { limit: 3, used: 1, remaining: 2 } },
      { rule: 'order', passed: true, text: 'order read', figures: {} },
      {
        rule: 'cart_condition',
        passed: true,
        text: 'selling_price_subtotal should be greater than or equal to 500.00',
        figures: { field: 'selling_price_subtotal', operator: 'gte', value: 50000, actual: 100000 },
      },
      { rule: 'selection', passed: true, text: '1 item(s) selected', figures: { selected_items: [1] } },
      {
        rule: 'selected_items_validation',
        passed: true,
        text: 'selected_items_total_qty should be greater than or equal to 2',
        figures: { field: 'selected_items_total_qty', operator: 'gte', value: 2, actual: 2 },
      },
      {
        rule: 'product_validation',
        passed: true,
        text: 'cart_qty should be less than or equal to 3',
        figures: { field: 'cart_qty', operator: 'lte', value: 3, failing_items: [] },
      },
      {
        rule: 'discount',
        passed: true,
        text: 'flat on selected_items_selling_price_subtotal',
        figures: {
          base: 'selected_items_selling_price_subtotal',
          base_cents: 40000,
          type: 'flat',
          value: 1000,
          max_cents: null,
          kind: 'discount',
          discount_cents: 1000,
          eligible_items: [1],
          item_discount_cents: [0, 1000],
        },
      },
    ]);
  });

  it('when no order is sent, then the rows end at order, and the per-customer limit waits for a customer', () => {
    const { evaluation, checks } = explainCoupon(input({ order: undefined, customerKnown: false }));
    expect(evaluation).to.deep.equal({
      applicable: true,
      order: null,
      result: { totalDiscountCents: 0, totalCashbackCents: 0, totalAmountCents: 0, itemDiscountCents: [] },
    });
    expect(checks).to.deep.equal([
      AVAILABLE,
      TOTAL_LEFT,
      { rule: 'limit.per_customer', passed: true, text: 'applies only to a known customer', figures: { limit: 3, used: 1, remaining: 2 } },
      { rule: 'order', passed: true, text: 'no order sent: no cart or item rules are checked', figures: {} },
    ]);
  });

  it('when the coupon is disabled and the order unreadable, then availability refuses, the order is not reached, and no cart rule is listed', () => {
    const campaign = makeCampaign({ status: 'disabled', cartConditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: 1 }] });
    const { evaluation, checks } = explainCoupon(input({ campaign, order: { items: [] } }));
    expect(evaluation).to.deep.equal({ applicable: false, reason: 'not_available', message: M.NOT_AVAILABLE });
    expect(checks).to.deep.equal([
      { ...AVAILABLE, passed: false, text: M.NOT_AVAILABLE, figures: { ...AVAILABLE.figures, state: 'expired' } },
      { rule: 'order', passed: null, text: M.INVALID_ORDER_PAYLOAD, figures: {} },
    ]);
  });

  it('when a bulk code is used up, then its row refuses after the configured limits', () => {
    const campaign = makeCampaign({ codeType: 'bulk', bulkCodeUsageLimit: 2, limits: { perDay: 5 } });
    const { evaluation, checks } = explainCoupon(input({ campaign, usage: { ...usage, bulkCode: 2 } }));
    expect(evaluation).to.deep.equal({ applicable: false, reason: 'bulk_code_used', message: M.TOTAL_LIMIT_EXCEEDED });
    expect(checks.map((c) => [c.rule, c.passed])).to.deep.equal([
      ['availability', true],
      ['limit.per_day', true],
      ['limit.bulk_code', false],
      ['order', null],
    ]);
    expect(checks[2]!).to.deep.equal({
      rule: 'limit.bulk_code',
      passed: false,
      text: 'this code used 2 of 2 times',
      figures: { limit: 2, used: 2, remaining: 0 },
    });
  });

  // Every rule broken, then mended one at a time in the engine's order: each time the next rule
  // decides, in evaluate as in explain.
  const broken: { mends: string; reason: string; message: string; row: string }[] = [
    { mends: '', reason: 'not_available', message: M.NOT_AVAILABLE, row: 'availability' },
    { mends: 'availability', reason: 'total_limit', message: M.TOTAL_LIMIT_EXCEEDED, row: 'limit.total' },
    { mends: 'limits', reason: 'invalid_payload', message: M.INVALID_ORDER_PAYLOAD, row: 'order' },
    {
      mends: 'order',

      reason: 'cart_rule',
      message: 'selling_price_subtotal should be greater than or equal to 5000.00',
      row: 'cart_condition',
    },
    { mends: 'cart', reason: 'selection', message: M.SELECTION_FAILED, row: 'selection' },
    { mends: 'selector', reason: 'selection', message: M.SELECTION_FAILED, row: 'selected_items_validation' },
    {
      mends: 'selected items',

      reason: 'product_rule',
      message: 'cart_qty should be less than or equal to 1',
      row: 'product_validation',
    },
    { mends: 'product', reason: '', message: '', row: '' },
  ];
  const MENDS = ['availability', 'limits', 'order', 'cart', 'selector', 'selected items', 'product'];
  /** The input with every rule broken but those mended up to `mends` (inclusive). */
  function brokenUpTo(mends: string): EvaluateInput {
    const upTo = MENDS.indexOf(mends);
    const mended = (m: string) => MENDS.indexOf(m) <= upTo;
    const campaign = everyRule({
      status: mended('availability') ? 'active' : 'disabled',
      limits: { total: mended('limits') ? 10 : 2 },
      cartConditions: [{ field: 'selling_price_subtotal', operator: 'gte', value: mended('cart') ? 50000 : 500000 }],
      itemSelector: { match: 'OR', properties: [{ property: 'sku', values: [mended('selector') ? 'B' : 'Z'] }] },
      selectedItemsValidations: [{ field: 'selected_items_total_qty', operator: 'gte', value: mended('selected items') ? 2 : 5 }],
      productValidations: [{ field: 'cart_qty', operator: 'lte', value: mended('product') ? 3 : 1 }],
    });
    return input({ campaign, order: mended('order') ? order() : { items: [] } });
  }
  for (const { mends, reason, message, row } of broken) {
    const title = reason ? `${reason} (${row})` : 'applicable';
    it(`when every rule is broken${mends ? ` but those up to ${mends}` : ''}, then ${title} decides in evaluate and explain`, () => {
      const evaluation = evaluateCoupon(brokenUpTo(mends));
      const explained = explainCoupon(brokenUpTo(mends));
      expect(explained.evaluation).to.deep.equal(evaluation);
      const passed = explained.checks.map((c) => c.passed);
      if (!reason) {
        expect(evaluation.applicable).to.equal(true);
        expect(passed.every((p) => p === true)).to.equal(true);
        expect(explained.checks.at(-1)!.rule).to.equal('discount');
        return;
      }
      expect(evaluation).to.deep.equal({ applicable: false, reason, message });
      const first = passed.indexOf(false);
      expect(explained.checks[first]!.rule).to.equal(row);
      expect(passed.slice(0, first).every((p) => p === true)).to.equal(true);
      expect(passed.slice(first + 1).every((p) => p === null)).to.equal(true);
    });
  }
});

describe('engine: campaignRuleTexts lists the messages of the rules, in their order', () => {
  it('when a bulk campaign has a rule of every kind, then each message is listed with its rule', () => {
    const campaign = everyRule({ codeType: 'bulk', limits: { perMonth: 4, total: 10, perDay: null } });
    expect(campaignRuleTexts(campaign)).to.deep.equal([
      { rule: 'valid_from, valid_until, schedule, status', text: M.NOT_AVAILABLE },
      { rule: 'limits.total', text: M.TOTAL_LIMIT_EXCEEDED },
      { rule: 'limits.per_month', text: M.PER_MONTH_LIMIT_EXCEEDED },
      { rule: 'bulk_code_usage_limit', text: M.TOTAL_LIMIT_EXCEEDED },
      { rule: 'cart_conditions.0', text: 'selling_price_subtotal should be greater than or equal to 500.00' },
      { rule: 'item_selector', text: M.SELECTION_FAILED },
      { rule: 'selected_items_validations.0', text: M.SELECTION_FAILED },
      { rule: 'product_validations.0', text: 'cart_qty should be less than or equal to 3' },
    ]);
  });
});
