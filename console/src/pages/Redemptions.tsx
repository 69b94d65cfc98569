import { useInfiniteQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, must, type Redemption } from '../api';
import { formatMoney } from '../money';
import { AppCrumbs, ErrorLine, MoreButton } from '../parts';
import { useApplication } from '../use-application';
import { useCampaignNames } from '../use-campaign-names';
import { formatWhen, instantIn } from '../when';

interface Search {
  order_id_prefix?: string;
  customer?: string;
  campaign?: string;
  state?: 'completed' | 'reverted' | 'refused';
  from?: string;
  to?: string;
}

/** The states of a redemption in a manager's words. */
const STATE_WORDS: Record<string, string> = {
  completed: 'redeemed',
  reverted: 'reverted (order returned or cancelled)',
  refused: 'refused',
};

/**
 * The redemption journal, newest first: found by the beginning of an order number, a customer,
 * a campaign chosen by name, what happened and when (in the application's timezone).
 */
export function RedemptionsPage({ app }: { app: string }) {
  const application = useApplication(app);
  const timeZone = application.data?.timezone ?? null;
  const [search, setSearch] = useState<Search>({});
  const campaigns = useCampaignNames(app);
  const list = useInfiniteQuery({
    queryKey: ['redemptions', app, search],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      must(
        admin.GET('/admin/applications/{app}/redemptions', {
          params: { path: { app }, query: { ...search, cursor: pageParam, limit: 50 } },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    setSearch({
      order_id_prefix: text('order'),
      customer: text('customer'),
      campaign: text('campaign'),
      state: text('state') as Search['state'],
      from: instantIn(String(form.get('from') ?? ''), timeZone),
      to: instantIn(String(form.get('to') ?? ''), timeZone),
    });
  }
  const rows = list.data?.pages.flatMap((p) => p.redemptions) ?? [];
  return (
    <>
      <AppCrumbs app={app}>redemptions</AppCrumbs>
      <h1>Redemptions</h1>
      <form className="row" onSubmit={submit} aria-label="Search redemptions">
        <label>
          Order number
          <input name="order" maxLength={256} aria-describedby="order-hint" />
          <span id="order-hint" className="hint">
            or its beginning
          </span>
        </label>
        <label>
          Customer
          <input name="customer" placeholder="their id in your shop" />
        </label>
        <label>
          Campaign
          <select name="campaign" defaultValue="">
            <option value="">any campaign</option>
            {(campaigns.data ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.archived ? `${c.name} (archived)` : c.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          What happened
          <select name="state" defaultValue="">
            <option value="">anything</option>
            {Object.entries(STATE_WORDS).map(([state, words]) => (
              <option key={state} value={state}>
                {words}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input name="from" type="datetime-local" aria-describedby="zone-hint" />
        </label>
        <label>
          Before
          <input name="to" type="datetime-local" aria-describedby="zone-hint" />
        </label>
        <button type="submit">Search</button>
        <span id="zone-hint" className="hint">
          Times are in {timeZone ?? 'your browser’s timezone'}.
        </span>
      </form>
      <ErrorLine error={list.error} />
      <RedemptionsTable rows={rows} caption="Redemptions, newest first" currency={application.data?.currency} timeZone={timeZone} />
      {list.isSuccess && rows.length === 0 && <p>No redemptions match.</p>}
      <MoreButton list={list} />
    </>
  );
}

/** A name with its id on hover (and for a screen reader, the name alone). */
function Named({ name, id }: { name: string | null | undefined; id: string }) {
  return <span title={id}>{name ?? id}</span>;
}

/**
 * Redemption cycles as a table, in the application's currency and timezone; `customer` false
 * leaves out the customer column (a customer's own page).
 */
export function RedemptionsTable({
  rows,
  caption,
  customer = true,
  currency,
  timeZone,
}: {
  rows: Redemption[];
  caption: string;
  customer?: boolean;
  currency: string | null | undefined;
  timeZone: string | null | undefined;
}) {
  const money = (n: number) => formatMoney(n, currency);
  return (
    <table tabIndex={0}>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Order</th>
          <th scope="col">What happened</th>
          <th scope="col">Code</th>
          <th scope="col">Campaign</th>
          {customer && <th scope="col">Customer</th>}
          <th scope="col">Discount</th>
          <th scope="col">Cashback</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id}>
            <td>{formatWhen(r.created_at, timeZone)}</td>
            <td>
              <code>{r.order_id}</code>
              {r.cycle > 1 && <span className="hint"> (redeemed again: time {r.cycle})</span>}
            </td>
            <td>
              {r.state === 'refused' && r.refusal
                ? `refused: ${r.refusal.message ?? r.refusal.reason ?? ''}`
                : (STATE_WORDS[r.state] ?? r.state)}
            </td>
            <td>
              <code>{r.coupon_code}</code>
            </td>
            <td>
              <Named name={r.campaign_name} id={r.campaign_id} />
            </td>
            {customer && (
              <td>
                <Named
                  name={r.customer_name ? `${r.customer_name} (${r.customer_source_id ?? ''})` : r.customer_source_id}
                  id={r.customer_id}
                />
              </td>
            )}
            <td>{money(r.discount)}</td>
            <td>{money(r.cashback)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
