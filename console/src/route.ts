/**
 * Where the console is: the part of the URL after `#`, e.g. `#/applications/app_1/campaigns`.
 * Hash routes need nothing of the server (it serves one index.html) and survive a reload.
 */
import { useEffect, useState } from 'react';

export type Route =
  /** `settings`: the application whose promotion settings are open (`#/applications/<app>/settings`). */
  | { page: 'applications'; settings?: string }
  | { page: 'campaigns'; app: string }
  | { page: 'codes'; app: string; campaign: string }
  | { page: 'results'; app: string; campaign: string }
  | { page: 'campaign'; app: string; campaign?: string; copyOf?: string }
  | { page: 'try'; app: string }
  | { page: 'redemptions'; app: string }
  | { page: 'calendar'; app: string }
  | { page: 'customers'; app: string }
  | { page: 'customer'; app: string; customer: string }
  | { page: 'webhooks'; app: string }
  | { page: 'wallets'; app: string }
  | { page: 'gift-cards'; app: string }
  /** An application's backtests; `backtest`: one of them; `campaign`: the form starts on that campaign. */
  | { page: 'backtests'; app: string; backtest?: string; campaign?: string }
  | { page: 'deliveries'; app: string; webhook: string }
  | { page: 'audit'; app?: string }
  | { page: 'people' };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [top, app, section, id, sub] = parts;
  if (top === 'applications' && app) {
    if (section === 'campaigns' && id && sub === 'codes') return { page: 'codes', app, campaign: id };
    if (section === 'campaigns' && id && sub === 'results') return { page: 'results', app, campaign: id };
    if (section === 'campaigns' && id === 'new') return { page: 'campaign', app };
    if (section === 'campaigns' && id && sub === 'edit') return { page: 'campaign', app, campaign: id };
    if (section === 'campaigns' && id && sub === 'copy') return { page: 'campaign', app, copyOf: id };
    if (section === 'campaigns' && id && sub === 'backtest') return { page: 'backtests', app, campaign: id };
    if (section === 'campaigns') return { page: 'campaigns', app };
    if (section === 'try') return { page: 'try', app };
    if (section === 'redemptions') return { page: 'redemptions', app };
    if (section === 'calendar') return { page: 'calendar', app };
    if (section === 'customers' && id) return { page: 'customer', app, customer: id };
    if (section === 'customers') return { page: 'customers', app };
    if (section === 'webhooks' && id) return { page: 'deliveries', app, webhook: id };
    if (section === 'webhooks') return { page: 'webhooks', app };
    if (section === 'wallets') return { page: 'wallets', app };
    if (section === 'gift-cards') return { page: 'gift-cards', app };
    if (section === 'backtests') return id ? { page: 'backtests', app, backtest: id } : { page: 'backtests', app };
    if (section === 'settings') return { page: 'applications', settings: app };
  }
  if (parts[0] === 'people') return { page: 'people' };
  if (parts[0] === 'audit') return parts[1] ? { page: 'audit', app: parts[1] } : { page: 'audit' };
  return { page: 'applications' };
}

export function hrefOf(route: Route): string {
  const app = 'app' in route && route.app ? `#/applications/${encodeURIComponent(route.app)}` : '';
  switch (route.page) {
    case 'applications':
      return route.settings ? `#/applications/${encodeURIComponent(route.settings)}/settings` : '#/applications';
    case 'campaigns':
      return `${app}/campaigns`;
    case 'campaign':
      if (route.copyOf) return `${app}/campaigns/${encodeURIComponent(route.copyOf)}/copy`;
      return route.campaign ? `${app}/campaigns/${encodeURIComponent(route.campaign)}/edit` : `${app}/campaigns/new`;
    case 'codes':
      return `${app}/campaigns/${encodeURIComponent(route.campaign)}/codes`;
    case 'results':
      return `${app}/campaigns/${encodeURIComponent(route.campaign)}/results`;
    case 'try':
      return `${app}/try`;
    case 'redemptions':
      return `${app}/redemptions`;
    case 'calendar':
      return `${app}/calendar`;
    case 'customers':
      return `${app}/customers`;
    case 'customer':
      return `${app}/customers/${encodeURIComponent(route.customer)}`;
    case 'webhooks':
      return `${app}/webhooks`;
    case 'wallets':
      return `${app}/wallets`;
    case 'gift-cards':
      return `${app}/gift-cards`;
    case 'backtests':
      if (route.backtest) return `${app}/backtests/${encodeURIComponent(route.backtest)}`;
      return route.campaign ? `${app}/campaigns/${encodeURIComponent(route.campaign)}/backtest` : `${app}/backtests`;
    case 'deliveries':
      return `${app}/webhooks/${encodeURIComponent(route.webhook)}`;
    case 'audit':
      return route.app ? `#/audit/${encodeURIComponent(route.app)}` : '#/audit';
    case 'people':
      return '#/people';
  }
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}
