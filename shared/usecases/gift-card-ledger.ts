/**
 * Posting one entry to a gift card (or store credit) exactly once, without transactions — the
 * protocol of the wallet ledger (shared/usecases/wallet-ledger.ts) with the card as the balance:
 * read the card, write the entry at its unique slot `<card>:<version>`, move the card from
 * `version` to `version + 1` with a guarded update.
 *  - A re-run of the same operation (same txnId, unique per card) collides with its own entry and
 *    returns its recorded outcome, applying it first if the card has not moved yet.
 *  - A crash after the entry was written but before the card moved leaves an entry at the card's
 *    current slot; the next write there — of this operation or of anyone's next one — collides with
 *    it and rolls it forward with its recorded state (the version guard applies it once).
 *  - Two writers at once (two customers' carts on different partitions, an admin top-up) race on
 *    the unique slot: one wins, the others roll it forward and decide again on the new balance.
 * So an entry at slot v is applied exactly when the card's version is past v, and every decision
 * (what a spend takes, whether the card is disabled) is made on the state the entry applies to.
 * Invariant: card.balance == sum of the applied entries' amounts, never below 0.
 */
import type { GiftCardEntryRecord, GiftCardRecord, GiftCardRepository } from '../data/gift-card.repository.js';
import { cardSlotOf } from '../data/gift-card.repository.js';
import { amountToTake, type CardRefusal, type CardState } from '../domain/gift-cards.js';
import type { Services } from '../services.js';
import { failpoint } from './failpoint.js';

export interface CardLedgerDeps {
  repos: { giftCards: GiftCardRepository };
  now: () => Date;
  /** Failpoints of the checkout's spends and refunds (tests only). */
  config?: Services['config'];
}

/** What an entry does to the card. */
export type CardOperation =
  /** Takes what the cart owes, at most the balance; refused when the card cannot pay. */
  | { kind: 'spend'; owedCents: number; orderId: string; cycle: number; customerId: string }
  /** Gives back a spend (whatever the card's status or expiry). */
  | { kind: 'refund'; cents: number; orderId: string; cycle: number; customerId: string }
  | { kind: 'top_up'; cents: number }
  | { kind: 'disable' }
  | { kind: 'enable' }
  | { kind: 'expiry'; expiresAt: Date | null };

export type CardPosting =
  /** `written`: this call wrote it (false: it was there already — a re-run or a repeat). */
  { state: 'applied'; entry: GiftCardEntryRecord; written: boolean } | { state: 'refused'; reason: CardRefusal } | { state: 'no_card' };

const MAX_ROUNDS = 100;

const stateOf = (card: Pick<GiftCardRecord, 'balance' | 'status' | 'expiresAt'>): CardState => ({
  balanceCents: card.balance,
  status: card.status,
  expiresAt: card.expiresAt,
});

/** The entry's amount and the card's state after it, or why the card refuses (a spend only). */
function decide(op: CardOperation, card: GiftCardRecord, now: Date): { amount: number; after: CardState } | { refuse: CardRefusal } {
  const state = stateOf(card);
  switch (op.kind) {
    case 'spend': {
      const taken = amountToTake(state, op.owedCents, now);
      if ('refuse' in taken) return taken;
      return { amount: -taken.cents, after: { ...state, balanceCents: state.balanceCents - taken.cents } };
    }
    case 'refund':
    case 'top_up':
      return { amount: op.cents, after: { ...state, balanceCents: state.balanceCents + op.cents } };
    case 'disable':
      return { amount: 0, after: { ...state, status: 'disabled' } };
    case 'enable':
      return { amount: 0, after: { ...state, status: 'active' } };
    case 'expiry':
      return { amount: 0, after: { ...state, expiresAt: op.expiresAt } };
  }
}

const afterOf = (e: Pick<GiftCardEntryRecord, 'after' | 'status' | 'expiresAt'>): CardState => ({
  balanceCents: e.after,
  status: e.status,
  expiresAt: e.expiresAt,
});

/** Posts `op` on the card under `txnId`, exactly once (see the file's header). */
export async function postCardEntry(
  deps: CardLedgerDeps,
  input: { applicationId: string; cardId: string; txnId: string; op: CardOperation; description?: string },
): Promise<CardPosting> {
  const { repos } = deps;
  const { applicationId, cardId, txnId, op } = input;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const card = await repos.giftCards.findById(applicationId, cardId);
    if (!card) return { state: 'no_card' };
    const slot = cardSlotOf(card.id, card.version);
    const d = decide(op, card, deps.now());
    if ('refuse' in d) {
      // Refused on this state — unless this operation posted already (a re-run: its own spend may be what emptied the card).
      const { mine } = await repos.giftCards.findSlotOrTxn(card.id, slot, txnId);
      if (!mine) return { state: 'refused', reason: d.refuse };
      if (mine.seq === card.version) await repos.giftCards.applyAtVersion(applicationId, card.id, mine.seq, afterOf(mine));
      return { state: 'applied', entry: mine, written: false };
    }
    const order = op.kind === 'spend' || op.kind === 'refund' ? op : null;
    const entry = {
      slot,
      applicationId,
      cardId: card.id,
      txnId,
      kind: op.kind,
      amount: d.amount,
      seq: card.version,
      before: card.balance,
      after: d.after.balanceCents,
      status: d.after.status,
      expiresAt: d.after.expiresAt,
      orderId: order?.orderId ?? null,
      cycle: order?.cycle ?? null,
      customerId: order?.customerId ?? null,
      description: input.description ?? '',
    };
    if (await repos.giftCards.insertEntry(entry)) {
      if (order && deps.config) failpoint({ config: deps.config }, 'gift-card-after-entry');
      await repos.giftCards.applyAtVersion(applicationId, card.id, card.version, d.after);
      if (order && deps.config) failpoint({ config: deps.config }, 'gift-card-after-move');
      return { state: 'applied', entry: { ...entry, id: slot, createdAt: new Date() }, written: true };
    }
    // Collided: with this txnId's own entry (a re-run), or with another entry at the slot.
    const { atSlot, mine } = await repos.giftCards.findSlotOrTxn(card.id, slot, txnId);
    if (mine) {
      if (mine.seq === card.version) await repos.giftCards.applyAtVersion(applicationId, card.id, mine.seq, afterOf(mine));
      return { state: 'applied', entry: mine, written: false };
    }
    // Another operation's entry holds the slot (its run crashed before moving the card, or it is
    // being written right now): roll it forward, then decide again on the new state.
    if (atSlot && atSlot.seq === card.version) await repos.giftCards.applyAtVersion(applicationId, card.id, atSlot.seq, afterOf(atSlot));
  }
  throw new Error(`gift card ledger: no progress after ${MAX_ROUNDS} rounds for ${txnId}`);
}
