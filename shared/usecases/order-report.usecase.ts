/**
 * Orders reported by the storefront (docs/wallets.md "Orders reported by the storefront"): an order
 * completed earns what the wallet's earning rules give it; an order returned takes back what it
 * earned. Queued on the customer's partition like every wallet operation.
 *
 * Exactly once per customer, wallet and `order_id`, whatever the repeats, races and crashes — the
 * protocol of a redemption's cashback (shared/usecases/apply/cashback.ts), on the ledger's txn ids:
 *  - completed: a credit under `order:<wallet>:<order_id>` (a repeat collides with it and answers
 *    what it recorded);
 *  - returned: that txn id is voided first, so a completion reported later (or a re-run of one
 *    queued before) can never post; if it was credited, a debit under `order-return:…` of what it
 *    credited, at most the balance (the points may have been spent), a pending credit cancelled
 *    instead.
 * The points are decided by the API when the order is reported, under the rules of that moment
 * (as a credit carries its wallet's expiry settings): a later change of the rules applies to later
 * orders only. The rules' period caps are applied by the worker, on the counters the customer's
 * balance keeps (shared/usecases/wallet-ledger.ts): racing orders cannot pass a cap, and a
 * return gives back what its order counted.
 */
import { invalidPayload, customerNotFound, walletNotFound } from '../client-errors.js';
import { orderEarns, type EarnedInPeriod } from '../domain/earning.js';
import { parseOrder, type ParsedItem, type ParseResult } from '../domain/order.js';
import { fromHundredths, toHundredths } from '../domain/points.js';
import type { PreparedOperation } from '../queue/gateway.js';
import type { OrderReportInput } from '../queue/job-payloads.js';
import { JOB } from '../queue/names.js';
import type { Services } from '../services.js';
import { failpoint } from './failpoint.js';
import type { JobRun } from './job-run.js';
import { creditToTakeBack, postLedgerEntry, type PostEntryInput, type PostEntryResult } from './wallet-ledger.js';
import { creditRulesOf, customerTierMultiplier, liveWallet, MAX_POINTS, tierContextOf } from './wallet-operation.usecase.js';
import type { TierContext } from '../domain/tiers.js';

export const orderEarnTxnId = (walletId: string, orderId: string) => `order:${walletId}:${orderId}`;
export const orderReturnTxnId = (walletId: string, orderId: string) => `order-return:${walletId}:${orderId}`;

/** The answer of a report: what moved (0 when nothing did), and the balance around it when an entry moved it. */
export interface OrderReportResult {
  order_id: string;
  status: 'completed' | 'returned';
  wallet_id: string;
  /** Points earned (completed) or taken back (returned). */
  points: number;
  /** The ledger entry that moved them; null when nothing moved (nothing earned, nothing to take back). */
  txn_id: string | null;
  previous_loyalty_points: number | null;
  loyalty_points: number | null;
  /** True when the points wait out the wallet's pending period (or, for a return, a pending credit was cancelled). */
  pending: boolean;
  /** A partial return's id, as sent (absent otherwise). */
  return_id?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const STATUSES = ['completed', 'returned'] as const;

/** The lines of a partial return as an order of their own: its subtotals are the lines' sums. */
function returnedLines(items: unknown[]): ParseResult {
  const parsed = parseOrder({ selling_price_subtotal: 1, original_price_subtotal: 1, items });
  if (!parsed.ok) return parsed;
  const lines = parsed.order.items;
  const sum = (f: (i: ParsedItem) => number) => lines.reduce((n, i) => n + f(i), 0);
  return {
    ok: true,
    order: {
      ...parsed.order,
      sellingSubtotalCents: sum((i) => i.sellingLineCents),
      originalSubtotalCents: sum((i) => i.originalLineCents),
    },
  };
}

/** API side: the documented checks, the customer and wallet, and for a completed order what it earns now. */
export async function prepareOrderReport(
  deps: Pick<Services, 'repos' | 'wallets' | 'now'>,
  req: { applicationId: string; sourceId: string; walletId: string; body: unknown; requestId: string },
): Promise<PreparedOperation> {
  const body = isObject(req.body) ? req.body : {};
  const order = body.order;
  if (!isObject(order)) throw invalidPayload('order is required');
  if (typeof order.order_id !== 'string' || order.order_id.trim() === '') throw invalidPayload('order_id is required');
  if (order.order_id.length > 256) throw invalidPayload('order_id should be at most 256 characters');
  const status = order.status;
  if (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status))
    throw invalidPayload('status should be completed or returned');
  // A return needs only the order's id: it takes back what the completion earned. A partial return
  // names itself (`return_id`) and the lines that came back (`items`, as the order sent them).
  const returnId = status === 'returned' ? order.return_id : undefined;
  if (returnId !== undefined && (typeof returnId !== 'string' || returnId.trim() === '' || returnId.length > 256))
    throw invalidPayload('return_id should be a string of 1 to 256 characters');
  if (returnId !== undefined && (!Array.isArray(order.items) || order.items.length === 0))
    throw invalidPayload('items is required for a partial return: the lines that came back');
  const parsed = status === 'completed' ? parseOrder(order) : returnId !== undefined ? returnedLines(order.items as unknown[]) : null;
  if (parsed && !parsed.ok) throw invalidPayload(parsed.message);
  const [customer, wallet] = await Promise.all([
    deps.repos.customers.resolve(req.applicationId, req.sourceId),
    liveWallet(deps, req.applicationId, req.walletId),
  ]);
  if (!customer) throw customerNotFound();
  if (!wallet) throw walletNotFound();
  // Before the period caps: those are applied by the worker, on the customer's counters at the ledger's slot.
  // A partial return's lines: what they earn, without the minimum order (the order reached it, or earned nothing to take back).
  const rules = returnId === undefined ? wallet.earningRules : wallet.earningRules?.map((r) => ({ ...r, minOrderCents: null }));
  // The customer's tier multiplier now (a partial return's lines earn as the order did: its own figure bounds what it takes).
  const tiers = tierContextOf(wallet);
  const tierMultiplier = status === 'completed' ? await customerTierMultiplier(deps, req.applicationId, customer.id, wallet) : 100;
  const earned = parsed?.ok ? orderEarns(rules, parsed.order, { tierMultiplier }) : null;
  const points = earned?.hundredths ?? 0;
  // As a wallet update's points are bounded: an order of absurd amounts must not move a balance past exact integers.
  if (points > toHundredths(MAX_POINTS)) throw invalidPayload(`the order would earn more than ${MAX_POINTS} points`);
  const creditRules = creditRulesOf(wallet);
  const payload: OrderReportInput = {
    applicationId: req.applicationId,
    customerId: customer.id,
    sourceId: customer.sourceId,
    walletDbId: wallet.id,
    walletId: wallet.walletId,
    orderId: order.order_id,
    status: status as OrderReportInput['status'],
    points,
    requestId: req.requestId,
    ...(creditRules && status === 'completed' ? { rules: creditRules } : {}),
    ...(tiers ? { tiers } : {}),
    ...(returnId !== undefined ? { returnId } : {}),
    ...(status === 'completed' && earned?.rules.some((r) => r.cap)
      ? { earning: { timezone: wallet.timezone, rules: earned.rules.map((r) => ({ rule: r.name, hundredths: r.hundredths, cap: r.cap })) } }
      : {}),
  };
  return { job: { name: JOB.orderReport, customerId: customer.id, payload } };
}

/** Which customer's balance in which wallet an order's earning concerns. */
export interface OrderWallet {
  applicationId: string;
  customerId: string;
  walletDbId: string;
  walletId: string;
  orderId: string;
  /** The wallet's tiers (absent or null: none): the earning counts toward the customer's tier, a return gives it back. */
  tiers?: TierContext | null;
}

/** An earning posted (or found posted), or taken back: what was asked and what happened; null when nothing was. */
type Moved = { posted: PostEntryInput; result: PostEntryResult } | null;

/**
 * Posts what an order earns in one wallet, exactly once (txn id `order:<wallet>:<order_id>`): the
 * points before the period caps, the wallet's credit rules, and for capped rules each rule's figure
 * (the ledger applies the caps). Tells `run` about the entry when this call wrote points.
 */
export async function postOrderEarning(
  deps: Pick<Services, 'repos' | 'now' | 'config'>,
  at: OrderWallet,
  earn: Pick<OrderReportInput, 'points' | 'rules' | 'earning'>,
  run?: Pick<JobRun, 'observe'>,
): Promise<Moved> {
  // Nothing earned: no entry (a return later finds none and voids the txn id).
  if (earn.points <= 0) return null;
  const posted: PostEntryInput = {
    applicationId: at.applicationId,
    customerId: at.customerId,
    walletDbId: at.walletDbId,
    txnId: orderEarnTxnId(at.walletId, at.orderId),
    type: 'credit',
    points: earn.points,
    description: `earned: order ${at.orderId}`,
    origin: 'order',
    ...(earn.rules ? { rules: earn.rules } : {}),
    ...(earn.earning ? { earning: earn.earning } : {}),
    tiers: at.tiers ?? null,
  };
  return observed(run, posted, await postLedgerEntry(deps, posted), deps);
}

/** A partial return: its id (the storefront's) and what its lines earn (hundredths, before the earning's own figure bounds it). */
export interface PartialReturn {
  returnId: string;
  points: number;
}

/** What a return after `taken` of `ask` gives back to each cap the earning counted toward: its share, exactly, summing to the whole at the end. */
function releasesOf(counted: readonly EarnedInPeriod[] | undefined, earned: number, taken: number, ask: number): EarnedInPeriod[] {
  const share = (c: EarnedInPeriod, upTo: number) => Number((BigInt(c.hundredths) * BigInt(upTo)) / BigInt(earned));
  return (counted ?? []).map((c) => ({ ...c, hundredths: share(c, taken + ask) - share(c, taken) })).filter((c) => c.hundredths > 0);
}

/**
 * Takes back what an order earned in one wallet — all of it (a return of the order), or a part (a
 * partial return: what its lines earn, at most what is left) — each return exactly once:
 *  1. the whole order: its earning's txn id is voided if it never posted (a completion reported or
 *     redeemed later never earns); a partial return of an order with no earning takes nothing;
 *  2. the return is recorded on the earning's entry, compare-and-set on the count of returns there,
 *     with what it takes back and gives back to the caps — so returns decided at once (a lost job
 *     lock) never take back more than was earned, and a re-run finds its decision;
 *  3. the debit of what it takes back, at most the balance (a pending credit reduced or cancelled
 *     instead), under `order-return:<wallet>:<order>` (the whole order) or `…#<return_id>`.
 */
export async function takeBackOrderEarning(
  deps: Pick<Services, 'repos' | 'now' | 'config'>,
  at: OrderWallet,
  run?: Pick<JobRun, 'observe'>,
  part?: PartialReturn,
): Promise<Moved> {
  const earnTxnId = orderEarnTxnId(at.walletId, at.orderId);
  const whole = orderReturnTxnId(at.walletId, at.orderId);
  const entry = { applicationId: at.applicationId, customerId: at.customerId, walletDbId: at.walletDbId };
  const key = part?.returnId ?? '*';
  for (let round = 0; round < 10; round++) {
    const credit = part
      ? await deps.repos.walletTransactions.findByTxnId(at.applicationId, at.customerId, earnTxnId)
      : await creditToTakeBack(deps, {
          ...entry,
          txnId: earnTxnId,
          description: `earning voided: order ${at.orderId} returned`,
          origin: 'order_return',
        });
    failpoint(deps, 'order-after-void');
    // Nothing to take back: never credited, or every point was over a period cap (which it counted nothing toward).
    if (!credit || credit.stored !== 'posted' || credit.points === 0) return null;
    const returns = credit.returns ?? [];
    let mine = returns.find((r) => r.returnId === key);
    if (!mine) {
      // The whole order returned already — recorded, or (before returns were recorded) posted alone.
      if (returns.some((r) => r.returnId === '*')) return null;
      if (part && (await deps.repos.walletTransactions.findByTxnId(at.applicationId, at.customerId, whole))) return null;
      const taken = returns.reduce((n, r) => n + r.points, 0);
      const left = credit.points - taken;
      const ask = part ? Math.min(part.points, left) : left;
      if (ask <= 0) return null;
      const releases = releasesOf(credit.periodCounted, credit.points, taken, ask);
      mine = { returnId: key, points: ask, ...(releases.length ? { releases } : {}) };
      if (!(await deps.repos.walletTransactions.recordReturn(at.applicationId, at.customerId, credit.id, returns.length, mine))) continue;
      failpoint(deps, 'return-after-record');
    }
    const posted: PostEntryInput = {
      ...entry,
      txnId: part ? `${whole}#${part.returnId}` : whole,
      type: 'debit',
      points: mine.points,
      description: part ? `returned: part of order ${at.orderId} (${part.returnId})` : `returned: order ${at.orderId}`,
      origin: 'order_return',
      clampToBalance: true,
      takesBack: earnTxnId,
      ...(mine.releases?.length ? { releases: mine.releases } : {}),
      tiers: at.tiers ?? null,
      ...(credit.tierCounted ? { tierRelease: credit.tierCounted } : {}),
    };
    return observed(run, posted, await postLedgerEntry(deps, posted), deps);
  }
  throw new Error(`order return made no progress for order ${at.orderId}`);
}

function observed(
  run: Pick<JobRun, 'observe'> | undefined,
  posted: PostEntryInput,
  result: PostEntryResult,
  deps: Pick<Services, 'config'>,
) {
  failpoint(deps, 'order-after-post');
  // Every point over a period cap: the entry of 0 records the decision, nothing moved.
  if (result.state === 'applied' && result.points > 0 && result.written)
    run?.observe?.({ kind: 'ledger', txnId: posted.txnId, posted: { input: posted, result } });
  return { posted, result };
}

/** Worker side: posts the earning or takes it back, exactly once (see the file's comment). */
export async function applyOrderReport(
  deps: Pick<Services, 'repos' | 'now' | 'config'>,
  input: OrderReportInput,
  run?: Pick<JobRun, 'observe'>,
): Promise<OrderReportResult> {
  const nothing: OrderReportResult = {
    order_id: input.orderId,
    status: input.status,
    wallet_id: input.walletId,
    points: 0,
    txn_id: null,
    previous_loyalty_points: null,
    loyalty_points: null,
    pending: false,
    ...(input.returnId ? { return_id: input.returnId } : {}),
  };
  const part = input.returnId ? { returnId: input.returnId, points: input.points } : undefined;
  const moved =
    input.status === 'completed' ? await postOrderEarning(deps, input, input, run) : await takeBackOrderEarning(deps, input, run, part);
  const result = moved?.result;
  // Voided: the order was returned before this completion ran. Refused cannot happen (a credit, or a clamped debit).
  if (!moved || result?.state !== 'applied' || result.points === 0) return nothing;
  return {
    ...nothing,
    points: fromHundredths(result.points),
    txn_id: moved.posted.txnId,
    previous_loyalty_points: fromHundredths(result.before),
    loyalty_points: fromHundredths(result.after),
    pending: !!result.bucket && (result.bucket.move === 'pending' || result.bucket.move === 'cancelled'),
  };
}
