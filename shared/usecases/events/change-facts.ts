/**
 * What a finished redeem, revert or wallet job changed, read from the journals the use cases
 * wrote (the redemption cycle, the ledger entries), so the use cases need no change to be
 * observed. This file is the only coupling between events and the redemption and ledger
 * repositories: adapt it when they change.
 *
 * Every fact carries the key of the change it reports, so recording it again (a re-run of the
 * job, or a repeat request answered from the journal) yields the same event id.
 */
import type { RedemptionRecord } from '../../data/redemption-journal.repository.js';
import type { StoredEntry } from '../../data/wallet-transaction.repository.js';
import type { RedemptionEventData, RefusalEventData, WalletEventData } from '../../domain/events.js';
import { fromHundredths } from '../../domain/points.js';
import type { Outcome } from '../../queue/outcome.js';
import type { Services } from '../../services.js';
import type { RedeemInput, RevertInput } from '../apply-coupon.usecase.js';
import type { WalletOperationInput, WalletTransactionResult } from '../wallet-operation.usecase.js';

/** A job of the partition queues with its outcome, as the processor saw it. */
export type FinishedOperation =
  | { name: 'redeem'; input: RedeemInput; jobId: string; outcome: Outcome<unknown> }
  | { name: 'revert'; input: RevertInput; jobId: string; outcome: Outcome<unknown> }
  | { name: 'wallet-transaction'; input: WalletOperationInput; jobId: string; outcome: Outcome<unknown> };

type WithoutCustomer<T> = Omit<T, 'source_id' | 'customer_id'>;

/** One change to report, before the customer's ids and the sequence number are added. */
export type ChangeFact =
  | { type: 'redemption.completed' | 'redemption.reverted'; changeKey: string; data: WithoutCustomer<RedemptionEventData> }
  | { type: 'redemption.refused'; changeKey: string; data: WithoutCustomer<RefusalEventData> }
  | { type: 'wallet.transaction.completed'; changeKey: string; data: WithoutCustomer<WalletEventData> };

type Deps = Pick<Services, 'repos' | 'applications'>;

/** States in which a cycle has counted (it completed, even if reverted since). */
const COUNTED = new Set<RedemptionRecord['state']>(['completed', 'reverted']);

const txnFact = (e: StoredEntry, walletId: string, orderId: string | null): ChangeFact => ({
  type: 'wallet.transaction.completed',
  changeKey: `txn:${e.txnId}`,
  data: {
    wallet_id: walletId,
    txn_id: e.txnId,
    type: e.type,
    origin: e.origin,
    points: fromHundredths(e.points),
    previous_loyalty_points: fromHundredths(e.before ?? 0),
    loyalty_points: fromHundredths(e.after ?? 0),
    description: e.description,
    order_id: orderId,
  },
});

async function redemptionFacts(
  deps: Deps,
  input: RedeemInput | RevertInput,
  r: RedemptionRecord,
  type: 'redemption.completed' | 'redemption.reverted',
): Promise<ChangeFact[]> {
  const cashbackTxnId = `${type === 'redemption.completed' ? 'cashback' : 'cashback-revert'}:${r.key}`;
  const [app, cashback] = await Promise.all([
    deps.applications.get(input.applicationId),
    r.cashbackWallet && r.cashbackCents > 0
      ? deps.repos.walletTransactions.findByTxnId(input.applicationId, input.customerId, cashbackTxnId)
      : null,
  ]);
  const facts: ChangeFact[] = [
    {
      type,
      changeKey: `redemption:${r.key}`,
      data: {
        order_id: r.orderId,
        campaign_id: r.campaignId,
        coupon_id: r.couponId,
        coupon_code: r.code,
        redemption_id: r.key,
        cycle: r.cycle,
        status: type === 'redemption.completed' ? 'completed' : 'reverted',
        discount: r.discountCents / 100,
        cashback: r.cashbackCents / 100,
        currency: app?.currency ?? '',
      },
    },
  ];
  // The cashback moved in the same job: its ledger entry (a refused or voided one moved nothing).
  if (cashback && cashback.stored !== 'refused' && cashback.stored !== 'void') facts.push(txnFact(cashback, r.cashbackWallet!, r.orderId));
  return facts;
}

/** The changes a finished operation made, in the order they are reported. */
export async function changesOf(deps: Deps, op: FinishedOperation): Promise<ChangeFact[]> {
  switch (op.name) {
    case 'redeem': {
      const { input, outcome } = op;
      if (!outcome.ok) {
        const refusal: ChangeFact = {
          type: 'redemption.refused',
          changeKey: `refusal:${op.jobId}`,
          data: {
            order_id: input.orderId,
            campaign_id: input.campaignId,
            coupon_id: input.couponId,
            coupon_code: input.code,
            reason: outcome.error.extra.reason ?? outcome.error.kind,
            message: outcome.error.message,
            details: outcome.error.details,
          },
        };
        return [refusal];
      }
      const cycles = await deps.repos.redemptions.cycles(input.applicationId, input.campaignId, input.orderId);
      // This job's cycle; or, for a repeat of an order already redeemed, the cycle it was answered from.
      const r =
        cycles.find((c) => c.redeemJobId === op.jobId && COUNTED.has(c.state)) ?? cycles.filter((c) => c.state === 'completed').at(-1);
      return r ? redemptionFacts(deps, input, r, 'redemption.completed') : [];
    }
    case 'revert': {
      const { input, outcome } = op;
      if (!outcome.ok) return [];
      const cycles = await deps.repos.redemptions.cycles(input.applicationId, input.campaignId, input.orderId);
      const r = cycles.find((c) => c.revertJobId === op.jobId) ?? cycles.filter((c) => c.state !== 'refused').at(-1);
      return r?.state === 'reverted' ? redemptionFacts(deps, input, r, 'redemption.reverted') : [];
    }
    case 'wallet-transaction': {
      const { input, outcome } = op;
      if (!outcome.ok) return [];
      const v = outcome.value as WalletTransactionResult;
      return [
        {
          type: 'wallet.transaction.completed',
          changeKey: `txn:${v.txn_id}`,
          data: {
            wallet_id: v.wallet_id,
            txn_id: v.txn_id,
            type: input.type,
            origin: 'api',
            points: v.points,
            previous_loyalty_points: v.previous_loyalty_points,
            loyalty_points: v.loyalty_points,
            description: v.description,
            order_id: null,
          },
        },
      ];
    }
  }
}
