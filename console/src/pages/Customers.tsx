import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, must } from '../api';
import { ErrorLine, MoreButton } from '../parts';
import { hrefOf } from '../route';

/** An application's customers, paged; found by the beginning of their source id. */
export function CustomersPage({ app }: { app: string }) {
  const [search, setSearch] = useState('');
  const [archived, setArchived] = useState(false);
  const list = useInfiniteQuery({
    queryKey: ['customers', app, search, archived],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      must(
        admin.GET('/admin/applications/{app}/customers', {
          params: { path: { app }, query: { cursor: pageParam, limit: 50, include_archived: archived, ...(search ? { search } : {}) } },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setSearch(String(new FormData(e.currentTarget).get('search') ?? '').trim());
  }
  const rows = list.data?.pages.flatMap((p) => p.customers) ?? [];
  return (
    <>
      <p className="crumbs">
        <a href={hrefOf({ page: 'applications' })}>Applications</a> / <a href={hrefOf({ page: 'campaigns', app })}>{app}</a> / customers
      </p>
      <h1>Customers</h1>
      <form className="row" onSubmit={submit} aria-label="Find customers">
        <label>
          Source id begins with
          <input name="search" maxLength={256} />
        </label>
        <button type="submit">Find</button>
        <label className="inline">
          <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.target.checked)} /> Show archived
        </label>
      </form>
      <ErrorLine error={list.error} />
      <table>
        <caption className="visually-hidden">Customers</caption>
        <thead>
          <tr>
            <th scope="col">Source id</th>
            <th scope="col">Name</th>
            <th scope="col">E-mail</th>
            <th scope="col">Id</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={c.id}>
              <td>
                <a href={hrefOf({ page: 'customer', app, customer: c.id })}>{c.source_id}</a>
              </td>
              <td>{c.name ?? ''}</td>
              <td>{c.email ?? ''}</td>
              <td>
                <code>{c.id}</code>
              </td>
              <td>{c.erased_at ? 'erased' : c.archived_at ? 'archived' : 'active'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.isSuccess && rows.length === 0 && <p>No customers match.</p>}
      <MoreButton list={list} />
    </>
  );
}

/** One customer: its points in each wallet with the wallet's ledger, and its redemptions. */
export function CustomerPage({ app, customer }: { app: string; customer: string }) {
  const found = useQuery({
    queryKey: ['customer', app, customer],
    queryFn: () => must(admin.GET('/admin/applications/{app}/customers/{customer}', { params: { path: { app, customer } } })),
  });
  const [wallet, setWallet] = useState<string | null>(null);
  const redemptions = useInfiniteQuery({
    queryKey: ['redemptions', app, { customer }],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      must(
        admin.GET('/admin/applications/{app}/redemptions', {
          params: { path: { app }, query: { customer, cursor: pageParam, limit: 20 } },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const c = found.data;
  const shownWallet = wallet ?? c?.wallets[0]?.wallet_id ?? null;
  return (
    <>
      <p className="crumbs">
        <a href={hrefOf({ page: 'applications' })}>Applications</a> / <a href={hrefOf({ page: 'customers', app })}>customers</a> /{' '}
        {c?.source_id ?? customer}
      </p>
      <h1>Customer {c?.source_id ?? ''}</h1>
      <ErrorLine error={found.error} />
      {c && (
        <dl className="facts">
          <dt>Id</dt>
          <dd>
            <code>{c.id}</code>
          </dd>
          {c.name && (
            <>
              <dt>Name</dt>
              <dd>{c.name}</dd>
            </>
          )}
          {c.email && (
            <>
              <dt>E-mail</dt>
              <dd>{c.email}</dd>
            </>
          )}
          <dt>Status</dt>
          <dd>{c.erased_at ? 'erased' : c.archived_at ? `archived ${new Date(c.archived_at).toLocaleString()}` : 'active'}</dd>
        </dl>
      )}
      <h2>Wallets</h2>
      {c && c.wallets.length === 0 && <p>The application has no wallets.</p>}
      {c && c.wallets.length > 0 && (
        <table>
          <caption className="visually-hidden">Points in each wallet</caption>
          <thead>
            <tr>
              <th scope="col">Wallet</th>
              <th scope="col">Points</th>
              <th scope="col">Ledger</th>
            </tr>
          </thead>
          <tbody>
            {c.wallets.map((w) => (
              <tr key={w.wallet_id}>
                <td>
                  {w.wallet_name ?? w.wallet_id} <code>{w.wallet_id}</code>
                </td>
                <td data-testid={`points-${w.wallet_id}`}>{w.loyalty_points}</td>
                <td>
                  <button
                    type="button"
                    className="link"
                    aria-pressed={shownWallet === w.wallet_id}
                    onClick={() => setWallet(w.wallet_id)}
                    aria-label={`Show ledger of ${w.wallet_id}`}
                  >
                    Show ledger
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {c && shownWallet && <Ledger app={app} customer={c.id} wallet={shownWallet} />}
      <h2>Redemptions</h2>
      <ErrorLine error={redemptions.error} />
      <table>
        <caption className="visually-hidden">The customer's redemptions, newest first</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Order</th>
            <th scope="col">State</th>
            <th scope="col">Code</th>
            <th scope="col">Discount</th>
            <th scope="col">Cashback</th>
          </tr>
        </thead>
        <tbody>
          {(redemptions.data?.pages.flatMap((p) => p.redemptions) ?? []).map((r) => (
            <tr key={r.id}>
              <td>{new Date(r.created_at).toLocaleString()}</td>
              <td>
                <code>{r.order_id}</code>
              </td>
              <td>{r.state}</td>
              <td>
                <code>{r.coupon_code}</code>
              </td>
              <td>{r.discount}</td>
              <td>{r.cashback}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <MoreButton list={redemptions} />
    </>
  );
}

/** A wallet's ledger for the customer, oldest first, paged. */
function Ledger({ app, customer, wallet }: { app: string; customer: string; wallet: string }) {
  const ledger = useInfiniteQuery({
    queryKey: ['ledger', app, customer, wallet],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      must(
        admin.GET('/admin/applications/{app}/customers/{customer}/wallets/{wallet_id}/ledger', {
          params: { path: { app, customer, wallet_id: wallet }, query: { cursor: pageParam, limit: 50 } },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const entries = ledger.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <section aria-label={`Ledger of ${wallet}`}>
      <h3>
        Ledger of <code>{wallet}</code> (oldest first)
      </h3>
      <ErrorLine error={ledger.error} />
      <table>
        <caption className="visually-hidden">Ledger entries</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Type</th>
            <th scope="col">Points</th>
            <th scope="col">Before → after</th>
            <th scope="col">Description</th>
            <th scope="col">Origin</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.txn_id}>
              <td>{new Date(e.created_at).toLocaleString()}</td>
              <td>{e.type}</td>
              <td>{e.points}</td>
              <td>
                {e.before} → {e.after}
              </td>
              <td>{e.description}</td>
              <td>{e.origin}</td>
              <td>{e.state}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {ledger.isSuccess && entries.length === 0 && <p>No entries.</p>}
      <MoreButton list={ledger} />
    </section>
  );
}
