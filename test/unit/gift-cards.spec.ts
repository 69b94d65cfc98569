import { expect } from 'chai';
import { amountToTake, cardCodeOf, cardRefusal, normalizeCardCode, type CardState } from '../../shared/domain/gift-cards.js';

const NOW = new Date('2026-12-02T08:00:00Z');
const card = (over: Partial<CardState> = {}): CardState => ({ balanceCents: 5000, status: 'active', expiresAt: null, ...over });

describe('gift cards: what a card takes at checkout (docs/gift-cards.md)', () => {
  const cases: [string, CardState, number, ReturnType<typeof amountToTake>][] = [
    ['a cart owing less than the balance', card(), 3550, { cents: 3550 }],
    ['a cart owing more than the balance', card(), 10000, { cents: 5000 }],
    ['a cart owing exactly the balance', card(), 5000, { cents: 5000 }],
    ['a cart owing nothing (the coupons took it all)', card(), 0, { cents: 0 }],
    ['a negative figure owed (never below zero)', card(), -100, { cents: 0 }],
    ['a disabled card', card({ status: 'disabled' }), 100, { refuse: 'gift_card_disabled' }],
    ['a card expired a second ago', card({ expiresAt: new Date(NOW.getTime() - 1000) }), 100, { refuse: 'gift_card_expired' }],
    ['a card expiring at this instant', card({ expiresAt: NOW }), 100, { refuse: 'gift_card_expired' }],
    ['a card expiring later', card({ expiresAt: new Date(NOW.getTime() + 1000) }), 100, { cents: 100 }],
    ['an empty card', card({ balanceCents: 0 }), 100, { refuse: 'gift_card_empty' }],
    [
      'a disabled and expired card: disabled first',
      card({ status: 'disabled', expiresAt: new Date(0) }),
      100,
      { refuse: 'gift_card_disabled' },
    ],
  ];
  for (const [when, state, owed, expected] of cases)
    it(`when ${when}, then ${JSON.stringify(expected)}`, () => {
      expect(amountToTake(state, owed, NOW)).to.deep.equal(expected);
      expect(cardRefusal(state, NOW)).to.equal('refuse' in expected ? expected.refuse : null);
    });

  it('when a code is made from random bytes, then it is the prefix and four groups of four unambiguous characters', () => {
    const bytes = Uint8Array.from({ length: 16 }, (_, i) => i * 17);
    const code = cardCodeOf(bytes);
    expect(code).to.match(/^GC(-[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{4}){4}$/);
    expect(cardCodeOf(bytes)).to.equal(code);
    expect(cardCodeOf(bytes, 'BF')).to.match(/^BF-/);
    expect(cardCodeOf(Uint8Array.from({ length: 16 }, () => 255))).to.not.equal(code);
  });

  it('when a code is typed in any case with spaces around, then it is read as stored', () => {
    expect(normalizeCardCode('  xmas-2026-aa ')).to.equal('XMAS-2026-AA');
  });
});
