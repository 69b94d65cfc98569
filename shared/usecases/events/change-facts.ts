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
import { orderRef, type RedemptionRecord } from '../../data/redemption-journal.repository.js';
import type { GiftCardEntryRecord } from '../../data/gift-card.repository.js';
import type { StoredEntry } from '../../data/wallet-transaction.repository.js';
import type {
  BudgetEventData,
  TierEventData,
  GiftCardEventData,
  RedemptionEventData,
  RefusalEventData,
  WalletEventData,
  WalletPointsEventData,
} from '../../domain/events.js';
import { laneChange } from '../limit-counters.js';
import { fromHundredths } from '../../domain/points.js';
import { fromCents } from '../../domain/money.js';
import { reasonOf } from '../../errors.js';
import type { Outcome, Refusal } from '../../queue/outcome.js';
import type { Services } from '../../services.js';
import type {
  GiftCardApplyInput,
  OrderReportInput,
  RedeemInput,
  RevertInput,
  StackRedeemInput,
  StackRevertInput,
  WalletOperationInput,
  WalletSettleInput,
} from '../../queue/job-payloads.js';
import type { Committed, CommittedCycle } from '../job-run.js';
import type { WalletTransactionResult } from '../wallet-operation.usecase.js';
import { orderEarnTxnId, orderReturnTxnId, type OrderReportResult } from '../order-report.usecase.js';
import { settleTrigger } from '../settle-wallet.usecase.js';

/** A job of the partition queues with its outcome and what its run committed, as the processor saw them. */
export type FinishedOperation = (
  | { name: 'redeem'; input: RedeemInput; outcome: Outcome<unknown> }
  | { name: 'revert'; input: RevertInput; outcome: Outcome<unknown> }
  | { name: 'redeem-stack'; input: StackRedeemInput; outcome: Outcome<unknown> }
  | { name: 'revert-stack'; input: StackRevertInput; outcome: Outcome<unknown> }
  | { name: 'wallet-transaction'; input: WalletOperationInput; outcome: Outcome<unknown> }
  | { name: 'order-report'; input: OrderReportInput; outcome: Outcome<unknown> }
  | { name: 'wallet-settle'; input: WalletSettleInput; outcome: Outcome<unknown> }
  | { name: 'redeem-gift-card'; input: GiftCardApplyInput; outcome: Outcome<unknown> }
  | { name: 'revert-gift-card'; input: GiftCardApplyInput; outcome: Outcome<unknown> }
) & { jobId: string; queueName: string; observed?: readonly Committed[] };

type WithoutCustomer<T> = Omit<T, 'source_id' | 'customer_id'>;

/** One change to report, before the customer's ids and the sequence number are added. */
export type ChangeFact =
  | { type: 'redemption.completed' | 'redemption.reverted'; changeKey: string; data: WithoutCustomer<RedemptionEventData> }
  | { type: 'redemption.refused'; changeKey: string; data: WithoutCustomer<RefusalEventData> }
  | { type: 'wallet.transaction.completed'; changeKey: string; data: WithoutCustomer<WalletEventData> }
  | { type: WalletPointsType; changeKey: string; data: WithoutCustomer<WalletPointsEventData> }
  | { type: 'wallet.tier.changed'; changeKey: string; data: WithoutCustomer<TierEventData> }
  | { type: 'campaign.budget_spent'; changeKey: string; data: WithoutCustomer<BudgetEventData> }
  | { type: 'gift_card.debited' | 'gift_card.credited'; changeKey: string; data: WithoutCustomer<GiftCardEventData> };

type WalletPointsType = 'wallet.points.pending' | 'wallet.points.available' | 'wallet.points.expired' | 'wallet.points.cancelled';

/**
 * The facts of an operation. `fresh`: this job's run made every one of these changes just now, so
 * no other job can have recorded them (only an overlapping run of this same job, which records
 * the same events): the recorder need not look for them in the outbox first.
 */
export interface Changes {
  facts: ChangeFact[];
  fresh: boolean;
}

type Deps = Pick<Services, 'repos' | 'applications'> & Partial<Pick<Services, 'campaigns'>>;

/** States in which a cycle has counted (it completed, even if reverted since). */
const COUNTED = new Set<RedemptionRecord['state']>(['completed', 'reverted']);

/** A ledger entry as the event reports it, whether observed or read. */
type LedgerEntry = Pick<StoredEntry, 'txnId' | 'type' | 'origin' | 'points' | 'before' | 'after' | 'description' | 'bucket'> & {
  tierChange?: { from: string | null; to: string | null; until: Date | null } | undefined;
};

const POINTS_EVENT = {
  pending: 'wallet.points.pending',
  cancelled: 'wallet.points.cancelled',
  available: 'wallet.points.available',
  expired: 'wallet.points.expired',
} as const;

/**
 * The event of a ledger entry: `wallet.transaction.completed` for a credit or debit of the
 * spendable points, a `wallet.points.*` event for an entry that concerns a bucket (docs/events.md).
 */
function txnFact(e: LedgerEntry, walletId: string, orderId: string | null): ChangeFact {
  const common = {
    wallet_id: walletId,
    txn_id: e.txnId,
    points: fromHundredths(e.points),
    previous_loyalty_points: fromHundredths(e.before ?? 0),
    loyalty_points: fromHundredths(e.after ?? 0),
    description: e.description,
    order_id: orderId,
  };
  if (e.bucket)
    return {
      type: POINTS_EVENT[e.bucket.move],
      changeKey: `txn:${e.txnId}`,
      data: { ...common, available_at: e.bucket.availableAt?.toISOString() ?? null, expires_at: e.bucket.expiresAt?.toISOString() ?? null },
    };
  return {
    type: 'wallet.transaction.completed',
    changeKey: `txn:${e.txnId}`,
    data: { ...common, type: e.type as 'credit' | 'debit', origin: e.origin as WalletEventData['origin'] },
  };
}

/**
 * The events of a ledger entry: its points' (none for a re-assessment, or an earning of 0 over its
 * caps), then the tier change it made, if any.
 */
function entryFacts(e: LedgerEntry, walletId: string, orderId: string | null): ChangeFact[] {
  const facts = e.type !== 'tier' && e.points > 0 ? [txnFact(e, walletId, orderId)] : [];
  if (e.tierChange)
    facts.push({
      type: 'wallet.tier.changed',
      changeKey: `tier:${e.txnId}`,
      data: {
        wallet_id: walletId,
        txn_id: e.txnId,
        previous_tier: e.tierChange.from,
        tier: e.tierChange.to,
        reason: e.type === 'tier' ? 'reassessed' : e.type === 'credit' ? 'earned' : 'taken_back',
        kept_until: e.tierChange.to !== null ? (e.tierChange.until?.toISOString() ?? null) : null,
      },
    });
  return facts;
}

/** A stored entry's tier change with the instant its new tier is kept until. */
const withTierChange = (e: StoredEntry): StoredEntry & Pick<LedgerEntry, 'tierChange'> => {
  const { tierChange, ...rest } = e;
  return tierChange ? { ...rest, tierChange: { ...tierChange, until: e.tier?.until ?? null } } : rest;
};

/**
 * The transitions (points available, points expired) posted before the entry `trigger` names — by
 * this run or by an earlier run of the same job — in the order they were applied. Read only for a
 * balance that has buckets: other balances never have transitions.
 */
async function transitionFacts(deps: Deps, op: FinishedOperation, trigger: string, walletId: string): Promise<ChangeFact[]> {
  const entries = await deps.repos.walletTransactions.listByTrigger(op.input.applicationId, op.input.customerId, trigger);
  return entries.flatMap((e) => entryFacts(withTierChange(e), walletId, null));
}

/** The ledger entry this run posted under `txnId` (null: none that moved points); undefined when it did not say. */
function observedEntry(op: FinishedOperation, txnId: string): LedgerEntry | null | undefined {
  const seen = op.observed?.find((c) => c.kind === 'ledger' && c.txnId === txnId);
  if (!seen || seen.kind !== 'ledger') return undefined;
  const p = seen.posted;
  if (!p || p.result.state !== 'applied') return null;
  const { txnId: id, type, origin, description } = p.input;
  const r = p.result;
  return {
    txnId: id,
    type,
    origin,
    description,
    points: r.points,
    before: r.before,
    after: r.after,
    bucket: r.bucket ?? null,
    ...(r.tierChange ? { tierChange: r.tierChange } : {}),
  };
}

/** Whether the entry under `txnId` was posted on a balance with buckets (transitions may precede it). */
function entryBucketed(op: FinishedOperation, txnId: string, read: LedgerEntry | StoredEntry): boolean {
  const seen = op.observed?.find((c) => c.kind === 'ledger' && c.txnId === txnId);
  if (seen?.kind === 'ledger' && seen.posted?.result.state === 'applied') return !!seen.posted.result.bucketed;
  return 'buckets' in read && (!!read.buckets || !!read.tier);
}

/** The ledger entry under `txnId` that moved points, read (a refused or voided one moved nothing). */
async function readEntry(deps: Deps, applicationId: string, customerId: string, txnId: string): Promise<LedgerEntry | null> {
  const e = await deps.repos.walletTransactions.findByTxnId(applicationId, customerId, txnId);
  return e && e.stored !== 'refused' && e.stored !== 'void' ? withTierChange(e) : null;
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
  // The cashback moved in the same job, after the transitions due on its balance.
  if (cashback) {
    if (entryBucketed(op, cashbackTxnId, cashback)) facts.push(...(await transitionFacts(deps, op, cashbackTxnId, r.cashbackWallet!)));
    facts.push(...entryFacts(cashback, r.cashbackWallet!, r.orderId));
  }
  if (type === 'redemption.completed' && r.budgetCents) facts.push(...(await budgetFacts(deps, applicationId, r.campaignId, false)));
  return facts;
}

/**
 * The shares of a campaign's total budget reached now (docs/budgets.md): each `notify_at` share
 * whose amount is spent, and 100 (exhausted) when all of it is — or `refused` (a redeem refused or
 * cut for want of budget). Spent counts only settled changes: the counter's amount less the takes
 * still in flight, so a share is never announced for money an abandoned attempt will give back.
 * Each share's key is the campaign's: recorded once, whichever redeem gets there first.
 */
async function budgetFacts(deps: Deps, applicationId: string, campaignId: string, refused: boolean): Promise<ChangeFact[]> {
  const app = await deps.applications.get(applicationId);
  const campaign = app && deps.campaigns ? (await deps.campaigns.get(app)).byId.get(campaignId) : undefined;
  const total = campaign?.budget?.totalCents;
  if (!app || !campaign || !total) return [];
  const counter = await deps.repos.limitCounters.find(campaignId);
  const inFlight = Object.values(counter?.lanes ?? {}).reduce((sum, held) => {
    const change = laneChange(campaignId, held);
    return sum + (change.step > 0 ? (change.cents ?? 0) : 0);
  }, 0);
  const spent = Math.max(0, (counter?.amt ?? 0) - inFlight);
  // A refusal uses the total up only when no day, week or month cap could be the one that refused.
  const b = campaign.budget!;
  const totalRefused = refused && !b.perDayCents && !b.perWeekCents && !b.perMonthCents;
  const shares = [...b.notifyAt, 100].filter((share) => spent * 100 >= total * share || (share === 100 && totalRefused));
  return shares.map((share) => ({
    type: 'campaign.budget_spent' as const,
    changeKey: `budget:${campaignId}:${share}`,
    data: {
      campaign_id: campaignId,
      share,
      exhausted: share === 100,
      spent: spent / 100,
      budget: total / 100,
      currency: app.currency ?? '',
    },
  }));
}

/** A budget's refusals: the campaign's total budget could not pay a redeem (refused, or cut with `cap`). */
const BUDGET_REFUSALS = new Set(['budget_exhausted']);

/** Every cycle this run committed in `state`, as it said (several coupons: docs/stacking.md). */
const observedCycles = (op: FinishedOperation, state: 'completed' | 'reverted') =>
  (op.observed ?? []).flatMap((c) => (c.kind === 'cycle' && c.state === state ? [c.cycle] : []));

/** The facts of several cycles, in order. */
async function cyclesFacts(
  deps: Deps,
  op: FinishedOperation,
  cycles: readonly CommittedCycle[],
  type: 'redemption.completed' | 'redemption.reverted',
) {
  const facts: ChangeFact[] = [];
  for (const c of cycles) facts.push(...(await redemptionFacts(deps, op, c, type)));
  return facts;
}

/** The cycle this run committed in `state`, if it said so. */
const observedCycle = (op: FinishedOperation, state: 'completed' | 'reverted') => {
  const seen = op.observed?.find((c) => c.kind === 'cycle' && c.state === state);
  return seen?.kind === 'cycle' ? seen.cycle : undefined;
};

/** A run's own changes are fresh; transitions before them may have been posted (and recorded) by an earlier run of the job. */
const freshUnlessTransitions = (facts: ChangeFact[]): Changes => ({
  facts,
  fresh: !facts.some((f) => f.type === 'wallet.points.available' || f.type === 'wallet.points.expired'),
});

/** A refused redeem's one event, naming the coupon the request named (the first entry of several). */
function refusalOf(
  op: FinishedOperation,
  coupon: { orderId: string; campaignId: string; couponId: string; code: string },
  error: Refusal,
): Changes {
  const refusal: ChangeFact = {
    type: 'redemption.refused',
    changeKey: `refusal:${op.jobId}`,
    data: {
      order_id: coupon.orderId,
      campaign_id: coupon.campaignId,
      coupon_id: coupon.couponId,
      coupon_code: coupon.code,
      reason: reasonOf(error),
      message: error.message,
      details: error.details,
    },
  };
  // Keyed by the job: a job id used again (a replayed key) could find it recorded.
  return { facts: [refusal], fresh: false };
}

/**
 * The changes of a job that posted one ledger entry (a wallet update, an order report): the
 * transitions time posted before it, then its own. Fresh when this run wrote the entry (a replay of
 * the key found it written) and time moved nothing first.
 */
async function entryChanges(deps: Deps, op: FinishedOperation, txnId: string, walletId: string, orderId: string | null): Promise<Changes> {
  const seen = observedEntry(op, txnId);
  const entry = seen === undefined ? await readEntry(deps, op.input.applicationId, op.input.customerId, txnId) : seen;
  if (!entry) return { facts: [], fresh: false };
  const before = entryBucketed(op, txnId, entry) ? await transitionFacts(deps, op, txnId, walletId) : [];
  // An order's earning over its period caps posts an entry of 0: the transitions before it moved points, it did not.
  const own = entryFacts(entry, walletId, orderId);
  return { facts: [...before, ...own], fresh: !!seen && before.length === 0 };
}

/**
 * The earnings a redeem of a completed order posted, or its revert took back, in each wallet of an
 * application that opted in (shared/usecases/apply/earn-on-redeem.ts): after the redemption's own.
 */
async function orderEarningChanges(deps: Deps, op: FinishedOperation, orderId: string, type: 'earned' | 'taken back'): Promise<Changes> {
  const { applicationId } = op.input;
  const app = await deps.applications.get(applicationId);
  if (!app?.loyalty.earnOnRedeem) return { facts: [], fresh: true };
  const wallets = await deps.repos.wallets.listByApplication(applicationId);
  const each = await Promise.all(
    wallets.map((w) =>
      entryChanges(deps, op, (type === 'earned' ? orderEarnTxnId : orderReturnTxnId)(w.walletId, orderId), w.walletId, orderId),
    ),
  );
  return { facts: each.flatMap((c) => c.facts), fresh: each.every((c) => c.fresh || c.facts.length === 0) };
}

/**
 * The changes a finished operation made, in the order they were applied and are reported: its own,
 * then the gift card it spent or gave back, then an order's earnings it moved.
 */
export async function changesOf(deps: Deps, op: FinishedOperation): Promise<Changes> {
  const own = await operationChangesOf(deps, op);
  const card = await giftCardChanges(deps, op);
  const withCard = { facts: [...own.facts, ...card.facts], fresh: own.fresh && card.fresh };
  const redeem = op.name === 'redeem' || op.name === 'redeem-stack';
  if ((!redeem && op.name !== 'revert' && op.name !== 'revert-stack') || !op.outcome.ok) return withCard;
  const earned = await orderEarningChanges(deps, op, (op.input as { orderId: string }).orderId, redeem ? 'earned' : 'taken back');
  return { facts: [...withCard.facts, ...earned.facts], fresh: withCard.fresh && earned.fresh };
}

/**
 * The move of the gift card (or store credit) a redeem spent or a revert gave back, alone or after
 * the coupons of a stacked order (docs/gift-cards.md), read from the card's ledger: a redeem's is
 * the order's latest spend not given back, a revert's the refund of the order's latest spend. So a
 * re-run, or a repeat answered from the ledger, reports the same entry under the same key. An
 * entry of 0 (the coupons left nothing to pay) moved nothing: no event.
 */
async function giftCardChanges(deps: Deps, op: FinishedOperation): Promise<Changes> {
  const none: Changes = { facts: [], fresh: true };
  if (!op.outcome.ok) return none;
  const cardId =
    op.name === 'redeem-gift-card' || op.name === 'revert-gift-card'
      ? op.input.cardId
      : op.name === 'redeem-stack' || op.name === 'revert-stack'
        ? op.input.giftCard?.cardId
        : undefined;
  if (!cardId) return none;
  const { applicationId, orderId } = op.input as { applicationId: string; orderId: string };
  const entries = await deps.repos.giftCards.orderEntries(applicationId, cardId, orderId);
  const spend = entries.filter((e) => e.kind === 'spend').at(-1);
  const refund = spend && entries.find((e) => e.kind === 'refund' && e.cycle === spend.cycle);
  const redeem = op.name === 'redeem-gift-card' || op.name === 'redeem-stack';
  const entry = redeem ? (refund ? undefined : spend) : refund;
  if (!entry || entry.amount === 0) return none;
  const [card, app] = await Promise.all([deps.repos.giftCards.findById(applicationId, cardId), deps.applications.get(applicationId)]);
  if (!card) return none;
  // Read from the ledger: a re-run, or a repeat, may find it recorded.
  return { facts: [giftCardFact(entry, card.code, orderId, app?.currency ?? '')], fresh: false };
}

function giftCardFact(e: GiftCardEntryRecord, code: string | null, orderId: string, currency: string): ChangeFact {
  return {
    type: e.amount < 0 ? 'gift_card.debited' : 'gift_card.credited',
    changeKey: `gift_card:${e.cardId}:${e.txnId}`,
    data: {
      gift_card_id: e.cardId,
      code,
      kind: code ? 'gift_card' : 'store_credit',
      order_id: orderId,
      redemption_id: `${e.cardId}:${orderRef(orderId)}:${e.cycle}`,
      cycle: e.cycle ?? 1,
      txn_id: e.txnId,
      amount: fromCents(Math.abs(e.amount)),
      previous_balance: fromCents(e.before),
      balance: fromCents(e.after),
      currency,
    },
  };
}

/** The changes of the operation itself. */
async function operationChangesOf(deps: Deps, op: FinishedOperation): Promise<Changes> {
  switch (op.name) {
    case 'redeem': {
      const { input, outcome } = op;
      if (!outcome.ok) {
        const refused = refusalOf(op, input, outcome.error);
        if (!BUDGET_REFUSALS.has(reasonOf(outcome.error))) return refused;
        return { facts: [...refused.facts, ...(await budgetFacts(deps, input.applicationId, input.campaignId, true))], fresh: false };
      }
      const committed = observedCycle(op, 'completed');
      if (committed) return freshUnlessTransitions(await redemptionFacts(deps, op, committed, 'redemption.completed'));
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
      if (committed) return freshUnlessTransitions(await redemptionFacts(deps, op, committed, 'redemption.reverted'));
      const cycles = await deps.repos.redemptions.cycles(input.applicationId, input.campaignId, input.orderId);
      const r = cycles.find((c) => c.revertJobId === op.jobId) ?? cycles.filter((c) => c.state !== 'refused').at(-1);
      return { facts: r?.state === 'reverted' ? await redemptionFacts(deps, op, r, 'redemption.reverted') : [], fresh: false };
    }
    case 'redeem-stack': {
      const { input, outcome } = op;
      // A refusal names the request's first entry (docs/events.md).
      if (!outcome.ok) return refusalOf(op, { orderId: input.orderId, ...input.entries[0]! }, outcome.error);
      const committed = observedCycles(op, 'completed');
      if (committed.length > 0) return freshUnlessTransitions(await cyclesFacts(deps, op, committed, 'redemption.completed'));
      const stacks = await deps.repos.redemptions.stacks(input.applicationId, input.orderId);
      // This job's stack; or, for a repeat of an order already redeemed, the stack it was answered from.
      const s =
        stacks.find((x) => x.redeemJobId === op.jobId && COUNTED.has(x.state)) ?? stacks.filter((x) => x.state === 'completed').at(-1);
      return { facts: s ? await cyclesFacts(deps, op, s.cycles, 'redemption.completed') : [], fresh: false };
    }
    case 'revert-stack': {
      const { input, outcome } = op;
      if (!outcome.ok) return { facts: [], fresh: false };
      const committed = observedCycles(op, 'reverted');
      if (committed.length > 0) return freshUnlessTransitions(await cyclesFacts(deps, op, committed, 'redemption.reverted'));
      const stack = (await deps.repos.redemptions.stacks(input.applicationId, input.orderId)).find((x) => x.revertJobId === op.jobId);
      if (stack) return { facts: await cyclesFacts(deps, op, stack.cycles, 'redemption.reverted'), fresh: false };
      // One coupon, reverted alone (the order had no stack).
      const first = input.entries[0]!;
      const cycles = await deps.repos.redemptions.cycles(input.applicationId, first.campaignId, input.orderId);
      const r = cycles.find((c) => c.revertJobId === op.jobId);
      return { facts: r?.state === 'reverted' ? await redemptionFacts(deps, op, r, 'redemption.reverted') : [], fresh: false };
    }
    case 'wallet-transaction': {
      const { input, outcome } = op;
      if (!outcome.ok) return { facts: [], fresh: false };
      return entryChanges(deps, op, (outcome.value as WalletTransactionResult).txn_id, input.walletId, null);
    }
    case 'order-report': {
      // The entry that moved the points (none: nothing earned or nothing to take back), as for a wallet update.
      const { input, outcome } = op;
      if (!outcome.ok) return { facts: [], fresh: false };
      const { txn_id, status } = outcome.value as OrderReportResult;
      // An earning of 0 (over its caps) has an entry too: the transitions due before it moved points.
      const txnId = txn_id ?? (status === 'completed' ? orderEarnTxnId(input.walletId, input.orderId) : null);
      return txnId ? entryChanges(deps, op, txnId, input.walletId, input.orderId) : { facts: [], fresh: false };
    }
    case 'wallet-settle': {
      const { input, outcome } = op;
      if (!outcome.ok) return { facts: [], fresh: false };
      return { facts: await transitionFacts(deps, op, settleTrigger(input), input.walletId), fresh: false };
    }
    case 'redeem-gift-card':
    case 'revert-gift-card':
      // The card's own move is its only change (giftCardChanges).
      return { facts: [], fresh: true };
  }
}
