/**
 * Each page's own `<title>`, read first by a screen reader and shown in the browser's tabs and
 * history: the page, the application it belongs to (by name), then the console —
 * "Campaigns — Summer shop — Coupons console".
 */
import { useEffect } from 'react';
import type { Route } from './route';

export const CONSOLE_NAME = 'Coupons console';

const PAGE_NAMES: { [P in Route['page']]: (route: Extract<Route, { page: P }>) => string } = {
  applications: () => 'Applications',
  campaigns: () => 'Campaigns',
  campaign: (r) => (r.campaign ? 'Edit campaign' : r.copyOf ? 'Copy of a campaign' : 'New campaign'),
  codes: () => 'Codes',
  results: () => 'Campaign results',
  try: () => 'Try a cart',
  redemptions: () => 'Redemptions',
  calendar: () => 'Calendar',
  customers: () => 'Customers',
  customer: (r) => `Customer ${r.customer}`,
  webhooks: () => 'Webhooks',
  wallets: () => 'Wallets',
  'gift-cards': () => 'Gift cards',
  backtests: (r) => (r.backtest ? 'Backtest' : 'Backtests'),
  deliveries: () => 'Webhook deliveries',
  audit: () => 'Audit log',
  people: () => 'People',
};

/** The title of `route`; `applicationName` once it is known (the page's application). */
export function pageTitle(route: Route | 'sign-in', applicationName?: string | null): string {
  if (route === 'sign-in') return `Sign in — ${CONSOLE_NAME}`;
  const page = (PAGE_NAMES[route.page] as (r: Route) => string)(route);
  return [page, applicationName, CONSOLE_NAME].filter(Boolean).join(' — ');
}

export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = title;
  }, [title]);
}
