import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, ApiFailure, everyPage, must, problemOf, type Delivery, type Webhook, type Who } from '../api';
import {
  DELIVERY_STATUS_WORDS,
  disabledInWords,
  EVENT_TYPES,
  EVENT_WORDS,
  eventInWords,
  subscriptionInWords,
  type EventType,
} from '../event-words';
import { AppCrumbs, ErrorLine, Field, MoreButton } from '../parts';
import { hrefOf } from '../route';
import { useApplication } from '../use-application';
import { formatWhen, instantIn } from '../when';

/** The secret of an endpoint, shown once (after creating it or rotating it). */
function SecretNotice({ secret, onDone }: { secret: { url: string; secret: string; note?: string } | null; onDone: () => void }) {
  if (!secret) return null;
  return (
    <section className="notice" role="status" aria-label="New signing secret">
      <p>
        Signing secret of <code>{secret.url}</code> — shown only now{secret.note ? ` (${secret.note})` : ''}:
      </p>
      <p>
        <code data-testid="webhook-secret">{secret.secret}</code>
      </p>
      <button type="button" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

/** An application's webhook endpoints: register, disable or enable, rotate the secret, ping; each one's deliveries. */
export function WebhooksPage({ app, who }: { app: string; who: Who }) {
  const queries = useQueryClient();
  const [secret, setSecret] = useState<{ url: string; secret: string; note?: string } | null>(null);
  const [told, setTold] = useState<string | null>(null);
  const list = useInfiniteQuery({
    queryKey: ['webhooks', app],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      must(admin.GET('/admin/applications/{app}/webhooks', { params: { path: { app }, query: { cursor: pageParam, limit: 50 } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const act = useMutation({
    mutationFn: async ({ hook, action }: { hook: Webhook; action: 'rotate' | 'ping' | 'disable' | 'enable' }) => {
      const path = { params: { path: { app, webhook: hook.id } } };
      switch (action) {
        case 'rotate': {
          const r = await must(admin.POST('/admin/applications/{app}/webhooks/{webhook}/rotate-secret', { ...path, body: {} }));
          setSecret({
            url: hook.url,
            secret: r.secret,
            note: `the previous one signs too until ${new Date(r.previous_secret_expires_at).toLocaleString()}`,
          });
          return;
        }
        case 'ping': {
          const r = await must(admin.POST('/admin/applications/{app}/webhooks/{webhook}/ping', path));
          setTold(`Ping ${r.event_id} queued for ${hook.url}; see its deliveries.`);
          return;
        }
        case 'disable':
        case 'enable':
          await must(
            admin.PATCH('/admin/applications/{app}/webhooks/{webhook}', {
              ...path,
              body: { status: action === 'disable' ? 'disabled' : 'active' },
            }),
          );
          return;
      }
    },
    onMutate: () => setTold(null),
    onSettled: () => queries.invalidateQueries({ queryKey: ['webhooks', app] }),
  });
  const hooks = list.data?.pages.flatMap((p) => p.webhooks) ?? [];
  return (
    <>
      <AppCrumbs app={app}>webhooks</AppCrumbs>
      <h1>Webhooks</h1>
      {who.canChange && (
        <CreateWebhook
          app={app}
          onCreated={(made) => {
            setSecret({ url: made.url, secret: made.secret });
            void queries.invalidateQueries({ queryKey: ['webhooks', app] });
          }}
        />
      )}
      <SecretNotice secret={secret} onDone={() => setSecret(null)} />
      {told && (
        <p role="status" className="notice">
          {told}
        </p>
      )}
      <ErrorLine error={act.error} />
      <ErrorLine error={list.error} />
      <table tabIndex={0}>
        <caption className="visually-hidden">Webhook endpoints</caption>
        <thead>
          <tr>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Status</th>
            <th scope="col">Description</th>
            {who.canChange && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {hooks.map((hook) => (
            <tr key={hook.id}>
              <td>
                <a href={hrefOf({ page: 'deliveries', app, webhook: hook.id })} aria-label={`Deliveries of ${hook.url}`}>
                  {hook.url}
                </a>
              </td>
              <td>{subscriptionInWords(hook.event_types)}</td>
              <td>{hook.status === 'disabled' ? disabledInWords(hook.disabled_reason) : 'active'}</td>
              <td>{hook.description}</td>
              {who.canChange && (
                <td className="actions">
                  <button type="button" onClick={() => act.mutate({ hook, action: 'ping' })} aria-label={`Ping ${hook.url}`}>
                    Ping
                  </button>
                  <button type="button" onClick={() => act.mutate({ hook, action: 'rotate' })} aria-label={`Rotate secret of ${hook.url}`}>
                    Rotate secret
                  </button>
                  {hook.status === 'active' ? (
                    <button type="button" onClick={() => act.mutate({ hook, action: 'disable' })} aria-label={`Disable ${hook.url}`}>
                      Disable
                    </button>
                  ) : (
                    <button type="button" onClick={() => act.mutate({ hook, action: 'enable' })} aria-label={`Enable ${hook.url}`}>
                      Enable
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {list.isSuccess && hooks.length === 0 && <p>No endpoints yet.</p>}
      <MoreButton list={list} />
    </>
  );
}

function CreateWebhook({ app, onCreated }: { app: string; onCreated: (made: { url: string; secret: string }) => void }) {
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formElement = e.currentTarget;
    const form = new FormData(formElement);
    const types = form.getAll('event_types').map(String) as EventType[];
    const description = String(form.get('description') ?? '');
    try {
      const made = await must(
        admin.POST('/admin/applications/{app}/webhooks', {
          params: { path: { app } },
          body: { url: String(form.get('url')), ...(types.length ? { event_types: types } : {}), ...(description ? { description } : {}) },
        }),
      );
      setFields({});
      setError(null);
      formElement.reset();
      onCreated({ url: made.url, secret: made.secret });
    } catch (err) {
      setFields(err instanceof ApiFailure ? (err.body.fields ?? {}) : {});
      setError(problemOf(err));
    }
  }
  return (
    <form className="row" onSubmit={(e) => void submit(e)} aria-label="New webhook endpoint">
      <Field
        label="URL"
        name="url"
        error={fields.url}
        type="url"
        required
        maxLength={2048}
        placeholder="https://crm.example.com/hooks/coupons"
      />
      <fieldset>
        <legend>Events (none ticked: all)</legend>
        {EVENT_TYPES.map((t) => (
          <label key={t} className="inline">
            <input type="checkbox" name="event_types" value={t} /> {EVENT_WORDS[t]}
          </label>
        ))}
      </fieldset>
      <Field label="Description" name="description" error={fields.description} maxLength={500} />
      <button type="submit">Register endpoint</button>
      {/* A refusal not about one field (e.g. a private address) is said here. */}
      {!fields.url && !fields.description && <ErrorLine error={error} />}
    </form>
  );
}

/** One endpoint's deliveries, newest first, filtered by status; redeliver one event or a time range. */
export function DeliveriesPage({ app, webhook, who }: { app: string; webhook: string; who: Who }) {
  const queries = useQueryClient();
  const application = useApplication(app);
  const timeZone = application.data?.timezone ?? null;
  const [status, setStatus] = useState<Delivery['status'] | ''>('');
  /** The endpoint, to name it by its description or URL (the admin API lists endpoints; it has no read of one). */
  const endpoint = useQuery({
    queryKey: ['webhooks', app, 'one', webhook],
    queryFn: async () =>
      (
        await everyPage(
          (cursor) => must(admin.GET('/admin/applications/{app}/webhooks', { params: { path: { app }, query: { cursor, limit: 100 } } })),
          (p) => p.webhooks,
        )
      ).find((w) => w.id === webhook) ?? null,
  });
  const [told, setTold] = useState<string | null>(null);
  const list = useInfiniteQuery({
    queryKey: ['deliveries', app, webhook, status],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      must(
        admin.GET('/admin/applications/{app}/webhooks/{webhook}/deliveries', {
          params: { path: { app, webhook }, query: { cursor: pageParam, limit: 50, ...(status ? { status } : {}) } },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
    refetchInterval: 5000,
  });
  const redeliver = useMutation({
    mutationFn: (body: { event_id: string } | { from: string; to: string }) =>
      must(admin.POST('/admin/applications/{app}/webhooks/{webhook}/redeliver', { params: { path: { app, webhook } }, body })),
    onMutate: () => setTold(null),
    onSuccess: (r) => setTold(`${r.queued} ${r.queued === 1 ? 'delivery' : 'deliveries'} queued again.`),
    onSettled: () => queries.invalidateQueries({ queryKey: ['deliveries', app, webhook] }),
  });
  function redeliverRange(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const from = instantIn(String(form.get('from') ?? ''), timeZone);
    const to = instantIn(String(form.get('to') ?? ''), timeZone);
    if (from && to) redeliver.mutate({ from, to });
  }
  const rows = list.data?.pages.flatMap((p) => p.deliveries) ?? [];
  return (
    <>
      <AppCrumbs app={app}>
        <a href={hrefOf({ page: 'webhooks', app })}>webhooks</a> / {endpoint.data ? endpoint.data.description || endpoint.data.url : '…'}
      </AppCrumbs>
      <h1>Deliveries</h1>
      <label className="inline">
        Status{' '}
        <select value={status} onChange={(e) => setStatus(e.target.value as Delivery['status'] | '')}>
          <option value="">any</option>
          {(Object.keys(DELIVERY_STATUS_WORDS) as Delivery['status'][]).map((s) => (
            <option key={s} value={s}>
              {DELIVERY_STATUS_WORDS[s]}
            </option>
          ))}
        </select>
      </label>
      {who.canChange && (
        <form className="row" onSubmit={redeliverRange} aria-label="Redeliver a time range">
          <label>
            From
            <input name="from" type="datetime-local" required />
          </label>
          <label>
            Before
            <input name="to" type="datetime-local" required />
          </label>
          <button type="submit">Redeliver every event of the range</button>
          <span className="hint">Times are in {timeZone ?? 'your browser’s timezone'}.</span>
        </form>
      )}
      {told && (
        <p role="status" className="notice">
          {told}
        </p>
      )}
      <ErrorLine error={redeliver.error ? problemOf(redeliver.error) : null} />
      <ErrorLine error={list.error} />
      <table tabIndex={0}>
        <caption className="visually-hidden">Deliveries, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event</th>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Next attempt</th>
            {who.canChange && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => (
            <tr key={d.id}>
              <td>{formatWhen(d.created_at, timeZone)}</td>
              <td>
                <code>{d.event_id}</code>
              </td>
              <td>{eventInWords(d.event_type)}</td>
              <td data-testid="delivery-status">{DELIVERY_STATUS_WORDS[d.status]}</td>
              <td>{d.attempts}</td>
              <td>{d.last_error ?? (d.last_status_code !== null ? String(d.last_status_code) : '—')}</td>
              <td>{d.next_attempt_at ? formatWhen(d.next_attempt_at, timeZone) : '—'}</td>
              {who.canChange && (
                <td className="actions">
                  {/* A ping is no event of the application's stream: ping again instead (docs/events.md). */}
                  {d.event_type !== 'webhook.ping' && (
                    <button type="button" onClick={() => redeliver.mutate({ event_id: d.event_id })} aria-label={`Redeliver ${d.event_id}`}>
                      Redeliver
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {list.isSuccess && rows.length === 0 && <p>No deliveries.</p>}
      <MoreButton list={list} />
    </>
  );
}
