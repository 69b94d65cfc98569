import { useInfiniteQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, must, type Redemption } from '../api';
import { ErrorLine, MoreButton } from '../parts';
import { hrefOf } from '../route';

interface Search {
  order_id?: string;
  customer?: string;
  campaign?: string;
  state?: 'completed' | 'reverted' | 'refused';
  from?: string;
  to?: string;
}

/** `2026-11-26T10:00` (a datetime-local field, the browser's time) as an ISO instant; '' as nothing. */
const instant = (local: string): string | undefined => (local ? new Date(local).toISOString() : undefined);

/** The redemption journal, newest first: search by order, customer, campaign, state and time. */
export function RedemptionsPage({ app }: { app: string }) {
  const [search, setSearch] = useState<Search>({});
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
      order_id: text('order_id'),
      customer: text('customer'),
      campaign: text('campaign'),
      state: text('state') as Search['state'],
      from: instant(String(form.get('from') ?? '')),
      to: instant(String(form.get('to') ?? '')),
    });
  }
  const rows = list.data?.pages.flatMap((p) => p.redemptions) ?? [];
  return (
    <>
      <p className="crumbs">
        <a href={hrefOf({ page: 'applications' })}>Applications</a> / <a href={hrefOf({ page: 'campaigns', app })}>{app}</a> / redemptions
      </p>
      <h1>Redemptions</h1>
      <form className="row" onSubmit={submit} aria-label="Search redemptions">
        <label>
          Order
          <input name="order_id" maxLength={256} />
        </label>
        <label>
          Customer
          <input name="customer" placeholder="source_id or id" />
        </label>
        <label>
          Campaign id
          <input name="campaign" />
        </label>
        <label>
          State
          <select name="state" defaultValue="">
            <option value="">any</option>
            <option value="completed">completed</option>
            <option value="reverted">reverted</option>
            <option value="refused">refused</option>
          </select>
        </label>
        <label>
          From
          <input name="from" type="datetime-local" />
        </label>
        <label>
          Before
          <input name="to" type="datetime-local" />
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorLine error={list.error} />
      <RedemptionsTable rows={rows} caption="Redemptions, newest first" />
      {list.isSuccess && rows.length === 0 && <p>No redemptions match.</p>}
      <MoreButton list={list} />
    </>
  );
}

/** Redemption cycles as a table; `customer` false leaves out the customer column (a customer's own page). */
export function RedemptionsTable({ rows, caption, customer = true }: { rows: Redemption[]; caption: string; customer?: boolean }) {
  return (
    <table>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Order</th>
          <th scope="col">Cycle</th>
          <th scope="col">State</th>
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
            <td>{new Date(r.created_at).toLocaleString()}</td>
            <td>
              <code>{r.order_id}</code>
            </td>
            <td>{r.cycle}</td>
            <td>{r.state === 'refused' && r.refusal ? `refused (${r.refusal.reason ?? r.refusal.message ?? ''})` : r.state}</td>
            <td>
              <code>{r.coupon_code}</code>
            </td>
            <td>
              <code>{r.campaign_id}</code>
            </td>
            {customer && (
              <td>
                <code>{r.customer_id}</code>
              </td>
            )}
            <td>{r.discount}</td>
            <td>{r.cashback}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
