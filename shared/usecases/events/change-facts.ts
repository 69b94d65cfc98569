/**
 * What a finished redeem, revert or wallet job changed. From what the use cases told their run
 * they committed (`JobRun.observe`) when they did; otherwise — a re-run that found its work done, a
 * repeat of an order already redeemed — read from the journals they wrote (the redemption cycle,
 * the ledger entries). Both ways give the same facts (test/worker/webhook-round-trips.spec.ts
 * checks it). This file is the only coupling between events and the redemption and ledger
 * repositories: adapt it when they change.
 *
 * Every fact carries the key of the change it reports, so recording it again (a re-run of the
 * job, or a repeat request answered from the journal) yields the same event id.
 */
import type { RedemptionRecord } from '../../data/redemption-journal.repository.js';
import type { StoredEntry } from '../../data/wallet-transaction.repository.js';
import type { RedemptionEventData, RefusalEventData, WalletEventData } from '../../domain/events.js';
import { fromHundredths } from '../../domain/points.js';
import { reasonOf } from '../../errors.js';
import type { Outcome } from '../../queue/outcome.js';
import type { Services } from '../../services.js';
import type { RedeemInput, RevertInput, WalletOperationInput } from '../../queue/job-payloads.js';
import type { Committed, CommittedCycle } from '../job-run.js';
import type { WalletTransactionResult } from '../wallet-operation.usecase.js';

/** A job of the partition queues with its outcome and what its run committed, as the processor saw them. */
export type FinishedOperation = (
  | { name: 'redeem'; input: RedeemInput; outcome: Outcome<unknown> }
  | { name: 'revert'; input: RevertInput; outcome: Outcome<unknown> }
  | { name: 'wallet-transaction'; input: WalletOperationInput; outcome: Outcome<unknown> }
) & { jobId: string; queueName: string; observed?: readonly Committed[] };

type WithoutCustomer<T> = Omit<T, 'source_id' | 'customer_id'>;

/** One change to report, before the customer's ids and the sequence number are added. */
export type ChangeFact =
  | { type: 'redemption.completed' | 'redemption.reverted'; changeKey: string; data: WithoutCustomer<RedemptionEventData> }
  | { type: 'redemption.refused'; changeKey: string; data: WithoutCustomer<RefusalEventData> }
  | { type: 'wallet.transaction.completed'; changeKey: string; data: WithoutCustomer<WalletEventData> };

/**
 * The facts of an operation. `fresh`: this job's run made every one of these changes just now, so
 * no other job can have recorded them (only an overlapping run of this same job, which records
 * the same events): the recorder need not look for them in the outbox first.
 */
export interface Changes {
  facts: ChangeFact[];
  fresh: boolean;
}

type Deps = Pick<Services, 'repos' | 'applications'>;

/** States in which a cycle has counted (it completed, even if reverted since). */
const COUNTED = new Set<RedemptionRecord['state']>(['completed', 'reverted']);

/** A ledger entry as the event reports it, whether observed or read. */
type LedgerEntry = Pick<StoredEntry, 'txnId' | 'type' | 'origin' | 'points' | 'before' | 'after' | 'description'>;

const txnFact = (e: LedgerEntry, walletId: string, orderId: string | null): ChangeFact => ({
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

/** The ledger entry this run posted under `txnId` (null: none that moved points); undefined when it did not say. */
function observedEntry(op: FinishedOperation, txnId: string): LedgerEntry | null | undefined {
  const seen = op.observed?.find((c) => c.kind === 'ledger' && c.txnId === txnId);
  if (!seen || seen.kind !== 'ledger') return undefined;
  const p = seen.posted;
  if (!p || p.result.state !== 'applied') return null;
  const { txnId: id, type, origin, description } = p.input;
  return { txnId: id, type, origin, description, points: p.result.points, before: p.result.before, after: p.result.after };
}

/** The ledger entry under `txnId` that moved points, read (a refused or voided one moved nothing). */
async function readEntry(deps: Deps, applicationId: string, customerId: string, txnId: string): Promise<LedgerEntry | null> {
  const e = await deps.repos.walletTransactions.findByTxnId(applicationId, customerId, txnId);
  return e && e.stored !== 'refused' && e.stored !== 'void' ? e : null;
}

async function redemptionFacts(
  deps: Deps,
  op: FinishedOperation,
  r: CommittedCycle,
  type: 'redemption.completed' | 'redemption.reverted',
): Promise<ChangeFact[]> {
  const { applicationId } = op.input;
  const cashbackTxnId = `${type === 'redemption.completed' ? 'cashback' : 'cashback-revert'}:${r.key}`;
  const hasCashback = !!r.cashbackWallet && r.cashbackCents > 0;
  const observed = hasCashback ? observedEntry(op, cashbackTxnId) : null;
  const [app, cashback] = await Promise.all([
    deps.applications.get(applicationId),
    observed === undefined ? readEntry(deps, applicationId, op.input.customerId, cashbackTxnId) : observed,
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
  // The cashback moved in the same job.
  if (cashback) facts.push(txnFact(cashback, r.cashbackWallet!, r.orderId));
  return facts;
}

/** The cycle this run committed in `state`, if it said so. */
const observedCycle = (op: FinishedOperation, state: 'completed' | 'reverted') => {
  const seen = op.observed?.find((c) => c.kind === 'cycle' && c.state === state);
  return seen?.kind === 'cycle' ? seen.cycle : undefined;
};

/** The changes a finished operation made, in the order they are reported. */
export async function changesOf(deps: Deps, op: FinishedOperation): Promise<Changes> {
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
            reason: reasonOf(outcome.error),
            message: outcome.error.message,
            details: outcome.error.details,
          },
        };
        // Keyed by the job: a job id used again (a replayed key) could find it recorded.
        return { facts: [refusal], fresh: false };
      }
      const committed = observedCycle(op, 'completed');
      if (committed) return { facts: await redemptionFacts(deps, op, committed, 'redemption.completed'), fresh: true };
      const cycles = await deps.repos.redemptions.cycles(input.applicationId, input.campaignId, input.orderId);
      // This job's cycle; or, for a repeat of an order already redeemed, the cycle it was answered from.
      const r =
        cycles.find((c) => c.redeemJobId === op.jobId && COUNTED.has(c.state)) ?? cycles.filter((c) => c.state === 'completed').at(-1);
      return { facts: r ? await redemptionFacts(deps, op, r, 'redemption.completed') : [], fresh: false };
    }
    case 'revert': {
      const { input, outcome } = op;
      if (!outcome.ok) return { facts: [], fresh: false };
      const committed = observedCycle(op, 'reverted');
      if (committed) return { facts: await redemptionFacts(deps, op, committed, 'redemption.reverted'), fresh: true };
      const cycles = await deps.repos.redemptions.cycles(input.applicationId, input.campaignId, input.orderId);
      const r = cycles.find((c) => c.revertJobId === op.jobId) ?? cycles.filter((c) => c.state !== 'refused').at(-1);
      return { facts: r?.state === 'reverted' ? await redemptionFacts(deps, op, r, 'redemption.reverted') : [], fresh: false };
    }
    case 'wallet-transaction': {
      const { input, outcome } = op;
      if (!outcome.ok) return { facts: [], fresh: false };
      const v = outcome.value as WalletTransactionResult;
      const fact: ChangeFact = {
        type: 'wallet.transaction.completed',
        changeKey: `txn:${v.txn_id}`,
        data: {
          wallet_id: v.wallet_id,
          txn_id: v.txn_id,
          type: input.type,
          origin: input.origin ?? 'api',
          points: v.points,
          previous_loyalty_points: v.previous_loyalty_points,
          loyalty_points: v.loyalty_points,
          description: v.description,
          order_id: null,
        },
      };
      // Fresh when this run wrote the entry (a replay of the key found it written).
      return { facts: [fact], fresh: !!observedEntry(op, v.txn_id) };
    }
  }
}
