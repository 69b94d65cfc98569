import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, ApiFailure, must, problemOf, type Application, type Who } from '../api';
import { ErrorLine, MoreButton } from '../parts';
import { hrefOf } from '../route';

/** Applications: create, change the promotion settings, rotate the secret, disable or enable, archive or unarchive. */
export function ApplicationsPage({ who }: { who: Who }) {
  const queries = useQueryClient();
  const [showArchived, setShowArchived] = useState(false);
  const [secret, setSecret] = useState<{ name: string; api_key: string; secret: string } | null>(null);
  const [settingsOf, setSettingsOf] = useState<string | null>(null);
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
        const chosen = apps.find((a) => a.id === settingsOf);
        return chosen && who.canChange ? <PromotionSettings key={chosen.id} app={chosen} onDone={() => setSettingsOf(null)} /> : null;
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
};

/**
 * An application's promotion settings (docs/stacking.md): how many coupons one order may take, and
 * whether automatic promotions apply. Only what changed is sent; a refusal is said beside its field.
 */
function PromotionSettings({ app, onDone }: { app: Application; onDone: () => void }) {
  const queries = useQueryClient();
  const [count, setCount] = useState(String(app.stacking.max_coupons));
  const [automatic, setAutomatic] = useState(app.stacking.automatic_promotions);
  const [giftCards, setGiftCards] = useState(app.gift_cards_at_checkout);
  const [earnOnRedeem, setEarnOnRedeem] = useState(app.loyalty.earn_on_redeem);
  const save = useMutation({
    mutationFn: () => {
      const typed = count.trim();
      const max = typed !== '' && Number.isFinite(Number(typed)) ? Number(typed) : typed;
      const stacking = {
        ...(max !== app.stacking.max_coupons ? { max_coupons: max as number } : {}),
        ...(automatic !== app.stacking.automatic_promotions ? { automatic_promotions: automatic } : {}),
      };
      const loyalty = earnOnRedeem !== app.loyalty.earn_on_redeem ? { earn_on_redeem: earnOnRedeem } : null;
      const body = {
        ...(Object.keys(stacking).length > 0 ? { stacking } : {}),
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
  const title = `Promotion settings of ${app.name}`;
  return (
    <form
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
      {save.error && !countError && <ErrorLine error={problemOf(save.error)} />}
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
