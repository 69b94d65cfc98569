/**
 * Posting one ledger entry to a wallet balance, exactly once, without transactions, in three
 * round trips: read the balance, write the entry at its slot, move the balance.
 *
 * The balance carries a `version`; the ledger entry that moves it from v to v + 1 holds the
 * unique slot `<balance>:<v>` (its `_id`) and records its decision (before, after). So:
 *  - a re-run of the same operation (same txnId, unique per customer) collides with its own entry and
 *    returns its recorded outcome, applying it first if the balance has not moved yet;
 *  - a crash after the entry was written but before the balance moved leaves an entry at the
 *    balance's current slot; the next write there — of this operation or of the customer's next
 *    one — collides with it and rolls it forward with its recorded `after` (the version guard
 *    applies it once);
 *  - two runs at once (a lost BullMQ lock) race on the unique slot: one wins, the other re-reads.
 * An entry at slot v is applied exactly when the balance's version is past v.
 * Invariant: balance.points == sum of applied entries; it never goes below 0.
 */
import type { WalletBalanceRepository } from '../data/wallet-balance.repository.js';
import { refusedIdOf, slotOf, voidIdOf, type WalletTransactionRepository } from '../data/wallet-transaction.repository.js';

export interface LedgerDeps {
  repos: { walletBalances: WalletBalanceRepository; walletTransactions: WalletTransactionRepository };
}

/** An entry posted (or found posted) and its outcome. */
export interface Posting {
  input: PostEntryInput;
  result: PostEntryResult;
}

export interface PostEntryInput {
  applicationId: string;
  customerId: string;
  walletDbId: string;
  txnId: string;
  type: 'credit' | 'debit';
  /** Hundredths of a point, > 0. */
  points: number;
  description: string;
  origin: 'api' | 'admin' | 'cashback' | 'cashback_revert';
  /** Debit at most the balance instead of refusing (taking back a cashback already spent). */
  clampToBalance?: boolean;
}

export type PostEntryResult =
  /** `written`: this call wrote the entry (false: it was there already — a re-run or a replay). */
  | { state: 'applied'; before: number; after: number; points: number; written: boolean }
  | { state: 'refused'; balance: number; points: number }
  /** The txnId was voided (see {@link voidEntry}): nothing was posted, nothing ever will be. */
  | { state: 'void' };

const MAX_ROUNDS = 50;

export async function postLedgerEntry({ repos }: LedgerDeps, input: PostEntryInput): Promise<PostEntryResult> {
  const { applicationId, txnId } = input;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const balance = await repos.walletBalances.getOrCreate(applicationId, input.customerId, input.walletDbId);
    let points = input.points;
    const short = input.type === 'debit' && points > balance.points;
    if (short && input.clampToBalance) points = balance.points;
    const refuse = short && !input.clampToBalance;
    const after = refuse ? balance.points : balance.points + (input.type === 'credit' ? points : -points);
    const slot = refuse ? refusedIdOf(applicationId, input.customerId, txnId) : slotOf(balance.id, balance.version);
    const written = await repos.walletTransactions.insert({
      ...entryBase(input),
      points,
      slot,
      seq: refuse ? null : balance.version,
      before: balance.points,
      after,
      stored: refuse ? 'refused' : 'posted',
    });
    if (written) {
      if (refuse) return { state: 'refused', balance: balance.points, points };
      await repos.walletBalances.applyAtVersion(balance.id, balance.version, after);
      return { state: 'applied', before: balance.points, after, points, written: true };
    }
    // Collided: with this operation's own entry (a re-run), or with another entry at the slot.
    const { atSlot, mine } = await repos.walletTransactions.findSlotOrTxn(applicationId, input.customerId, slot, txnId);
    if (mine) {
      if (mine.stored === 'void') return { state: 'void' };
      if (mine.stored === 'refused') return { state: 'refused', balance: mine.before ?? 0, points: mine.points };
      // Ours; at the current slot it may not be applied yet: roll it forward (a no-op if it was).
      if (mine.seq === balance.version) await repos.walletBalances.applyAtVersion(balance.id, mine.seq, mine.after!);
      return { state: 'applied', before: mine.before!, after: mine.after!, points: mine.points, written: false };
    }
    // Another operation's entry holds this slot (its run crashed before moving the balance, or it
    // is being written right now): roll it forward, then decide again on the new balance.
    if (atSlot?.seq === balance.version) await repos.walletBalances.applyAtVersion(balance.id, balance.version, atSlot.after!);
  }
  throw new Error(`wallet ledger: no progress after ${MAX_ROUNDS} rounds for ${txnId}`);
}

/**
 * Makes sure `txnId` never posts: records a void entry under it unless an entry exists already.
 * True when it voided (nothing had been posted); false when an entry was there first.
 */
export async function voidEntry({ repos }: LedgerDeps, input: Omit<PostEntryInput, 'type' | 'points'>): Promise<boolean> {
  return repos.walletTransactions.insert({
    ...entryBase({ ...input, type: 'credit' }),
    points: 0,
    slot: voidIdOf(input.applicationId, input.customerId, input.txnId),
    seq: null,
    before: null,
    after: null,
    stored: 'void',
  });
}

const entryBase = (
  input: Pick<PostEntryInput, 'applicationId' | 'customerId' | 'walletDbId' | 'txnId' | 'type' | 'description' | 'origin'>,
) => ({
  applicationId: input.applicationId,
  customerId: input.customerId,
  walletDbId: input.walletDbId,
  txnId: input.txnId,
  type: input.type,
  description: input.description,
  origin: input.origin,
});
