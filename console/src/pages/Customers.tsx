import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, ApiFailure, everyPage, must, problemOf, type LedgerEntry, type Wallet, type Who } from '../api';
import { AppCrumbs, ErrorLine, Field, MoreButton } from '../parts';
import { hrefOf } from '../route';
import { useApplication } from '../use-application';
import { RedemptionsTable } from './Redemptions';
import { tierInWords, type CustomerTier } from '../tiers';

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
      <AppCrumbs app={app}>customers</AppCrumbs>
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
      <table tabIndex={0}>
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
export function CustomerPage({ app, customer, who }: { app: string; customer: string; who: Who }) {
  const application = useApplication(app);
  const found = useQuery({
    queryKey: ['customer', app, customer],
    queryFn: () => must(admin.GET('/admin/applications/{app}/customers/{customer}', { params: { path: { app, customer } } })),
  });
  const [wallet, setWallet] = useState<string | null>(null);
  /** The application's wallets, archived ones included: a ledger's tier is said with its wallet's levels, units and timezone. */
  const wallets = useQuery({
    queryKey: ['wallets', app, 'all'],
    queryFn: () =>
      everyPage(
        (cursor) =>
          must(
            admin.GET('/admin/applications/{app}/wallets', {
              params: { path: { app }, query: { cursor, limit: 100, include_archived: true } },
            }),
          ),
        (p) => p.wallets,
      ),
  });
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
      <AppCrumbs app={app}>
        <a href={hrefOf({ page: 'customers', app })}>customers</a> / {c ? (c.name ?? c.source_id) : '…'}
      </AppCrumbs>
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
        <table tabIndex={0}>
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
      {c && who.canChange && c.wallets.length > 0 && !c.archived_at && (
        <Adjust app={app} customer={c.id} wallets={c.wallets.map((w) => w.wallet_id)} />
      )}
      {c && shownWallet && (
        <Ledger app={app} customer={c.id} wallet={shownWallet} settings={wallets.data?.find((w) => w.wallet_id === shownWallet) ?? null} />
      )}
      <h2>Redemptions</h2>
      <ErrorLine error={redemptions.error} />
      {/* A region that scrolls sideways on a phone, not the page (the table inside keeps its own tab stop). */}
      <div className="scroll" role="region" aria-label="Redemptions, scrolls sideways">
        <RedemptionsTable
          rows={redemptions.data?.pages.flatMap((p) => p.redemptions) ?? []}
          caption="The customer's redemptions, newest first"
          customer={false}
          currency={application.data?.currency}
          timeZone={application.data?.timezone}
        />
      </div>
      <MoreButton list={redemptions} />
    </>
  );
}

/** An instant as the browser shows it, or a dash. */
const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** What an entry did to a pending or expiring bucket, with its dates (docs/wallets.md). */
function bucketMove(bucket: LedgerEntry['bucket']): string {
  if (!bucket) return '';
  const expires = bucket.expires_at ? `expires ${when(bucket.expires_at)}` : 'never expires';
  switch (bucket.move) {
    case 'pending':
      return `pending until ${when(bucket.available_at)}; then ${expires}`;
    case 'cancelled':
      return `cancelled while pending (was until ${when(bucket.available_at)})`;
    case 'available':
      return `became spendable; ${expires}`;
    case 'expired':
      return `expired ${when(bucket.expires_at)}`;
  }
}

/**
 * A wallet's ledger for the customer, oldest first, paged; above it the points not spendable yet
 * (pending) and the spendable points that will expire, each lot with its dates.
 */
function Ledger({ app, customer, wallet, settings }: { app: string; customer: string; wallet: string; settings: Wallet | null }) {
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
  // Every page answers the balance as it stands when read: the latest page's is the freshest.
  const now = ledger.data?.pages.at(-1);
  const pending = now?.buckets.filter((b) => b.available_at) ?? [];
  const expiring = now?.buckets.filter((b) => !b.available_at && b.expires_at) ?? [];
  return (
    <section aria-label={`Ledger of ${wallet}`}>
      <h3>
        Ledger of <code>{wallet}</code> (oldest first)
      </h3>
      <ErrorLine error={ledger.error} />
      {now && settings && <Tier tier={now.tier} wallet={settings} />}
      {now && (
        <div className="points-state" aria-label={`Pending and expiring points of ${wallet}`} role="group">
          <dl className="facts">
            <dt>Spendable</dt>
            <dd data-testid="balance">{now.balance}</dd>
            <dt>Pending (not spendable yet)</dt>
            <dd data-testid="pending-points">{now.pending_points}</dd>
            <dt>Expiring (part of the spendable points)</dt>
            <dd data-testid="expiring-points">{now.expiring_points}</dd>
          </dl>
          {now.buckets.length > 0 && (
            <table className="buckets" tabIndex={0}>
              <caption>Pending and expiring points, soonest first (your browser&apos;s time)</caption>
              <thead>
                <tr>
                  <th scope="col">Points</th>
                  <th scope="col">State</th>
                  <th scope="col">Spendable from</th>
                  <th scope="col">Expires</th>
                </tr>
              </thead>
              <tbody>
                {[...pending, ...expiring].map((b, i) => (
                  <tr key={i}>
                    <td>{b.points}</td>
                    <td>{b.available_at ? 'pending' : 'expiring'}</td>
                    <td>{b.available_at ? when(b.available_at) : 'now'}</td>
                    <td>{b.expires_at ? when(b.expires_at) : 'never'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
      <div className="scroll" tabIndex={0} role="region" aria-label="Ledger entries, scrolls sideways">
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
              <th scope="col">Pending / expiry</th>
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
                <td data-testid="bucket-move">{bucketMove(e.bucket)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {ledger.isSuccess && entries.length === 0 && <p>No entries.</p>}
      <MoreButton list={ledger} />
    </section>
  );
}

/**
 * The customer's tier in the wallet and the progress to the next level, in words, with a bar of the
 * points earned toward it; days on the wallet's clock. Nothing when the wallet has no tiers.
 */
function Tier({ tier, wallet }: { tier: CustomerTier | null; wallet: Wallet }) {
  const tiers = wallet.tiers;
  if (!tier || !tiers) return null;
  const units = { one: wallet.singular_unit_name, many: wallet.plural_unit_name };
  const target = tier.next_level ? tier.earned_points + tier.next_level.points_needed : null;
  const [level, ...rest] = tierInWords(tier, tiers, wallet.timezone, units);
  return (
    <div className="tier" role="group" aria-label={`Tier in ${wallet.wallet_name}`}>
      <p data-testid="tier">
        Tier: <strong>{level}</strong> · {rest.join(' · ')}
      </p>
      {tier.next_level && target !== null && (
        <progress value={tier.earned_points} max={target} aria-label={`Points earned toward ${tier.next_level.name}`} />
      )}
      <p className="hint">Days on the wallet&apos;s clock ({wallet.timezone}).</p>
    </div>
  );
}

/**
 * A manual adjustment with a reason (`POST …/wallets/:wallet/adjustments`), queued like every
 * wallet operation. The form keeps one operation key until the adjustment is answered: sending it
 * again after a 503 is the safe retry, never a second adjustment. Any other answer, a refusal
 * included, is final for that key (the service replays it), so the next submission gets a new one.
 */
function Adjust({ app, customer, wallets }: { app: string; customer: string; wallets: string[] }) {
  const queries = useQueryClient();
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [fields, setFields] = useState<Record<string, string>>({});
  const [told, setTold] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formElement = e.currentTarget;
    const form = new FormData(formElement);
    const wallet = String(form.get('wallet'));
    const points = String(form.get('points') ?? '').trim();
    const type = String(form.get('type')) as 'credit' | 'debit';
    setTold(null);
    try {
      const done = await must(
        admin.POST('/admin/applications/{app}/customers/{customer}/wallets/{wallet_id}/adjustments', {
          params: { path: { app, customer, wallet_id: wallet }, header: { 'Idempotency-Key': key } },
          body: {
            type,
            points: (points !== '' && Number.isFinite(Number(points)) ? Number(points) : points) as number,
            reason: String(form.get('reason') ?? ''),
          },
        }),
      );
      setFields({});
      setError(null);
      setKey(crypto.randomUUID());
      formElement.reset();
      setTold(
        `${done.points} points ${type === 'credit' ? 'credited to' : 'debited from'} ${wallet}: ${done.previous_loyalty_points} → ${done.loyalty_points}.`,
      );
      await queries.invalidateQueries({ queryKey: ['customer', app] });
      await queries.invalidateQueries({ queryKey: ['ledger', app, customer, wallet] });
    } catch (err) {
      if (err instanceof ApiFailure && err.status !== 503) setKey(crypto.randomUUID());
      setFields(err instanceof ApiFailure ? (err.body.fields ?? {}) : {});
      setError(problemOf(err));
    }
  }
  return (
    <form className="panel" aria-label="Adjust points" onSubmit={(e) => void submit(e)}>
      <h2>Adjust points</h2>
      <label>
        Wallet
        <select name="wallet">
          {wallets.map((w) => (
            <option key={w} value={w}>
              {w}
            </option>
          ))}
        </select>
      </label>
      <label>
        Adjustment
        <select name="type" defaultValue="credit">
          <option value="credit">credit (add points)</option>
          <option value="debit">debit (take points)</option>
        </select>
      </label>
      <Field label="Points" name="points" inputMode="decimal" required error={fields.points} />
      <Field label="Reason (kept in the ledger and the audit log)" name="reason" required maxLength={500} error={fields.reason} />
      <button type="submit">Apply adjustment</button>
      {told && <p role="status">{told}</p>}
      {Object.keys(fields).length === 0 && <ErrorLine error={error} />}
    </form>
  );
}
