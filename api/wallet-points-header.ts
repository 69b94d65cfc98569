/**
 * `Wallet-Points` (docs/wallets.md): the pending and expiring points of a customer's wallets,
 * offered to storefronts beside the wallet read without changing its documented body (the rule
 * of docs/reasons.md: clients that do not ask for a header ignore it). One entry per wallet that
 * has any, in the body's order, joined by `, `:
 *
 *   Wallet-Points: loyalty;pending=25;available-at="2026-12-07T07:18:38.976Z";expiring=30;expires-at="2026-12-31T18:30:00.000Z"
 *
 * `pending`: points credited but not spendable yet, `available-at` the soonest of them becomes
 * spendable; `expiring`: the part of `loyalty_points` that expires, `expires-at` the soonest
 * expiry. A parameter is left out when it has nothing to say (no pending points: no `pending`).
 */
import type { Response } from 'express';
import { expiringPoints, pendingPoints, type BucketState } from '../shared/domain/point-buckets.js';
import { fromHundredths } from '../shared/domain/points.js';

export const WALLET_POINTS_HEADER = 'Wallet-Points';

/** One wallet's entry of the header. */
export function walletPointsEntry(walletId: string, state: BucketState): string {
  const parts = [walletId];
  const pending = state.buckets.filter((b) => b.availableAt);
  const expiring = state.buckets.filter((b) => !b.availableAt && b.expiresAt);
  const soonest = (ds: Date[]) => new Date(Math.min(...ds.map((d) => d.getTime()))).toISOString();
  if (pending.length > 0)
    parts.push(`pending=${fromHundredths(pendingPoints(state))}`, `available-at="${soonest(pending.map((b) => b.availableAt!))}"`);
  if (expiring.length > 0)
    parts.push(`expiring=${fromHundredths(expiringPoints(state))}`, `expires-at="${soonest(expiring.map((b) => b.expiresAt!))}"`);
  return parts.join(';');
}

/** Sets the header when any wallet has pending or expiring points. */
export function setWalletPoints(res: Response, wallets: { walletId: string; state: BucketState }[]): void {
  if (wallets.length > 0) res.setHeader(WALLET_POINTS_HEADER, wallets.map((w) => walletPointsEntry(w.walletId, w.state)).join(', '));
}
