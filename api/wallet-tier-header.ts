/**
 * `Wallet-Tier` (docs/wallets.md "Tiers"): the customer's tier in each wallet that has tiers,
 * offered beside the wallet read without changing its documented body (as `Wallet-Points` is:
 * api/wallet-points-header.ts). One entry per such wallet, in the body's order, joined by `, `:
 *
 *   Wallet-Tier: loyalty;tier="Gold";multiplier=1.5;kept-until="2027-12-31T23:00:00.000Z";earned=3200;next="Platinum";needed=1800
 *
 * `tier`: the level now; `multiplier`: its earning multiplier; `kept-until`: the end of the current
 * assessment period (the tier is kept at least until then); `earned`: the points earned in the
 * window that counts now; `next` and `needed`: the next level and the points still needed (left out
 * at the top level). Names are quoted strings (a backslash escapes `"` and `\`).
 */
import type { Response } from 'express';
import { fromHundredths } from '../shared/domain/points.js';
import type { tierProgress } from '../shared/domain/tiers.js';

export const WALLET_TIER_HEADER = 'Wallet-Tier';

const quoted = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** One wallet's entry of the header. */
export function walletTierEntry(walletId: string, p: ReturnType<typeof tierProgress>): string {
  const parts = [
    walletId,
    `tier=${quoted(p.level.name)}`,
    `multiplier=${p.level.multiplier / 100}`,
    `kept-until="${p.until.toISOString()}"`,
    `earned=${fromHundredths(p.earnedHundredths)}`,
  ];
  if (p.next) parts.push(`next=${quoted(p.next.name)}`, `needed=${fromHundredths(p.next.neededHundredths)}`);
  return parts.join(';');
}

/** Sets the header when any wallet has tiers. */
export function setWalletTier(res: Response, wallets: { walletId: string; progress: ReturnType<typeof tierProgress> }[]): void {
  if (wallets.length > 0) res.setHeader(WALLET_TIER_HEADER, wallets.map((w) => walletTierEntry(w.walletId, w.progress)).join(', '));
}
