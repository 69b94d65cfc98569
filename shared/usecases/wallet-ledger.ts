/**
 * Posting one ledger entry to a wallet balance, exactly once, without transactions.
 *
 * Hot lookups go by `_id` (the balance's is derived from application, customer and wallet; an
 * entry's is the slot it holds): the cheapest read on MongoDB and the only one FerretDB 1.x
 * pushes down to its storage.
 *
 * The balance carries a `version`; the ledger entry that moves it from v to v + 1 holds the
 * unique slot `<balance>:<v>` and records its decision (before, after). So:
 *  - a re-run of the same operation (same txnId) finds its entry and returns its outcome;
 *  - a crash after the entry was written but before the balance moved leaves a pending entry at
 *    the balance's current slot, which the next run — of this operation or of the customer's
 *    next one — rolls forward with the recorded `after` (the version guard applies it once);
 *  - two runs at once (a lost BullMQ lock) race on the unique slot: one wins, the other re-reads.
 * Invariant: balance.points == sum of applied entries; it never goes below 0.
 */
import type { WalletBalanceRepository } from '../data/wallet-balance.repository.js';
import { refusedIdOf, slotOf, type WalletTransactionRepository } from '../data/wallet-transaction.repository.js';

export interface LedgerDeps {
  repos: { walletBalances: WalletBalanceRepository; walletTransactions: WalletTransactionRepository };
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
  origin: 'api' | 'cashback' | 'cashback_revert';
  /** Debit at most the balance instead of refusing (taking back a cashback already spent). */
  clampToBalance?: boolean;
}

export type PostEntryResult =
  { state: 'applied'; before: number; after: number; points: number } | { state: 'refused'; balance: number; points: number };

const MAX_ROUNDS = 50;

export async function postLedgerEntry({ repos }: LedgerDeps, input: PostEntryInput): Promise<PostEntryResult> {
  const { applicationId, txnId } = input;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const balance = await repos.walletBalances.getOrCreate(applicationId, input.customerId, input.walletDbId);

    // Roll forward whatever entry holds the current slot (ours from a crashed run, or another's).
    const head = await repos.walletTransactions.findAtSlot(applicationId, balance.id, balance.version);
    if (head) {
      await repos.walletBalances.applyAtVersion(balance.id, balance.version, head.after!);
      await repos.walletTransactions.markApplied(head.id);
      continue;
    }

    // Write this operation's entry first; its txnId is unique, so if it was written before (a
    // re-run) the write collides and the recorded outcome is returned instead.
    let points = input.points;
    const refuse = input.type === 'debit' && points > balance.points && !input.clampToBalance;
    if (input.type === 'debit' && points > balance.points && input.clampToBalance) points = balance.points;
    const after = refuse ? balance.points : balance.points + (input.type === 'credit' ? points : -points);
    const slot = refuse ? refusedIdOf(applicationId, txnId) : slotOf(balance.id, balance.version);
    const written = await repos.walletTransactions.insert({
      ...entryBase(input),
      points,
      slot,
      seq: refuse ? null : balance.version,
      before: balance.points,
      after,
      state: refuse ? 'refused' : 'pending',
    });
    if (!written) {
      const mine = await repos.walletTransactions.findByTxnId(applicationId, txnId);
      if (!mine) continue; // another operation took this slot first: re-read and decide again
      if (mine.state === 'refused') return { state: 'refused', balance: mine.before ?? 0, points: mine.points };
      if (mine.seq !== null && mine.seq >= balance.version) continue; // ours, pending at the head: roll it forward
      await repos.walletTransactions.markApplied(mine.id);
      return { state: 'applied', before: mine.before!, after: mine.after!, points: mine.points };
    }
    if (refuse) return { state: 'refused', balance: balance.points, points };
    await repos.walletBalances.applyAtVersion(balance.id, balance.version, after);
    await repos.walletTransactions.markApplied(slot);
    return { state: 'applied', before: balance.points, after, points };
  }
  throw new Error(`wallet ledger: no progress after ${MAX_ROUNDS} rounds for ${txnId}`);
}

const entryBase = (input: PostEntryInput) => ({
  applicationId: input.applicationId,
  customerId: input.customerId,
  walletDbId: input.walletDbId,
  txnId: input.txnId,
  type: input.type,
  description: input.description,
  origin: input.origin,
});
