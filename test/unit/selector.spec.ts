import { expect } from 'chai';
import { evaluateCoupon } from '../../shared/domain/engine.js';
import { matchesSelector } from '../../shared/domain/order-fields.js';
import { parseOrder, type ParsedItem } from '../../shared/domain/order.js';
import type { ItemSelector, MetadataKey, PropertyMatch } from '../../shared/domain/types.js';
import { makeCampaign } from '../fixtures/campaign.js';

/** One parsed item from a raw request item (the engine's own parser). */
function item(raw: Record<string, unknown>): ParsedItem {
  const parsed = parseOrder({
    original_price_subtotal: 100,
    selling_price_subtotal: 100,
    items: [{ product_id: 'p1', original_price: 100, selling_price: 100, ...raw }],
  });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.order.items[0]!;
}

const keys: MetadataKey[] = [
  { key: 'gift', type: 'boolean', scope: 'both' },
  { key: 'brand', type: 'string', scope: 'item' },
  { key: 'channel', type: 'string', scope: 'order' },
];
const one = (p: PropertyMatch, match: 'AND' | 'OR' = 'OR'): ItemSelector => ({ match, properties: [p] });
/** Shoes, but not SHOE-2. */
const shoesButTwo: ItemSelector = {
  match: 'AND',
  properties: [
    { property: 'name', operator: 'in', values: ['Shoe'] },
    { property: 'sku', operator: 'nin', values: ['SHOE-2'] },
  ],
};
/** sku is not A, or name is not C. */
const notAOrNotC: ItemSelector = {
  match: 'OR',
  properties: [
    { property: 'sku', operator: 'neq', values: ['A'] },
    { property: 'name', operator: 'neq', values: ['C'] },
  ],
};

describe('selector: matchesSelector with in / nin / eq / neq', () => {
  const rows: [string, Record<string, unknown>, ItemSelector, boolean][] = [
    ['no operator (in) and the sku is listed', { sku: 'GIFT' }, one({ property: 'sku', values: ['GIFT', 'X'] }), true],
    ['in and the sku differs in case only', { sku: 'gift' }, one({ property: 'sku', operator: 'in', values: ['GIFT'] }), true],
    ['in and the sku is not listed', { sku: 'SHOE' }, one({ property: 'sku', operator: 'in', values: ['GIFT'] }), false],
    ['in and the item sent no sku', {}, one({ property: 'sku', operator: 'in', values: ['GIFT'] }), false],
    ['nin and the sku is listed', { sku: 'GIFT' }, one({ property: 'sku', operator: 'nin', values: ['GIFT', 'X'] }), false],
    ['nin and the sku differs in case only', { sku: 'Gift' }, one({ property: 'sku', operator: 'nin', values: ['GIFT'] }), false],
    ['nin and the sku is not listed', { sku: 'SHOE' }, one({ property: 'sku', operator: 'nin', values: ['GIFT'] }), true],
    ['nin and the item sent no sku (none of them)', {}, one({ property: 'sku', operator: 'nin', values: ['GIFT'] }), true],
    ['eq and the name is equal', { name: 'Shoe' }, one({ property: 'name', operator: 'eq', values: ['shoe'] }), true],
    ['eq and the name differs', { name: 'Sock' }, one({ property: 'name', operator: 'eq', values: ['shoe'] }), false],
    ['neq and the name is equal', { name: 'Shoe' }, one({ property: 'name', operator: 'neq', values: ['Shoe'] }), false],
    ['neq and the name differs', { name: 'Sock' }, one({ property: 'name', operator: 'neq', values: ['Shoe'] }), true],
    ['neq and the item sent no name', {}, one({ property: 'name', operator: 'neq', values: ['Shoe'] }), true],
    ['nin on product_id (always sent)', {}, one({ property: 'product_id', operator: 'nin', values: ['p1'] }), false],
    [
      'nin on a number does not match a string',
      { metadata: { gift: true } },
      one({ property: 'metadata.gift', operator: 'nin', values: ['true'] }),
      true,
    ],
    [
      'eq on declared metadata of both levels',
      { metadata: { gift: true } },
      one({ property: 'metadata.gift', operator: 'eq', values: [true] }),
      true,
    ],
    [
      'neq on declared metadata with the value',
      { metadata: { gift: true } },
      one({ property: 'metadata.gift', operator: 'neq', values: [true] }),
      false,
    ],
    [
      'neq on declared metadata sent with another type',
      { metadata: { gift: 'yes' } },
      one({ property: 'metadata.gift', operator: 'neq', values: [true] }),
      true,
    ],
    [
      'in on item metadata declared for items',
      { metadata: { brand: 'acme' } },
      one({ property: 'metadata.brand', values: ['ACME'] }),
      true,
    ],
    [
      'in on metadata declared for the order only',
      { metadata: { channel: 'app' } },
      one({ property: 'metadata.channel', values: ['app'] }),
      false,
    ],
    ['AND of in and nin, both hold', { sku: 'SHOE-1', name: 'Shoe' }, shoesButTwo, true],
    ['AND of in and nin, the nin fails', { sku: 'SHOE-2', name: 'Shoe' }, shoesButTwo, false],
    ['OR of two neq, one holds', { sku: 'A', name: 'B' }, notAOrNotC, true],
    ['OR of two neq, none holds', { sku: 'A', name: 'C' }, notAOrNotC, false],
    ['no properties', { sku: 'A' }, { match: 'OR', properties: [] }, false],
  ];
  for (const [label, raw, selector, expected] of rows) {
    it(`when ${label}, then ${expected ? 'selected' : 'not selected'}`, () => {
      expect(matchesSelector(item(raw), makeCampaign({ metadataKeys: keys }), selector)).to.equal(expected);
    });
  }
});

describe('selector: exclusions and selections with "not in" in the engine', () => {
  const now = new Date('2026-03-10T06:00:00Z');
  const usage = { total: 0, perCustomer: 0, perDay: 0, perWeek: 0, perMonth: 0 };
  const order = {
    original_price_subtotal: 1000,
    selling_price_subtotal: 1000,
    items: [
      { product_id: 'p1', sku: 'GIFTCARD', original_price: 500, selling_price: 500, shipping: 0 },
      { product_id: 'p2', sku: 'SHOE', original_price: 300, selling_price: 300, shipping: 0 },
      { product_id: 'p3', original_price: 200, selling_price: 200, shipping: 0 },
    ],
  };
  const discounts = (campaign: Parameters<typeof makeCampaign>[0]) => {
    const e = evaluateCoupon({ now, timezone: 'UTC', campaign: makeCampaign(campaign), usage, customerKnown: true, order });
    if (!e.applicable) throw new Error(e.message);
    return e.result.itemDiscountCents;
  };

  const rows: [string, Parameters<typeof makeCampaign>[0], number[]][] = [
    [
      'the valid cart excludes "sku not in [SHOE]", then only the shoe is discounted',
      {
        discount: { kind: 'discount', type: 'percentage', value: 10, maxCents: null, walletId: null },
        discountCalculatedOn: 'valid_cart_selling_price_subtotal',
        excludedItems: one({ property: 'sku', operator: 'nin', values: ['SHOE'] }),
      },
      [0, 3000, 0],
    ],
    [
      'the selector is "sku neq GIFTCARD", then every item but the gift card is selected, the one without a sku included',
      {
        discount: { kind: 'discount', type: 'flat', value: 5000, maxCents: null, walletId: null },
        discountCalculatedOn: 'selected_items_selling_price_subtotal',
        itemSelector: one({ property: 'sku', operator: 'neq', values: ['GIFTCARD'] }),
      },
      [0, 3000, 2000],
    ],
  ];
  for (const [label, campaign, expected] of rows) it(`when ${label}`, () => expect(discounts(campaign)).to.deep.equal(expected));
});
