import { useQuery } from '@tanstack/react-query';
import { admin, must, type ApplicationResults } from '../api';
import { ChartAndTable } from '../chart-table';
import { formatMoney } from '../money';
import { ErrorLine } from '../parts';
import { hrefOf } from '../route';
import { localDayInWords } from '../when';

/**
 * The application's results over the last 30 days, day by day (`GET …/results`, the API's default
 * range): every campaign added up, and each campaign's own totals — one call for the whole
 * campaigns page, never one per campaign. Refreshed every 30 s.
 */
export function useApplicationResults(app: string) {
  return useQuery({
    queryKey: ['application-results', app],
    queryFn: async () => {
      const data = await must(admin.GET('/admin/applications/{app}/results', { params: { path: { app } } }));
      // The route answers CSV only when asked (format=csv).
      if (typeof data === 'string') throw new Error('The service answered a CSV file where figures were asked.');
      return data;
    },
    refetchInterval: 30_000,
  });
}

export type CampaignTotals = ApplicationResults['campaigns'][number];

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** Above the campaigns list: what every campaign did in the last 30 days, in a sentence and a small chart with its table. */
export function ResultsSummary({ results, error }: { results: ApplicationResults | undefined; error: Error | null }) {
  if (error) return <ErrorLine error={error} />;
  if (!results) return null;
  const t = results.totals;
  const money = (n: number | null) => (n === null ? '—' : formatMoney(n, results.currency));
  return (
    <section aria-labelledby="summary-heading" className="summary">
      <h2 id="summary-heading">Last 30 days</h2>
      <p data-testid="summary-totals">
        {plural(t.redemptions, 'redemption', 'redemptions')}
        {t.reverts > 0 && ` (and ${t.reverts.toLocaleString()} reverted since)`}, {money(t.discount)} discount
        {t.cashback > 0 && `, ${money(t.cashback)} cashback`} given, {plural(t.refusals, 'refusal', 'refusals')}.{' '}
        <span className="hint">
          Every campaign, {localDayInWords(results.from)} to {localDayInWords(results.to)} on the application’s clock ({results.timezone}
          ). Each campaign’s own results are linked in the list.
        </span>
      </p>
      <ChartAndTable
        title="Redemptions of every campaign by day"
        rows={results.series}
        counts
        compact
        height={140}
        axisValue={(n) => n.toLocaleString()}
        figures={[{ key: 'redemptions', name: 'Redemptions', color: '#0b5cad', format: (n) => (n ?? 0).toLocaleString() }]}
      />
    </section>
  );
}

/** A campaign's row: what it did in the last 30 days, and a link to its results. */
export function CampaignTotalsCell({
  app,
  campaign,
  name,
  totals,
  currency,
  loading,
}: {
  app: string;
  campaign: string;
  name: string;
  totals: CampaignTotals | undefined;
  currency: string | null;
  loading: boolean;
}) {
  const money = (n: number) => formatMoney(n, currency);
  return (
    <>
      <span data-testid="last-30-days">
        {loading
          ? '…'
          : totals
            ? `${plural(totals.redemptions, 'redemption', 'redemptions')}, ${money(totals.discount)} discount${totals.cashback > 0 ? `, ${money(totals.cashback)} cashback` : ''}`
            : 'none'}
      </span>{' '}
      <a href={hrefOf({ page: 'results', app, campaign })} aria-label={`Results of ${name}`}>
        Results
      </a>
    </>
  );
}
