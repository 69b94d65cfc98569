import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, must, problemOf, type Campaign, type Who } from '../api';
import { useFlash } from '../flash';
import { ErrorLine, MoreButton } from '../parts';
import { describeDiscount, tierRuleInShort } from '../promotion-words';
import { hrefOf } from '../route';
import { useApplication } from '../use-application';
import { useWalletNames } from '../use-wallets';
import { instantIn } from '../when';
import { BudgetCell, useCampaignUsage } from './budget-use';
import { CampaignTotalsCell, ResultsSummary, useApplicationResults, type CampaignTotals } from './results-summary';

/** An application's campaigns with their live usage: redeemed, reverted, what each limit has left. */
export function CampaignsPage({ app, who }: { app: string; who: Who }) {
  const [showArchived, setShowArchived] = useState(false);
  const list = useInfiniteQuery({
    queryKey: ['campaigns', app, showArchived],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      must(
        admin.GET('/admin/applications/{app}/campaigns', {
          params: { path: { app }, query: { cursor: pageParam, limit: 50, include_archived: showArchived } },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const campaigns = list.data?.pages.flatMap((p) => p.campaigns) ?? [];
  const application = useApplication(app);
  const currency = application.data?.currency ?? null;
  const walletNames = useWalletNames(app);
  const results = useApplicationResults(app);
  const totals = new Map(results.data?.campaigns.map((c) => [c.campaign_id, c]));
  const saved = useFlash();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  };
  const chosen = campaigns.filter((c) => selected.has(c.id));
  return (
    <>
      <p className="crumbs">
        <a href={hrefOf({ page: 'applications' })}>Applications</a> / {application.data?.name ?? app} ·{' '}
        <a href={hrefOf({ page: 'try', app })}>try a cart</a> · <a href={hrefOf({ page: 'customers', app })}>customers</a> ·{' '}
        <a href={hrefOf({ page: 'redemptions', app })}>redemptions</a> · <a href={hrefOf({ page: 'calendar', app })}>calendar</a> ·{' '}
        <a href={hrefOf({ page: 'wallets', app })}>wallets</a> · <a href={hrefOf({ page: 'gift-cards', app })}>gift cards</a> ·{' '}
        <a href={hrefOf({ page: 'webhooks', app })}>webhooks</a> · <a href={hrefOf({ page: 'backtests', app })}>backtests</a> ·{' '}
        <a href={hrefOf({ page: 'audit', app })}>audit log of this application</a>
      </p>
      <h1>Campaigns</h1>
      {saved && (
        <p role="status" className="success">
          {saved}
        </p>
      )}
      {!who.canChange && <p className="hint">You can read everything here; your role ({who.role}) changes nothing.</p>}
      {who.canChange && (
        <p>
          <a className="button" href={hrefOf({ page: 'campaign', app })}>
            New campaign
          </a>
        </p>
      )}
      <ResultsSummary results={results.data} error={results.error} />
      <label className="inline">
        <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} /> Show archived
      </label>
      <ErrorLine error={list.error} />
      {who.canChange && (
        <BulkActions app={app} chosen={chosen} timeZone={application.data?.timezone ?? null} done={() => setSelected(new Set())} />
      )}
      <table tabIndex={0}>
        <caption className="visually-hidden">Campaigns with their usage</caption>
        <thead>
          <tr>
            {who.canChange && (
              <th scope="col">
                <span className="visually-hidden">Selected</span>
              </th>
            )}
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Discount</th>
            <th scope="col">Redeemed</th>
            <th scope="col">Reverted</th>
            <th scope="col">Budget (total limit)</th>
            <th scope="col">Per period</th>
            <th scope="col">Money budget</th>
            <th scope="col">Last 30 days</th>
            <th scope="col">Codes</th>
          </tr>
        </thead>
        <tbody>
          {campaigns.map((c) => (
            <CampaignRow
              key={c.id}
              app={app}
              campaign={c}
              currency={currency}
              walletNames={walletNames}
              totals={results.isPending ? 'loading' : totals.get(c.id)}
              select={who.canChange ? { on: selected.has(c.id), toggle: (on) => toggle(c.id, on) } : undefined}
            />
          ))}
        </tbody>
      </table>
      {list.isSuccess && campaigns.length === 0 && <p>No campaigns yet.</p>}
      <MoreButton list={list} />
    </>
  );
}

/**
 * What can be done to several campaigns at once: pause, resume, end on a date (in the
 * application's timezone), archive. Each campaign is changed by its own admin call (each audited as
 * that campaign's change); the result names the campaigns that were not changed, and why.
 */
function BulkActions({ app, chosen, timeZone, done }: { app: string; chosen: Campaign[]; timeZone: string | null; done: () => void }) {
  const queries = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: string; failed: string[] } | null>(null);
  const [until, setUntil] = useState('');
  async function apply(what: string, change: (c: Campaign) => Promise<unknown>) {
    setBusy(true);
    const failed: string[] = [];
    let changed = 0;
    for (const c of chosen) {
      try {
        await change(c);
        changed++;
      } catch (err) {
        failed.push(`${c.name}: ${problemOf(err)}`);
      }
    }
    setBusy(false);
    setResult({ ok: `${changed} ${changed === 1 ? 'campaign' : 'campaigns'} ${what}.`, failed });
    done();
    await queries.invalidateQueries({ queryKey: ['campaigns', app] });
  }
  const patch = (c: Campaign, body: Record<string, unknown>) =>
    must(admin.PATCH('/admin/applications/{app}/campaigns/{campaign}', { params: { path: { app, campaign: c.id } }, body: body as never }));
  const endOn = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const at = instantIn(until, timeZone);
    if (at) void apply(`now end ${until.replace('T', ' ')}`, (c) => patch(c, { valid_until: at }));
  };
  const none = chosen.length === 0 || busy;
  return (
    <section aria-label="Change the selected campaigns" className="bulk">
      <p>
        {chosen.length === 0
          ? 'Select campaigns to change several at once.'
          : `${chosen.length} selected: ${chosen.map((c) => c.name).join(', ')}`}
      </p>
      <div className="row">
        <button type="button" disabled={none} onClick={() => void apply('paused', (c) => patch(c, { status: 'disabled' }))}>
          Pause
        </button>
        <button type="button" disabled={none} onClick={() => void apply('resumed', (c) => patch(c, { status: 'active' }))}>
          Resume
        </button>
        <button
          type="button"
          disabled={none}
          onClick={() => {
            if (window.confirm(`Archive ${chosen.length} ${chosen.length === 1 ? 'campaign' : 'campaigns'}? They stop applying at once.`))
              void apply('archived', (c) =>
                must(admin.POST('/admin/applications/{app}/campaigns/{campaign}/archive', { params: { path: { app, campaign: c.id } } })),
              );
          }}
        >
          Archive
        </button>
        <form className="row" onSubmit={endOn} aria-label="End the selected campaigns on a date">
          <label>
            End on
            <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} required />
          </label>
          <button type="submit" disabled={none}>
            Set end
          </button>
          <span className="hint">{timeZone ? `in ${timeZone}` : ''}</span>
        </form>
      </div>
      {result && (
        <div role="status">
          <p className={result.failed.length ? undefined : 'success'}>{result.ok}</p>
          {result.failed.length > 0 && (
            <ul className="error">
              {result.failed.map((f) => (
                <li key={f}>Not changed: {f}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}

function CampaignRow({
  app,
  campaign,
  currency,
  walletNames,
  totals,
  select,
}: {
  app: string;
  campaign: Campaign;
  currency: string | null;
  walletNames: Map<string, string>;
  /** What it did in the last 30 days (the application's results), 'loading' until read. */
  totals: CampaignTotals | 'loading' | undefined;
  select: { on: boolean; toggle: (on: boolean) => void } | undefined;
}) {
  const usage = useCampaignUsage(app, campaign.id);
  const u = usage.data;
  const total = u?.limits.total;
  const periods = u ? (['per_day', 'per_week', 'per_month'] as const).filter((k) => u.limits[k].limit !== null) : [];
  return (
    <tr>
      {select && (
        <td>
          <input
            type="checkbox"
            checked={select.on}
            onChange={(e) => select.toggle(e.target.checked)}
            aria-label={`Select ${campaign.name}`}
          />
        </td>
      )}
      <th scope="row">
        <a href={hrefOf({ page: 'campaign', app, campaign: campaign.id })} aria-label={`Edit ${campaign.name}`}>
          {campaign.name}
        </a>
      </th>
      <td>{campaign.archived_at ? 'archived' : campaign.status === 'disabled' ? 'paused' : 'active'}</td>
      <td>
        {describeDiscount(campaign.discount, currency, (id) => walletNames.get(id))}
        {campaign.tiers && <div data-testid="tier-rule">{tierRuleInShort(campaign.tiers)}</div>}
      </td>
      <td data-testid="redeemed">{u ? u.redeemed : '…'}</td>
      <td>{u ? u.reverted : '…'}</td>
      <td>
        {total && total.limit !== null ? (
          <>
            <meter
              min={0}
              max={total.limit}
              value={total.used ?? 0}
              aria-label={`Budget of ${campaign.name}: ${total.used} of ${total.limit} used`}
            />{' '}
            {total.remaining} of {total.limit} left
          </>
        ) : (
          'no total limit'
        )}
      </td>
      <td>
        {periods.length === 0
          ? '—'
          : periods.map((k) => (
              <div key={k}>
                {k.replace('per_', '')} {u!.limits[k].period}: {u!.limits[k].remaining} of {u!.limits[k].limit} left
              </div>
            ))}
      </td>
      <td data-testid="money-budget">
        <BudgetCell budget={u?.budget} currency={currency} name={campaign.name} />
      </td>
      <td>
        <CampaignTotalsCell
          app={app}
          campaign={campaign.id}
          name={campaign.name}
          totals={totals === 'loading' ? undefined : totals}
          loading={totals === 'loading'}
          currency={currency}
        />
      </td>
      <td>
        <a href={hrefOf({ page: 'codes', app, campaign: campaign.id })} aria-label={`Codes of ${campaign.name}`}>
          Codes
        </a>
        {select && (
          <>
            {' · '}
            <a href={hrefOf({ page: 'campaign', app, copyOf: campaign.id })} aria-label={`Duplicate ${campaign.name}`}>
              Duplicate
            </a>
          </>
        )}
      </td>
    </tr>
  );
}
