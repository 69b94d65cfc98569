import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { admin, must, type Campaign, type Who } from '../api';
import { ErrorLine, MoreButton } from '../parts';
import { describeDiscount } from '../promotion-words';
import { hrefOf } from '../route';
import { useApplication } from '../use-application';
import { BudgetCell, useCampaignUsage } from './budget-use';

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
  const currency = useApplication(app).data?.currency ?? null;
  return (
    <>
      <p className="crumbs">
        <a href={hrefOf({ page: 'applications' })}>Applications</a> / <code>{app}</code> ·{' '}
        <a href={hrefOf({ page: 'try', app })}>try a cart</a> · <a href={hrefOf({ page: 'customers', app })}>customers</a> ·{' '}
        <a href={hrefOf({ page: 'redemptions', app })}>redemptions</a> · <a href={hrefOf({ page: 'wallets', app })}>wallets</a> ·{' '}
        <a href={hrefOf({ page: 'webhooks', app })}>webhooks</a> ·{' '}
        <a href={hrefOf({ page: 'audit', app })}>audit log of this application</a>
      </p>
      <h1>Campaigns</h1>
      {!who.canChange && <p className="hint">You can read everything here; your role ({who.role}) changes nothing.</p>}
      {who.canChange && (
        <p>
          <a className="button" href={hrefOf({ page: 'campaign', app })}>
            New campaign
          </a>
        </p>
      )}
      <label className="inline">
        <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} /> Show archived
      </label>
      <ErrorLine error={list.error} />
      <table>
        <caption className="visually-hidden">Campaigns with their usage</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Discount</th>
            <th scope="col">Redeemed</th>
            <th scope="col">Reverted</th>
            <th scope="col">Budget (total limit)</th>
            <th scope="col">Per period</th>
            <th scope="col">Money budget</th>
            <th scope="col">Codes</th>
          </tr>
        </thead>
        <tbody>
          {campaigns.map((c) => (
            <CampaignRow key={c.id} app={app} campaign={c} currency={currency} />
          ))}
        </tbody>
      </table>
      {list.isSuccess && campaigns.length === 0 && <p>No campaigns yet.</p>}
      <MoreButton list={list} />
    </>
  );
}

function CampaignRow({ app, campaign, currency }: { app: string; campaign: Campaign; currency: string | null }) {
  const usage = useCampaignUsage(app, campaign.id);
  const u = usage.data;
  const total = u?.limits.total;
  const periods = u ? (['per_day', 'per_week', 'per_month'] as const).filter((k) => u.limits[k].limit !== null) : [];
  return (
    <tr>
      <th scope="row">
        <a href={hrefOf({ page: 'campaign', app, campaign: campaign.id })} aria-label={`Edit ${campaign.name}`}>
          {campaign.name}
        </a>
      </th>
      <td>{campaign.archived_at ? 'archived' : campaign.status}</td>
      <td>{describeDiscount(campaign.discount, currency)}</td>
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
        <a href={hrefOf({ page: 'codes', app, campaign: campaign.id })} aria-label={`Codes of ${campaign.name}`}>
          Codes
        </a>
      </td>
    </tr>
  );
}
