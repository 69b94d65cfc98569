import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { operations, paths } from '@coupons/client';
import { admin, must, type CampaignResults } from '../api';
import { ChartAndTable } from '../chart-table';
import { formatMoney, formatMoneyShort } from '../money';
import { AppCrumbs, ErrorLine, ReasonsTable } from '../parts';
import { burnInWords, limitName } from '../results-words';
import { hrefOf } from '../route';
import { useApplication } from '../use-application';
import { addDays, dayKeyIn, formatWhen, localDayInWords } from '../when';

type ResultsQuery = NonNullable<operations['campaignResults']['parameters']['query']>;

/** The periods a manager picks from: a day hour by hour, or the last days day by day, up to today on the application's clock. */
const PERIODS = [
  { id: 'today', label: 'Today, hour by hour', bucket: 'hour', days: 1, back: 0 },
  { id: 'yesterday', label: 'Yesterday, hour by hour', bucket: 'hour', days: 1, back: 1 },
  { id: '7', label: 'Last 7 days', bucket: 'day', days: 7, back: 0 },
  { id: '30', label: 'Last 30 days', bucket: 'day', days: 30, back: 0 },
  { id: '90', label: 'Last 90 days', bucket: 'day', days: 90, back: 0 },
] as const;
type PeriodId = (typeof PERIODS)[number]['id'];

/** The query of a period, its days read on `timeZone`'s calendar today. */
function rangeOf(id: PeriodId, timeZone: string | null | undefined): ResultsQuery {
  const p = PERIODS.find((x) => x.id === id)!;
  const today = dayKeyIn(new Date(), timeZone);
  const to = addDays(today, -p.back);
  return { bucket: p.bucket, from: addDays(to, -(p.days - 1)), to };
}

/**
 * The CSV of a campaign's results as a plain link: a GET, which the browser sends with the
 * session's cookie (reads need no CSRF token), and the API answers as a file with its own name.
 * The path is the spec's (a route renamed there fails the type check here).
 */
function csvHref(app: string, campaign: string, query: ResultsQuery): string {
  const path = '/admin/applications/{app}/campaigns/{campaign}/results' satisfies keyof paths;
  const search = new URLSearchParams({ ...(query as Record<string, string>), format: 'csv' });
  return `${path.replace('{app}', encodeURIComponent(app)).replace('{campaign}', encodeURIComponent(campaign))}?${search}`;
}

/**
 * A campaign's results (docs/results.md): over a period picked by name, its headline figures,
 * redemptions and reverts and the discount given as charts with their tables, refusals by reason
 * in words, and how its limits and budget burn — all on the application's clock and in its currency.
 */
export function ResultsPage({ app, campaign }: { app: string; campaign: string }) {
  const application = useApplication(app);
  const timeZone = application.data?.timezone ?? null;
  const [period, setPeriod] = useState<PeriodId>('30');
  const query = rangeOf(period, timeZone);
  const results = useQuery({
    queryKey: ['results', app, campaign, query],
    // The days are read on the application's calendar: wait for its timezone.
    enabled: application.isFetched,
    queryFn: async () => {
      const data = await must(
        admin.GET('/admin/applications/{app}/campaigns/{campaign}/results', { params: { path: { app, campaign }, query } }),
      );
      // The route answers CSV only when asked (format=csv; the download link does).
      if (typeof data === 'string') throw new Error('The service answered a CSV file where figures were asked.');
      return data;
    },
    refetchInterval: 30_000,
    placeholderData: (previous) => previous,
  });
  const r = results.data;
  const name = r?.name;
  return (
    <>
      <AppCrumbs app={app}>{name ? <a href={hrefOf({ page: 'campaign', app, campaign })}>{name}</a> : '…'} / results</AppCrumbs>
      <h1>{name ? `Results of ${name}` : 'Campaign results'}</h1>
      <p className="hint">
        <a href={hrefOf({ page: 'campaign', app, campaign })}>Campaign settings</a> ·{' '}
        <a href={hrefOf({ page: 'codes', app, campaign })}>codes</a> · <a href={hrefOf({ page: 'redemptions', app })}>redemptions</a> ·{' '}
        <a href={hrefOf({ page: 'backtests', app, campaign })}>Backtest this campaign</a>
      </p>
      <fieldset className="period-picker">
        <legend>Period</legend>
        {PERIODS.map((p) => (
          <label key={p.id} className="inline">
            <input type="radio" name="period" value={p.id} checked={period === p.id} onChange={() => setPeriod(p.id)} /> {p.label}
          </label>
        ))}
      </fieldset>
      <ErrorLine error={results.error} />
      {!r && !results.error && <p className="loading">Loading…</p>}
      {r && <Results app={app} campaign={campaign} r={r} query={query} stale={results.isPlaceholderData} />}
    </>
  );
}

function Results({
  app,
  campaign,
  r,
  query,
  stale,
}: {
  app: string;
  campaign: string;
  r: CampaignResults;
  query: ResultsQuery;
  stale: boolean;
}) {
  const money = (n: number | null) => (n === null ? '—' : formatMoney(n, r.currency));
  const count = (n: number | null) => (n ?? 0).toLocaleString();
  const t = r.totals;
  const byHour = r.bucket === 'hour';
  const range = r.from === r.to ? localDayInWords(r.from) : `${localDayInWords(r.from)} to ${localDayInWords(r.to)}`;
  const per = byHour ? 'by hour' : 'by day';
  const cashback = t.cashback > 0;
  const budget = r.limits.some((l) => l.what === 'budget');
  const reasons = Object.entries(r.refusals_by_reason);
  const headline: [string, string, string, string?][] = [
    ['redemptions', 'Redemptions', count(t.redemptions), t.reverts ? `and ${count(t.reverts)} reverted since` : 'none reverted'],
    ['discount', 'Discount given', money(t.discount)],
    ['cashback', 'Cashback given', money(t.cashback)],
    ['basket', 'Basket value', money(t.basket), 'the orders’ subtotals'],
    ['average-discount', 'Average discount', money(t.average_discount), t.average_discount === null ? 'no redemptions' : 'per redemption'],
    ...(budget ? ([['budget-spent', 'Budget spent', money(t.budget_spent)]] as [string, string, string][]) : []),
    ['new-customers', 'New customers', count(t.new_customers), 'first redemption in this period'],
    ['customers', 'Customers in all', count(t.customers), 'since the campaign started'],
    ['refusals', 'Refusals', count(t.refusals)],
  ];
  return (
    <div aria-busy={stale}>
      <p data-testid="results-range">
        {range}, {byHour ? 'hour by hour' : 'day by day'}, on the application’s clock ({r.timezone}); money in{' '}
        {r.currency ?? 'the shop’s units'}.{' '}
        <span className="hint">
          Figures as of {formatWhen(r.as_of, r.timezone)}; a redemption reverted since is counted in reverts, on the day or hour it was
          made.
        </span>
      </p>
      <dl className="headline">
        {headline.map(([id, label, value, note]) => (
          <div key={id}>
            <dt>{label}</dt>
            <dd data-testid={`figure-${id}`}>{value}</dd>
            {note && <dd className="hint">{note}</dd>}
          </div>
        ))}
      </dl>

      <section aria-labelledby="redemptions-heading">
        <h2 id="redemptions-heading">Redemptions over time</h2>
        <ChartAndTable
          title={`Redemptions and reverts ${per}`}
          rows={r.series}
          counts
          axisValue={(n) => n.toLocaleString()}
          figures={[
            { key: 'redemptions', name: 'Redemptions', color: '#0b5cad', format: count },
            { key: 'reverts', name: 'Reverted', color: '#b8470b', format: count },
          ]}
        />
      </section>

      <section aria-labelledby="discount-heading">
        <h2 id="discount-heading">{cashback ? 'Discount and cashback given over time' : 'Discount given over time'}</h2>
        <ChartAndTable
          title={`${cashback ? 'Discount and cashback' : 'Discount'} given ${per}`}
          rows={r.series}
          counts={false}
          axisValue={(n) => formatMoneyShort(n, r.currency)}
          figures={[
            { key: 'discount', name: 'Discount', color: '#0b5cad', format: money },
            ...(cashback ? [{ key: 'cashback' as const, name: 'Cashback', color: '#1d6b35', format: money }] : []),
          ]}
        />
      </section>

      <section aria-labelledby="refusals-heading">
        <h2 id="refusals-heading">Why it was refused</h2>
        {reasons.length === 0 ? (
          <p>No refusals in this period.</p>
        ) : (
          <ReasonsTable reasons={reasons} caption="Refusals by reason, the most frequent first" counted="Refusals" />
        )}
        <p className="hint">Refusals and new customers are counted every few seconds: the latest may show a moment later.</p>
      </section>

      <section aria-labelledby="limits-heading">
        <h2 id="limits-heading">Limits and budget now</h2>
        {r.limits.length === 0 ? (
          <p>This campaign has no redemption limit and no money budget: it does not run out.</p>
        ) : (
          <ul className="plain burn">
            {r.limits.map((l) => {
              const label = limitName(l);
              return (
                <li key={`${l.what}-${l.period}`} data-testid={`burn-${l.what}-${l.period}`}>
                  <span className="budget-label">{label}</span>
                  <meter min={0} max={l.limit} value={Math.min(l.used, l.limit)} aria-label={`${label}: share used`} />
                  <span data-testid="burn-words">{burnInWords(l, r.currency, r.timezone, r.as_of)}</span>
                </li>
              );
            })}
          </ul>
        )}
      </section>

      <p>
        <a className="button" href={csvHref(app, campaign, query)} download>
          Download CSV
        </a>{' '}
        <span className="hint">
          the {byHour ? 'hours' : 'days'} of this period, one line each, figures as in the tables (money in {r.currency ?? 'units'})
        </span>
      </p>
    </div>
  );
}
