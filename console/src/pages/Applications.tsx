import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { admin, ApiFailure, must, problemOf, type Application, type Who } from '../api';
import { ErrorLine, MoreButton } from '../parts';
import { hrefOf } from '../route';
import { useApplication } from '../use-application';

/**
 * Applications: create, change the promotion settings, rotate the secret, disable or enable, archive or unarchive.
 * `settings`: an application whose promotion settings open with the page (`#/applications/<app>/settings`, linked from other pages).
 */
export function ApplicationsPage({ who, settings }: { who: Who; settings?: string }) {
  const queries = useQueryClient();
  const [showArchived, setShowArchived] = useState(false);
  const [secret, setSecret] = useState<{ name: string; api_key: string; secret: string } | null>(null);
  const [settingsOf, setSettingsOf] = useState<string | null>(settings ?? null);
  // Opened by a link: the application is read on its own, whichever page of the list holds it.
  const linked = useApplication(settings);
  const list = useInfiniteQuery({
    queryKey: ['applications', showArchived],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      must(admin.GET('/admin/applications', { params: { query: { cursor: pageParam, limit: 50, include_archived: showArchived } } })),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const changed = () => queries.invalidateQueries({ queryKey: ['applications'] });

  const act = useMutation({
    mutationFn: async ({ app, action }: { app: Application; action: 'rotate' | 'disable' | 'enable' | 'archive' | 'unarchive' }) => {
      const path = { params: { path: { app: app.id } } };
      switch (action) {
        case 'rotate': {
          const fresh = await must(admin.POST('/admin/applications/{app}/rotate-secret', path));
          setSecret({ name: app.name, api_key: fresh.api_key, secret: fresh.secret });
          return;
        }
        case 'disable':
        case 'enable':
          await must(admin.PATCH('/admin/applications/{app}', { ...path, body: { status: action === 'disable' ? 'disabled' : 'active' } }));
          return;
        case 'archive':
          await must(admin.POST('/admin/applications/{app}/archive', path));
          return;
        case 'unarchive':
          await must(admin.POST('/admin/applications/{app}/unarchive', path));
          return;
      }
    },
    onSettled: changed,
  });

  const apps = list.data?.pages.flatMap((p) => p.applications) ?? [];
  return (
    <>
      <h1>Applications</h1>
      {who.canChange && (
        <CreateApplication
          onCreated={(made) => {
            setSecret(made);
            void changed();
          }}
        />
      )}
      {secret && (
        <section className="notice" role="status" aria-label="New credentials">
          <p>
            Credentials of <strong>{secret.name}</strong> — the secret is shown only now:
          </p>
          <dl>
            <dt>API key</dt>
            <dd>
              <code>{secret.api_key}</code>
            </dd>
            <dt>Secret</dt>
            <dd>
              <code data-testid="secret">{secret.secret}</code>
            </dd>
          </dl>
          <button type="button" onClick={() => setSecret(null)}>
            Done
          </button>
        </section>
      )}
      <label className="inline">
        <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} /> Show archived
      </label>
      <ErrorLine error={act.error} />
      <ErrorLine error={list.error} />
      {(() => {
        const chosen = apps.find((a) => a.id === settingsOf) ?? (linked.data?.id === settingsOf ? linked.data : undefined);
        const done = () => {
          setSettingsOf(null);
          if (settings) window.location.hash = hrefOf({ page: 'applications' });
        };
        return chosen && who.canChange ? (
          <PromotionSettings key={chosen.id} app={chosen} onDone={done} linked={chosen.id === settings} />
        ) : null;
      })()}
      <table tabIndex={0}>
        <caption className="visually-hidden">Applications</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Id</th>
            <th scope="col">Status</th>
            <th scope="col">Timezone</th>
            <th scope="col">Currency</th>
            <th scope="col">Coupons per order</th>
            <th scope="col">Created</th>
            {who.canChange && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {apps.map((app) => (
            <tr key={app.id}>
              <td>
                <a href={hrefOf({ page: 'campaigns', app: app.id })}>{app.name}</a>
              </td>
              <td>
                <code>{app.id}</code>
              </td>
              <td>{app.archived_at ? 'archived' : app.status}</td>
              <td>{app.timezone}</td>
              <td>{app.currency ?? '—'}</td>
              <td data-testid="coupons-per-order">
                {app.stacking.max_coupons}
                {app.stacking.automatic_promotions ? ', and automatic promotions' : ''}
              </td>
              <td>{new Date(app.created_at).toLocaleString()}</td>
              {who.canChange && (
                <td className="actions">
                  <button type="button" onClick={() => setSettingsOf(app.id)} aria-label={`Promotion settings of ${app.name}`}>
                    Promotion settings
                  </button>
                  <button type="button" onClick={() => act.mutate({ app, action: 'rotate' })} aria-label={`Rotate secret of ${app.name}`}>
                    Rotate secret
                  </button>
                  {app.status === 'active' ? (
                    <button type="button" onClick={() => act.mutate({ app, action: 'disable' })} aria-label={`Disable ${app.name}`}>
                      Disable
                    </button>
                  ) : (
                    <button type="button" onClick={() => act.mutate({ app, action: 'enable' })} aria-label={`Enable ${app.name}`}>
                      Enable
                    </button>
                  )}
                  {app.archived_at ? (
                    <button type="button" onClick={() => act.mutate({ app, action: 'unarchive' })} aria-label={`Unarchive ${app.name}`}>
                      Unarchive
                    </button>
                  ) : (
                    <button type="button" onClick={() => act.mutate({ app, action: 'archive' })} aria-label={`Archive ${app.name}`}>
                      Archive
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <MoreButton list={list} />
    </>
  );
}

function CreateApplication({ onCreated }: { onCreated: (made: { name: string; api_key: string; secret: string }) => void }) {
  const [error, setError] = useState<string | null>(null);
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formElement = e.currentTarget;
    const form = new FormData(formElement);
    const timezone = String(form.get('timezone') || '');
    const currency = String(form.get('currency') || '');
    try {
      const made = await must(
        admin.POST('/admin/applications', {
          body: { name: String(form.get('name')), ...(timezone ? { timezone } : {}), ...(currency ? { currency } : {}) },
        }),
      );
      setError(null);
      formElement.reset();
      onCreated({ name: made.name, api_key: made.api_key, secret: made.secret });
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : String(err));
    }
  }
  return (
    <form className="row" onSubmit={(e) => void submit(e)} aria-label="New application">
      <label>
        Name
        <input name="name" required maxLength={200} />
      </label>
      <label>
        Timezone
        <input name="timezone" placeholder="UTC" />
      </label>
      <label>
        Currency
        <input name="currency" placeholder="EUR" maxLength={3} />
      </label>
      <button type="submit">Create application</button>
      <ErrorLine error={error} />
    </form>
  );
}

/** What to change, in a promotion manager's words, for each setting the admin API refuses. */
const SETTING_WORDS: Record<string, string> = {
  'stacking.max_coupons': 'Choose a whole number from 1 to 10.',
  'stacking.automatic_promotions': 'Choose whether automatic promotions apply.',
  'cart_recording.retention_days': 'Choose a whole number of days from 1 to 400.',
  'cart_recording.enabled': 'Choose whether carts are recorded.',
};

/**
 * An application's promotion settings (docs/stacking.md): how many coupons one order may take,
 * whether automatic promotions apply, points on redeem, gift cards at checkout, and whether carts
 * are recorded for backtests and for how long. Only what changed is sent; a refusal is said beside its field.
 */
function PromotionSettings({ app, onDone, linked = false }: { app: Application; onDone: () => void; linked?: boolean }) {
  const queries = useQueryClient();
  const form = useRef<HTMLFormElement>(null);
  // Opened by a link from another page: the form is what the person came for.
  useEffect(() => {
    if (linked) form.current?.scrollIntoView({ block: 'start' });
  }, [linked]);
  const [count, setCount] = useState(String(app.stacking.max_coupons));
  const [automatic, setAutomatic] = useState(app.stacking.automatic_promotions);
  const [giftCards, setGiftCards] = useState(app.gift_cards_at_checkout);
  const [earnOnRedeem, setEarnOnRedeem] = useState(app.loyalty.earn_on_redeem);
  const [recording, setRecording] = useState(app.cart_recording.enabled);
  const [retention, setRetention] = useState(String(app.cart_recording.retention_days));
  const save = useMutation({
    mutationFn: () => {
      const typed = count.trim();
      const max = typed !== '' && Number.isFinite(Number(typed)) ? Number(typed) : typed;
      const stacking = {
        ...(max !== app.stacking.max_coupons ? { max_coupons: max as number } : {}),
        ...(automatic !== app.stacking.automatic_promotions ? { automatic_promotions: automatic } : {}),
      };
      const loyalty = earnOnRedeem !== app.loyalty.earn_on_redeem ? { earn_on_redeem: earnOnRedeem } : null;
      const typedDays = retention.trim();
      const days = typedDays !== '' && Number.isFinite(Number(typedDays)) ? Number(typedDays) : typedDays;
      // Both keys when either changed: the setting is read as a whole.
      const cartRecording =
        recording !== app.cart_recording.enabled || days !== app.cart_recording.retention_days
          ? { enabled: recording, retention_days: days as number }
          : null;
      const body = {
        ...(Object.keys(stacking).length > 0 ? { stacking } : {}),
        ...(cartRecording ? { cart_recording: cartRecording } : {}),
        ...(loyalty ? { loyalty } : {}),
        ...(giftCards !== app.gift_cards_at_checkout ? { gift_cards_at_checkout: giftCards } : {}),
      };
      if (Object.keys(body).length === 0) return Promise.resolve(app);
      return must(admin.PATCH('/admin/applications/{app}', { params: { path: { app: app.id } }, body }));
    },
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: ['applications'] });
      await queries.invalidateQueries({ queryKey: ['application', app.id] });
      onDone();
    },
  });
  const fields = save.error instanceof ApiFailure ? (save.error.body.fields ?? {}) : {};
  const problem = (path: string) => (fields[path] === undefined ? undefined : (SETTING_WORDS[path] ?? fields[path]));
  const countError = problem('stacking.max_coupons');
  const retentionError = problem('cart_recording.retention_days');
  const title = `Promotion settings of ${app.name}`;
  return (
    <form
      ref={form}
      className="panel settings-form"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h2>{title}</h2>
      <div className={countError ? 'control invalid' : 'control'}>
        <label>
          Coupons per order (1–10)
          <input
            inputMode="numeric"
            value={count}
            onChange={(e) => setCount(e.target.value)}
            aria-invalid={countError ? true : undefined}
            aria-describedby={countError ? 'error-max-coupons' : 'hint-max-coupons'}
          />
        </label>
        {countError ? (
          <span className="field-error" id="error-max-coupons">
            {countError}
          </span>
        ) : (
          <span className="hint" id="hint-max-coupons">
            How many coupons a customer may use on one order. 1 keeps one coupon per order.
          </span>
        )}
      </div>
      <label className="inline">
        <input type="checkbox" checked={automatic} onChange={(e) => setAutomatic(e.target.checked)} /> Apply automatic promotions
      </label>
      <p className="hint">Promotions set to apply automatically, with no code, then apply to every order that meets their rules.</p>
      <label className="inline">
        <input type="checkbox" checked={earnOnRedeem} onChange={(e) => setEarnOnRedeem(e.target.checked)} /> Earn points when a completed
        order uses a coupon
      </label>
      <p className="hint">
        An order redeemed as completed then earns in your wallets by their earning rules, on what the customer pays, and gives the points
        back if the redeem is reverted. Orders without a coupon are reported by your shop.
      </p>
      <label className="inline">
        <input type="checkbox" checked={giftCards} onChange={(e) => setGiftCards(e.target.checked)} /> Gift cards at checkout
      </label>
      <p className="hint">
        Customers then pay with a gift card or their store credit by typing its code where a coupon code goes (
        <a href={hrefOf({ page: 'gift-cards', app: app.id })}>gift cards of {app.name}</a>).
      </p>
      <fieldset className="cart-recording">
        <legend>Backtests</legend>
        <label className="inline">
          <input type="checkbox" checked={recording} onChange={(e) => setRecording(e.target.checked)} /> Record carts for backtesting
        </label>
        <p className="hint">
          The carts your shop sends to list, check and redeem coupons are kept, so that a campaign — as it is, with a change, or a new one —
          can be tried on them (<a href={hrefOf({ page: 'backtests', app: app.id })}>backtests of {app.name}</a>). A customer’s carts are
          erased with the customer.
        </p>
        <div className={retentionError ? 'control invalid' : 'control'}>
          <label className="inline retention">
            Keep recorded carts for
            <input
              inputMode="numeric"
              size={4}
              value={retention}
              onChange={(e) => setRetention(e.target.value)}
              aria-invalid={retentionError ? true : undefined}
              aria-describedby={retentionError ? 'error-retention-days' : 'hint-retention-days'}
            />
            days
          </label>
          {retentionError ? (
            <span className="field-error" id="error-retention-days">
              {retentionError}
            </span>
          ) : (
            <span className="hint" id="hint-retention-days">
              From 1 to 400 days; older carts are erased.
            </span>
          )}
        </div>
      </fieldset>
      {save.error && !countError && !retentionError && <ErrorLine error={problemOf(save.error)} />}
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          Save settings
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
