import { useQuery } from '@tanstack/react-query';
import { admin, must } from './api';

/** An application's wallets (the first 100: what a campaign's cashback and tier rule choose from). */
export function useWallets(app: string) {
  return useQuery({
    queryKey: ['wallets', app],
    queryFn: () => must(admin.GET('/admin/applications/{app}/wallets', { params: { path: { app }, query: { limit: 100 } } })),
  });
}

/** Each wallet's id and name, in the API's order (none while they load). */
export const walletPairs = (data: { wallets: { wallet_id: string; wallet_name: string }[] } | undefined): [string, string][] =>
  data?.wallets.map((w): [string, string] => [w.wallet_id, w.wallet_name]) ?? [];

/** Each wallet's name by its id: pages name a wallet, never show its id. */
export function useWalletNames(app: string): Map<string, string> {
  return new Map(walletPairs(useWallets(app).data));
}
