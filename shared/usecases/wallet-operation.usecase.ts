/**
 * Wallet credit/debit. `prepareWalletOperation` runs in the API (synchronous validation, the
 * documented 400/404s before anything is queued); `applyWalletOperation` runs in the worker,
 * serialised per customer, and is safe to re-run (see wallet-ledger.ts).
 */
import { tierMultiplierOf, tierProgress, type TierContext } from '../domain/tiers.js';
import { balanceIdOf } from '../data/wallet-balance.repository.js';
import { fromHundredths, hasAtMostTwoDecimals, toHundredths } from '../domain/points.js';
import type { CustomerRecord } from '../data/customer.repository.js';
import type { WalletRecord } from '../data/wallet.repository.js';
import type { Services } from '../services.js';
import type { WalletOperationInput } from '../queue/job-payloads.js';
import type { JobRun } from './job-run.js';
import { postLedgerEntry, type PostEntryInput } from './wallet-ledger.js';
import { settledAsOf, type CreditRules, type PendingRule } from '../domain/point-buckets.js';
import { customerNotFound, insufficientPoints, invalidField, payloadEmpty, typeMissing, walletNotFound } from '../client-errors.js';
import type { PreparedOperation } from '../queue/gateway.js';
import { JOB } from '../queue/names.js';
import { operationIdOf, type Operation } from './idempotency.js';

/** The contract's Wallet transaction result object. */
export interface WalletTransactionResult {
  requestId: string;
  txn_id: string;
  id: string;
  wallet_id: string;
  loyalty_points: number;
  previous_loyalty_points: number;
  points: number;
  description: string;
}

/** The most points one operation may move (a wallet update's `points`, what one reported order earns). */
export const MAX_POINTS = 1e9;
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Validates a wallet update in the documented order; resolves customer and wallet. */
export async function prepareWalletOperation(
  deps: Pick<Services, 'repos' | 'wallets'>,
  req: { applicationId: string; sourceId: string; walletId: string; body: unknown; txnId: string; requestId: string },
): Promise<WalletOperationInput> {
  const body = isPlainObject(req.body) ? req.body : {};
  const hasType = body.type !== undefined && body.type !== null && body.type !== '';
  const hasPoints = body.points !== undefined && body.points !== null;
  if (!hasType && !hasPoints) throw payloadEmpty();
  if (!hasType) throw typeMissing();
  if (!hasPoints) throw payloadEmpty();
  if (body.type !== 'credit' && body.type !== 'debit') throw invalidField('type', 'type should be credit or debit');
  const points = body.points;
  if (typeof points !== 'number' || !Number.isFinite(points) || points <= 0 || points > MAX_POINTS || !hasAtMostTwoDecimals(points)) {
    throw invalidField('points', `points should be a number greater than 0 with at most 2 decimals and at most ${MAX_POINTS}`);
  }
  const description = body.description ?? '';
  if (typeof description !== 'string' || description.length > 500) {
    throw invalidField('description', 'description should be a string of at most 500 characters');
  }
  const [customer, wallet] = await Promise.all([
    deps.repos.customers.resolve(req.applicationId, req.sourceId),
    liveWallet(deps, req.applicationId, req.walletId),
  ]);
  if (!customer) throw customerNotFound();
  if (!wallet) throw walletNotFound();
  return walletOperationInput(req, customer, wallet, { type: body.type, points, description });
}

/** The operation of a wallet update: its job, whose ledger id derives from the operation key (a retry collides in the ledger). */
export async function prepareWalletJob(
  deps: Pick<Services, 'repos' | 'wallets'>,
  req: { applicationId: string; sourceId: string; walletId: string; body: unknown; requestId: string },
  op: Operation,
): Promise<PreparedOperation> {
  const payload = await prepareWalletOperation(deps, { ...req, txnId: operationIdOf(req.applicationId, op.operationKey) });
  return { job: { name: JOB.walletTransaction, customerId: payload.customerId, payload } };
}

/**
 * An application's live (unarchived) wallet, from this process's cache (`Services.wallets`): a
 * wallet created, archived or changed through the admin API is forgotten by every process before
 * that change answers (shared/cache/config-changes.ts), so the next update sees it — as campaigns
 * are. A wallet not found is not remembered (one created a moment ago is found at once).
 */
export function liveWallet(deps: Pick<Services, 'wallets'>, applicationId: string, walletId: string): Promise<WalletRecord | null> {
  return deps.wallets.get(`${applicationId}:${walletId}`);
}

/** The wallet job's payload for a checked operation on a resolved customer and wallet (a wallet update, or an operator's adjustment: `origin`). */
export function walletOperationInput(
  req: { applicationId: string; txnId: string; requestId: string },
  customer: Pick<CustomerRecord, 'id' | 'sourceId'>,
  wallet: Pick<WalletRecord, 'id' | 'walletId' | 'timezone' | 'pointsExpiry' | 'pendingCredits' | 'tiers'>,
  op: { type: 'credit' | 'debit'; points: number; description: string; origin?: 'admin' },
): WalletOperationInput {
  const rules = op.type === 'credit' ? creditRulesOf(wallet) : undefined;
  const tiers = tierContextOf(wallet);
  return {
    applicationId: req.applicationId,
    customerId: customer.id,
    sourceId: customer.sourceId,
    walletDbId: wallet.id,
    walletId: wallet.walletId,
    type: op.type,
    points: toHundredths(op.points),
    description: op.description,
    txnId: req.txnId,
    requestId: req.requestId,
    ...(op.origin ? { origin: op.origin } : {}),
    ...(rules ? { rules } : {}),
    ...(tiers ? { tiers } : {}),
  };
}

/**
 * The earning multiplier of the customer's tier in `wallet` now (100: none, or no tiers): read from
 * its balance, with any re-assessment due applied as the customer's next entry will post it.
 */
export async function customerTierMultiplier(
  deps: Pick<Services, 'repos' | 'now'>,
  applicationId: string,
  customerId: string,
  wallet: Pick<WalletRecord, 'id' | 'timezone' | 'tiers'>,
): Promise<number> {
  const ctx = tierContextOf(wallet);
  if (!ctx) return 100;
  const balance = await deps.repos.walletBalances.findById(balanceIdOf(applicationId, customerId, wallet.id));
  return tierMultiplierOf(ctx, balance?.tier, deps.now());
}

/** The wallet's tiers with the timezone their months are read in; null when it has none. */
export function tierContextOf(wallet: Pick<WalletRecord, 'timezone' | 'tiers'>): TierContext | null {
  return wallet.tiers ? { program: wallet.tiers, timezone: wallet.timezone } : null;
}

/** The rules a credit to `wallet` is made under now; undefined when its points neither expire nor wait. */
export function creditRulesOf(
  wallet: Pick<WalletRecord, 'timezone' | 'pointsExpiry' | 'pendingCredits'>,
  pending: PendingRule = wallet.pendingCredits,
): CreditRules | undefined {
  if (!wallet.pointsExpiry && !pending) return undefined;
  return { expiry: wallet.pointsExpiry, pending, timezone: wallet.timezone };
}

/**
 * Applies the operation (worker side). Refuses a debit above the balance (docs/decisions.md#22). Tells
 * `run` about the entry when this call wrote it (not when a re-run or replay found it).
 */
export async function applyWalletOperation(
  deps: Pick<Services, 'repos' | 'now'>,
  input: WalletOperationInput,
  run?: Pick<JobRun, 'observe'>,
): Promise<WalletTransactionResult> {
  const entry: PostEntryInput = {
    applicationId: input.applicationId,
    customerId: input.customerId,
    walletDbId: input.walletDbId,
    txnId: input.txnId,
    type: input.type,
    points: input.points,
    description: input.description,
    origin: input.origin ?? 'api',
    ...(input.rules ? { rules: input.rules } : {}),
    tiers: input.tiers ?? null,
  };
  const result = await postLedgerEntry(deps, entry);
  if (result.state === 'applied' && result.written)
    run?.observe?.({ kind: 'ledger', txnId: input.txnId, posted: { input: entry, result } });
  if (result.state === 'refused') throw insufficientPoints(fromHundredths(result.balance), fromHundredths(input.points));
  if (result.state === 'void') throw new Error(`wallet transaction ${input.txnId} was voided`); // only cashback txn ids are
  return {
    requestId: input.requestId,
    txn_id: input.txnId,
    id: input.customerId,
    wallet_id: input.walletId,
    loyalty_points: fromHundredths(result.after),
    previous_loyalty_points: fromHundredths(result.before),
    points: fromHundredths(result.points),
    description: input.description,
  };
}

/**
 * Wallet read: every wallet of the application with the customer's spendable points (`wallets`,
 * the contract's body), and the pending and expiring points of those that have any (`buckets`:
 * offered beside the body, in a header — api/wallet-points-header.ts; docs/wallets.md). As of now:
 * transitions due but not settled yet (the sweep runs every EXPIRY_SWEEP_MS) are applied to what is
 * shown, exactly as the customer's next operation will post them first.
 */
export async function readCustomerWallets(deps: Pick<Services, 'repos' | 'now'>, req: { applicationId: string; sourceId: string }) {
  const customer = await deps.repos.customers.resolve(req.applicationId, req.sourceId);
  if (!customer) throw customerNotFound();
  const [wallets, balances] = await Promise.all([
    deps.repos.wallets.listByApplication(req.applicationId),
    deps.repos.walletBalances.listByCustomer(req.applicationId, customer.id),
  ]);
  const now = deps.now();
  const byWallet = new Map(balances.map((b) => [b.walletDbId, b.buckets.length > 0 ? settledAsOf(b, now) : b]));
  const tierOf = new Map(balances.map((b) => [b.walletDbId, b.tier]));
  return {
    wallets: wallets.map((w) => ({ ...presentWallet(w), loyalty_points: fromHundredths(byWallet.get(w.id)?.points ?? 0) })),
    buckets: wallets.flatMap((w) => {
      const state = byWallet.get(w.id);
      return state && state.buckets.length > 0 ? [{ walletId: w.walletId, state }] : [];
    }),
    // The customer's tier in each wallet that has tiers (a header too: api/wallet-tier-header.ts).
    tiers: wallets.flatMap((w) => {
      const ctx = tierContextOf(w);
      return ctx ? [{ walletId: w.walletId, progress: tierProgress(ctx, tierOf.get(w.id), now) }] : [];
    }),
  };
}

/** The contract's Wallet object fields (without the balance), also the admin API's wallet shape. */
export const presentWallet = (w: WalletRecord) => ({
  wallet_id: w.walletId,
  wallet_name: w.name,
  currency: w.currency,
  singular_unit_name: w.singularUnitName,
  plural_unit_name: w.pluralUnitName,
  timezone: w.timezone,
});
