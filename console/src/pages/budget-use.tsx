import { useQuery } from '@tanstack/react-query';
import { admin, must, type CampaignUsage } from '../api';
import { formatMoney } from '../money';

/** A campaign's live usage (`GET …/campaigns/:campaign/usage`), refreshed every 10 s; one query per campaign for every page. */
export function useCampaignUsage(app: string, campaign: string | undefined) {
  return useQuery({
    queryKey: ['usage', app, campaign],
    enabled: campaign !== undefined,
    queryFn: () =>
      must(admin.GET('/admin/applications/{app}/campaigns/{campaign}/usage', { params: { path: { app, campaign: campaign! } } })),
    refetchInterval: 10_000,
  });
}

type Budget = NonNullable<CampaignUsage['budget']>;
const PERIODS = [
  ['per_day', 'Today'],
  ['per_week', 'This week'],
  ['per_month', 'This month'],
] as const;

/** "€120.00 spent, €380.00 left of €500.00", with a bar: what one cap of the budget has given away. */
function CapLine({ label, use, currency, testId }: { label: string; use: Budget['total']; currency: string | null; testId: string }) {
  const money = (n: number) => formatMoney(n, currency);
  if (use.budget === null) return null;
  return (
    <div className="budget-line">
      <span className="budget-label">{label}</span>
      <meter min={0} max={use.budget} value={Math.min(use.spent, use.budget)} aria-label={`${label}: share of the budget spent`} />
      <span data-testid={testId}>
        {money(use.spent)} spent, {money(use.left ?? 0)} left of {money(use.budget)}
      </span>
    </div>
  );
}

/**
 * The money budget's use, from the usage route: spent and left in total and in the current day,
 * week and month (each with its bar and the figures in text), the share of the total spent, the cap
 * per customer, and what a discount that would go over gets.
 */
export function BudgetUse({ budget, currency }: { budget: CampaignUsage['budget'] | undefined; currency: string | null }) {
  if (budget === undefined) return <p className="loading">Loading…</p>;
  if (budget === null) return <p>No money budget.</p>;
  const money = (n: number) => formatMoney(n, currency);
  return (
    <div className="budget-use">
      {budget.total.budget === null ? (
        <p data-testid="budget-total">{money(budget.total.spent)} given away in all (no total cap)</p>
      ) : (
        <CapLine label="In total" use={budget.total} currency={currency} testId="budget-total" />
      )}
      {budget.share_spent !== null && <p data-testid="budget-share">{budget.share_spent}% of the total budget spent</p>}
      {PERIODS.map(([k, label]) => (
        <CapLine
          key={k}
          label={`${label} (${budget[k].period ?? ''})`}
          use={budget[k]}
          currency={currency}
          testId={`budget-${k.replace('per_', '')}`}
        />
      ))}
      {budget.per_customer.budget !== null && <p>At most {money(budget.per_customer.budget)} to one customer.</p>}
      <p className="hint">
        A discount that would go over the budget {budget.when_exceeded === 'cap' ? 'gets what is left' : 'is refused'}.
      </p>
    </div>
  );
}

/** One line for a table cell: the total's spent and left (or what was given away), with its bar. */
export function BudgetCell({
  budget,
  currency,
  name,
}: {
  budget: CampaignUsage['budget'] | undefined;
  currency: string | null;
  name: string;
}) {
  if (budget === undefined) return <>…</>;
  if (budget === null) return <>no money budget</>;
  const money = (n: number) => formatMoney(n, currency);
  const t = budget.total;
  if (t.budget === null) return <>{money(t.spent)} given away</>;
  return (
    <>
      <meter min={0} max={t.budget} value={Math.min(t.spent, t.budget)} aria-label={`Money budget of ${name}: share spent`} />{' '}
      {money(t.spent)} spent, {money(t.left ?? 0)} left of {money(t.budget)}
    </>
  );
}
