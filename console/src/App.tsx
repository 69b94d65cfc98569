import { useQuery, useQueryClient } from '@tanstack/react-query';
import { admin, ApiFailure, csrf, must, type Who } from './api';
import { ApplicationsPage } from './pages/Applications';
import { AuditPage } from './pages/Audit';
import { BacktestsPage } from './pages/Backtests';
import { CalendarPage } from './pages/Calendar';
import { CampaignEditorPage } from './pages/CampaignEditor';
import { CampaignsPage } from './pages/Campaigns';
import { CodesPage } from './pages/Codes';
import { OperatorsPage } from './pages/Operators';
import { CustomerPage, CustomersPage } from './pages/Customers';
import { RedemptionsPage } from './pages/Redemptions';
import { ResultsPage } from './pages/Results';
import { SignIn } from './pages/SignIn';
import { TryCartPage } from './pages/TryCart';
import { WalletsPage } from './pages/Wallets';
import { GiftCardsPage } from './pages/GiftCards';
import { DeliveriesPage, WebhooksPage } from './pages/Webhooks';
import { pageTitle, usePageTitle } from './page-title';
import { hrefOf, useRoute } from './route';
import { MAIN_ID, SkipLink } from './skip-link';
import { useApplication } from './use-application';

export function App() {
  const queries = useQueryClient();
  const me = useQuery({
    queryKey: ['me'],
    queryFn: () => must(admin.GET('/admin/operators/me')),
    retry: false,
  });
  const route = useRoute();
  const signInShown = me.error instanceof ApiFailure && me.error.status === 401;
  const application = useApplication(me.data && 'app' in route ? route.app : undefined);
  usePageTitle(signInShown ? pageTitle('sign-in') : pageTitle(route, application.data?.name));

  if (me.isPending) return <p className="loading">Loading…</p>;
  if (me.error) {
    if (signInShown)
      return (
        <>
          <SkipLink />
          <SignIn onSignedIn={() => void queries.invalidateQueries({ queryKey: ['me'] })} />
        </>
      );
    return <p role="alert">The service did not answer: {me.error.message}</p>;
  }
  const who: Who = {
    email: 'email' in me.data ? ((me.data as { email?: string }).email ?? null) : null,
    role: me.data.role,
    canChange: me.data.role !== 'viewer',
  };

  async function signOut() {
    await admin.DELETE('/admin/sessions/current');
    csrf.set(null);
    queries.clear();
    await queries.invalidateQueries({ queryKey: ['me'] });
  }

  return (
    <>
      <SkipLink />
      <header className="top">
        <span className="brand">Promotions console</span>
        <nav aria-label="Main">
          <a href={hrefOf({ page: 'applications' })} aria-current={route.page !== 'audit' && route.page !== 'people' ? 'page' : undefined}>
            Applications
          </a>
          <a href={hrefOf({ page: 'audit' })} aria-current={route.page === 'audit' ? 'page' : undefined}>
            Audit log
          </a>
          {me.data.kind === 'operator' && (
            <a href={hrefOf({ page: 'people' })} aria-current={route.page === 'people' ? 'page' : undefined}>
              People
            </a>
          )}
          <a href="/admin/queues">Queues (Bull Board)</a>
          {me.data.service.metrics && <a href="/metrics">Metrics</a>}
        </nav>
        <span className="who">
          {who.email ?? 'admin token'} · <span className="role">{who.role}</span>{' '}
          <button type="button" className="link" onClick={() => void signOut()}>
            Sign out
          </button>
        </span>
      </header>
      <main id={MAIN_ID} tabIndex={-1}>
        {route.page === 'applications' && <ApplicationsPage key={route.settings ?? ''} who={who} settings={route.settings} />}
        {route.page === 'campaigns' && <CampaignsPage app={route.app} who={who} />}
        {route.page === 'campaign' && (
          <CampaignEditorPage
            key={route.campaign ?? (route.copyOf ? `copy-${route.copyOf}` : 'new')}
            app={route.app}
            campaign={route.campaign}
            copyOf={route.copyOf}
            who={who}
          />
        )}
        {route.page === 'codes' && <CodesPage app={route.app} campaign={route.campaign} who={who} />}
        {route.page === 'results' && <ResultsPage key={route.campaign} app={route.app} campaign={route.campaign} />}
        {route.page === 'try' && <TryCartPage app={route.app} />}
        {route.page === 'redemptions' && <RedemptionsPage app={route.app} />}
        {route.page === 'calendar' && <CalendarPage app={route.app} />}
        {route.page === 'customers' && <CustomersPage app={route.app} />}
        {route.page === 'customer' && <CustomerPage app={route.app} customer={route.customer} who={who} />}
        {route.page === 'webhooks' && <WebhooksPage app={route.app} who={who} />}
        {route.page === 'wallets' && <WalletsPage app={route.app} who={who} />}
        {route.page === 'gift-cards' && <GiftCardsPage app={route.app} who={who} />}
        {route.page === 'backtests' && (
          <BacktestsPage
            key={route.backtest ?? route.campaign ?? ''}
            app={route.app}
            backtest={route.backtest}
            campaign={route.campaign}
            who={who}
          />
        )}
        {route.page === 'deliveries' && <DeliveriesPage app={route.app} webhook={route.webhook} who={who} />}
        {route.page === 'audit' && <AuditPage app={route.app} />}
        {route.page === 'people' && <OperatorsPage who={who} meId={me.data.kind === 'operator' ? (me.data.id ?? null) : null} />}
      </main>
    </>
  );
}
