/**
 * The customer's levels that the campaigns of a request ask about (campaigns for some tiers:
 * docs/wallets.md "Tiers"), for the rules engine's `customerTiers`. Read only when a campaign of
 * the request has a tier requirement and a customer is named: one read of the customer's balances,
 * the wallets from the cache. Each level is as of now (a re-assessment due is applied, as the
 * customer's next entry will post it).
 */
import { tierProgress } from '../domain/tiers.js';
import type { Campaign } from '../domain/types.js';
import type { Services } from '../services.js';
import { liveWallet, tierContextOf } from './wallet-operation.usecase.js';

export async function customerTiers(
  deps: Pick<Services, 'repos' | 'wallets' | 'now'>,
  applicationId: string,
  customerId: string | null | undefined,
  campaigns: Iterable<Pick<Campaign, 'tierRequirement'>>,
): Promise<ReadonlyMap<string, string> | undefined> {
  if (!customerId) return undefined;
  const walletIds = new Set<string>();
  for (const c of campaigns) if (c.tierRequirement) walletIds.add(c.tierRequirement.walletId);
  if (walletIds.size === 0) return undefined;
  const [balances, wallets] = await Promise.all([
    deps.repos.walletBalances.listByCustomer(applicationId, customerId),
    Promise.all([...walletIds].map((id) => liveWallet(deps, applicationId, id))),
  ]);
  const now = deps.now();
  const levels = new Map<string, string>();
  for (const wallet of wallets) {
    const ctx = wallet ? tierContextOf(wallet) : null;
    if (!wallet || !ctx) continue;
    levels.set(wallet.walletId, tierProgress(ctx, balances.find((b) => b.walletDbId === wallet.id)?.tier, now).level.name);
  }
  return levels;
}
