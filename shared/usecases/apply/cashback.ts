/**
 * A redemption's cashback (docs/decisions.md#20): credited to the campaign's wallet once the cycle is
 * committed, taken back (or voided, if never credited) by its revert. Ledger txn ids derive from
 * the redemption key, so every step posts once whatever the re-runs.
 */
import type { RedemptionRecord } from '../../data/redemption-journal.repository.js';
import type { Services } from '../../services.js';
import { creditToTakeBack, postLedgerEntry, type Posting } from '../wallet-ledger.js';
import { creditRulesOf, liveWallet, tierContextOf } from '../wallet-operation.usecase.js';
import type { PendingRule } from '../../domain/point-buckets.js';

export const cashbackTxnId = (key: string) => `cashback:${key}`;
export const cashbackRevertTxnId = (key: string) => `cashback-revert:${key}`;

async function cashbackWalletOf(deps: Pick<Services, 'wallets'>, applicationId: string, walletId: string | null) {
  return walletId ? await liveWallet(deps, applicationId, walletId) : null;
}

type Deps = Pick<Services, 'repos' | 'wallets' | 'now'>;

/** Posts an entry and keeps what was asked with what happened. */
const posting = async (deps: Deps, input: Posting['input']): Promise<Posting> => ({ input, result: await postLedgerEntry(deps, input) });

/**
 * Credits a committed redemption's cashback (docs/decisions.md#20). Idempotent (its txnId); a no-op once
 * voided by a revert. Returns what it posted (null: no cashback wallet).
 */
export async function creditCashback(
  deps: Deps,
  r: Pick<RedemptionRecord, 'applicationId' | 'customerId' | 'key' | 'orderId' | 'cashbackCents' | 'cashbackWallet'>,
  /** The campaign's own pending period for its cashback (null: the wallet's). */
  pending: PendingRule = null,
): Promise<Posting | null> {
  const wallet = r.cashbackCents > 0 ? await cashbackWalletOf(deps, r.applicationId, r.cashbackWallet) : null;
  if (!wallet) return null;
  // The wallet's expiry and pending settings as this worker sees them; the campaign's pending period first.
  const rules = creditRulesOf(wallet, pending ?? wallet.pendingCredits);
  return posting(deps, {
    applicationId: r.applicationId,
    customerId: r.customerId,
    walletDbId: wallet.id,
    txnId: cashbackTxnId(r.key),
    type: 'credit',
    points: r.cashbackCents,
    description: `cashback: order ${r.orderId}`,
    origin: 'cashback',
    ...(rules ? { rules } : {}),
    tiers: tierContextOf(wallet),
  });
}

/**
 * Takes back a reverted redemption's cashback. If it was never credited, voids its txnId first so
 * that a late credit (a re-run of the redeem) can never post it; else debits what was credited, at
 * most the balance (it may have been spent). Idempotent. Returns the debit (null: none).
 */
export async function revertCashback(
  deps: Deps,
  r: Pick<RedemptionRecord, 'applicationId' | 'customerId' | 'key' | 'orderId' | 'cashbackCents' | 'cashbackWallet'>,
): Promise<Posting | null> {
  const wallet = r.cashbackCents > 0 ? await cashbackWalletOf(deps, r.applicationId, r.cashbackWallet) : null;
  if (!wallet) return null;
  const walletDbId = wallet.id;
  const entry = { applicationId: r.applicationId, customerId: r.customerId, walletDbId, origin: 'cashback_revert' as const };
  const credit = await creditToTakeBack(deps, {
    ...entry,
    txnId: cashbackTxnId(r.key),
    description: `cashback voided: order ${r.orderId}`,
  });
  if (!credit) return null;
  // Still pending: cancelled (the spendable points do not move); else what is left of it is taken back.
  return posting(deps, {
    ...entry,
    txnId: cashbackRevertTxnId(r.key),
    type: 'debit',
    points: credit.points,
    description: `cashback reverted: order ${r.orderId}`,
    clampToBalance: true,
    takesBack: cashbackTxnId(r.key),
    tiers: tierContextOf(wallet),
    ...(credit.tierCounted ? { tierRelease: credit.tierCounted } : {}),
  });
}
