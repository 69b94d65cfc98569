/**
 * A wallet's earning rules through the admin API (docs/wallets.md "Earning rules"): stored and read
 * back in the admin format, refused in words, and explained for an order — the sum of the rules,
 * each with its steps. Nothing is credited (no route reports orders yet).
 */
import { expect } from 'chai';
import { adminHelpers, type AdminApp } from '../support/admin.js';
import { startTestApi, type TestApi } from '../support/context.js';
import { assertMatchesSpec } from '../support/openapi.js';

describe('admin: a wallet earning rules and what an order would earn', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(async () => {
    await api.close();
  });
  const { admin, must, newApp } = adminHelpers(() => api);

  const base = { name: 'Base points', points: 1, per: 10 };
  const shoes = {
    name: 'Shoes earn double',
    earned_on: 'selected_items_selling_price_subtotal',
    item_selector: { match: 'OR', properties: [{ property: 'sku', values: ['SHOE'] }] },
    points: 2,
    per: 10,
    rounding: 'nearest',
    round_to: 'hundredth',
    max_per_order: 15,
  };
  const order = {
    selling_price_subtotal: 123.45,
    original_price_subtotal: 150,
    items: [
      { product_id: 'p1', sku: 'SHOE', selling_price: 80, original_price: 100, quantity: 1 },
      { product_id: 'p2', sku: 'SOCK', selling_price: 43.45, original_price: 50, quantity: 1 },
    ],
  };
  let app: AdminApp;
  before(async () => {
    app = await newApp();
  });
  const explain = (walletId: string, body: unknown) => admin('POST', `/applications/${app.id}/wallets/${walletId}/earning/explain`, body);

  it('when a wallet is created with two rules, then they are read back with every default named, and a new wallet has none', async () => {
    const created = await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'loyalty', earning_rules: [base, shoes] });
    expect(created.earning_rules).to.deep.equal([
      {
        ...base,
        earned_on: 'selling_price_subtotal',
        item_selector: null,
        excluded_items: null,
        rounding: 'down',
        round_to: 'point',
        min_order: null,
        max_per_order: null,
        max_per_period: null,
      },
      {
        ...shoes,
        item_selector: { match: 'OR', properties: [{ property: 'sku', operator: 'in', values: ['SHOE'] }] },
        excluded_items: null,
        min_order: null,
        max_per_period: null,
      },
    ]);
    const plain = await must('POST', `/applications/${app.id}/wallets`, { wallet_id: 'plain' });
    expect(plain.earning_rules).to.equal(null);
    const list = await must('GET', `/applications/${app.id}/wallets`);
    expect(list.wallets.map((w: any) => w.earning_rules?.length ?? 0)).to.deep.equal([2, 0]);
  });

  it('when an order is explained, then each rule says its points and steps and the wallet says their sum', async () => {
    const res = await explain('loyalty', { order, tier_multiplier: 1.5 });
    expect(res.status, res.text).to.equal(200);
    assertMatchesSpec('post', '/admin/applications/{app}/wallets/{wallet_id}/earning/explain', 200, res.body);
    // Base: 123.45 / 10 × 1 × 1.5 = 18.5175 → 18 (down, whole points). Shoes: 80 / 10 × 2 × 1.5 = 24 → capped at 15.
    expect(res.body).to.deep.equal({
      wallet_id: 'loyalty',
      tier_multiplier: 1.5,
      points: 33,
      rules: [
        {
          name: 'Base points',
          points: 18,
          steps: [
            { step: 'base', amount: 123.45, limited: false },
            { step: 'rate', points: 18.5175, limited: false },
            { step: 'rounding', points: 18, limited: false },
          ],
        },
        {
          name: 'Shoes earn double',
          points: 15,
          steps: [
            { step: 'base', amount: 80, limited: false },
            { step: 'rate', points: 24, limited: false },
            { step: 'rounding', points: 24, limited: false },
            { step: 'max_per_order', points: 15, limited: true },
          ],
        },
      ],
    });
  });

  it('when the rules are changed by PATCH, then the next explain uses them; null removes them', async () => {
    await must('PATCH', `/applications/${app.id}/wallets/loyalty`, { earning_rules: [{ ...base, min_order: 200 }] });
    const below = await explain('loyalty', { order });
    expect(below.body.points).to.equal(0);
    expect(below.body.rules[0].steps.at(-1)).to.deep.equal({ step: 'min_order', points: 0, limited: true });
    await must('PATCH', `/applications/${app.id}/wallets/loyalty`, { earning_rules: null });
    // No stand-in and no customer in a wallet without tiers: valued at 1x.
    expect((await explain('loyalty', { order })).body).to.deep.equal({ wallet_id: 'loyalty', points: 0, tier_multiplier: 1, rules: [] });
  });

  it('when a rule is wrong, then 400 in words naming the field, and nothing is stored', async () => {
    const cases: [unknown, RegExp][] = [
      [[{ ...base, per: 0 }], /"earning_rules\[0\]\.per" must be a positive number/],
      [[{ ...base, rounding: 'sideways' }], /"earning_rules\[0\]\.rounding" must be one of \[down, nearest, up\]/],
      [
        [{ name: 'No base', earned_on: 'selected_items_selling_price_subtotal', points: 1, per: 10 }],
        /item_selector" is required when earned_on/,
      ],
      [
        [
          {
            ...base,
            earned_on: 'valid_cart_selling_price_subtotal',
            excluded_items: { match: 'OR', properties: [{ property: 'metadata.brand', values: ['x'] }] },
          },
        ],
        /cannot read item metadata \(metadata\.brand\)/,
      ],
      [[{ ...base, points: 0.001 }], /"earning_rules\[0\]\.points"/],
    ];
    for (const [rules, message] of cases) {
      const res = await admin('POST', `/applications/${app.id}/wallets`, { wallet_id: 'wrong', earning_rules: rules });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.details).to.match(message);
    }
    expect(
      (await admin('GET', `/applications/${app.id}/wallets?include_archived=true`)).body.wallets.map((w: any) => w.wallet_id),
    ).to.not.include('wrong');
  });

  it('when the order or the wallet is wrong, then 400 with the order message, or 404', async () => {
    const bad = await explain('loyalty', { order: { items: 'nope' } });
    expect(bad.status).to.equal(400);
    expect(bad.body.details).to.match(/^"order" /);
    expect((await explain('loyalty', {})).status).to.equal(400);
    expect((await explain('nobody', { order })).status).to.equal(404);
  });
});
