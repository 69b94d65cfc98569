/**
 * Gift cards and store credit (docs/gift-cards.md): a money balance, in integer cents, held by a
 * code (a gift card) or by a customer (store credit). Pure decisions over a card's state and `now`;
 * the ledger (shared/usecases/gift-card-ledger.ts) writes them, the checkout reads them.
 */

export type CardStatus = 'active' | 'disabled';

/** What a card's entries move: its balance, its status and its expiry (the entry at each slot records them after it). */
export interface CardState {
  balanceCents: number;
  status: CardStatus;
  expiresAt: Date | null;
}

/** Why a card cannot pay at checkout (the `Coupon-Reason` names: shared/reasons.ts). */
export type CardRefusal = 'gift_card_disabled' | 'gift_card_expired' | 'gift_card_empty';

/** The message each refusal has in validate's `message` and in an apply refusal's `details`. */
export const CARD_REFUSAL_MESSAGES: Record<CardRefusal, string> = {
  gift_card_disabled: 'gift card is disabled',
  gift_card_expired: 'gift card is expired',
  gift_card_empty: 'gift card has no balance left',
};

/** Why `card` cannot pay now, or null when it can (a balance above 0, active, not expired). */
export function cardRefusal(card: CardState, now: Date): CardRefusal | null {
  if (card.status === 'disabled') return 'gift_card_disabled';
  if (card.expiresAt && card.expiresAt.getTime() <= now.getTime()) return 'gift_card_expired';
  if (card.balanceCents <= 0) return 'gift_card_empty';
  return null;
}

/**
 * What a card takes of a cart that still owes `owedCents` (after every other promotion): at most
 * that, at most its balance. Nothing owed: nothing taken, and the card is not refused.
 */
export function amountToTake(card: CardState, owedCents: number, now: Date): { cents: number } | { refuse: CardRefusal } {
  const refused = cardRefusal(card, now);
  if (refused) return { refuse: refused };
  return { cents: Math.max(0, Math.min(card.balanceCents, owedCents)) };
}

/** Code alphabet: no 0/O, 1/I/L, so a code read aloud or typed is not mistaken. */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/**
 * A card code from random bytes (16 of them): `prefix` then four groups of four characters
 * (about 99 bits of randomness: a code cannot be guessed).
 */
export function cardCodeOf(bytes: Uint8Array, prefix = 'GC'): string {
  const chars = Array.from(bytes.slice(0, 16), (b) => ALPHABET[b % ALPHABET.length]!);
  const groups = [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join(''));
  return [prefix, ...groups].filter(Boolean).join('-');
}

/** A code as sent (any case, spaces around) as it is stored and looked up. */
export const normalizeCardCode = (code: string): string => code.trim().toUpperCase();
