import { useInfiniteQuery, useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, ApiFailure, must, problemOf, type Wallet, type Who } from '../api';
import { sentenceOf } from '../field-errors';
import { AppCrumbs, ErrorLine, Field, MoreButton } from '../parts';
import { useApplication } from '../use-application';
import { formatWhen } from '../when';
import { describeEarningRule, draftsOf, EarningRulesFields, rulesOf, type RuleDraft } from '../earning-rules';
import { EarningCheck } from './earning-check';
import { assessmentInWords, levelInWords, tiersDetailsInWords, tiersDraftOf, TiersFields, tiersOf, type TiersDraft } from '../tiers';
import {
  describeExpiry,
  describePending,
  EXPIRY_KINDS,
  EXPIRY_LABELS,
  expiryOf,
  PENDING_KINDS,
  PENDING_LABELS,
  pendingOf,
  settingsDraftOf,
  type SettingsDraft,
} from '../wallet-settings';

/** Said wherever the settings can change: docs/wallets.md, each credit keeps the rules it was made under. */
const LATER_CREDITS_ONLY =
  'A change of points expiry or pending period applies to credits made after it is saved; points already credited keep their dates.';

/** An application's wallets: create one, change its names, points expiry, pending period, earning rules and tiers, archive or unarchive it. */
export function WalletsPage({ app, who }: { app: string; who: Who }) {
  const queries = useQueryClient();
  const application = useApplication(app);
  const [showArchived, setShowArchived] = useState(false);
  /** The one form open: a new wallet, or the wallet being edited (one at a time: one set of labels and error ids). */
  const [open, setOpen] = useState<{ wallet: Wallet | null } | null>(null);
  const [told, setTold] = useState<string | null>(null);
  /** The wallet whose earning an order is being checked against (anyone may: nothing is credited). */
  const [checking, setChecking] = useState<Wallet | null>(null);
  const list = useInfiniteQuery({
    queryKey: ['wallets', app, 'list', showArchived],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      must(
        admin.GET('/admin/applications/{app}/wallets', {
          params: { path: { app }, query: { cursor: pageParam, limit: 50, include_archived: showArchived } },
        }),
      ),
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const changed = () => queries.invalidateQueries({ queryKey: ['wallets', app] });
  const act = useMutation({
    mutationFn: async ({ wallet, action }: { wallet: Wallet; action: 'archive' | 'unarchive' }) => {
      const path = { params: { path: { app, wallet_id: wallet.wallet_id } } };
      if (action === 'archive') await must(admin.POST('/admin/applications/{app}/wallets/{wallet_id}/archive', path));
      else await must(admin.POST('/admin/applications/{app}/wallets/{wallet_id}/unarchive', path));
      setTold(`Wallet “${wallet.wallet_name}” ${action}d.`);
    },
    onMutate: () => setTold(null),
    onSettled: changed,
  });
  const wallets = list.data?.pages.flatMap((p) => p.wallets) ?? [];
  return (
    <>
      <AppCrumbs app={app}>wallets</AppCrumbs>
      <h1>Wallets</h1>
      {!who.canChange && <p className="hint">You can read everything here; your role ({who.role}) changes nothing.</p>}
      {who.canChange && !open && (
        <p>
          <button
            type="button"
            onClick={() => {
              setTold(null);
              setOpen({ wallet: null });
            }}
          >
            New wallet
          </button>
        </p>
      )}
      {who.canChange && open && (
        <WalletForm
          key={open.wallet?.wallet_id ?? 'new'}
          app={app}
          application={application.data ?? null}
          wallet={open.wallet}
          onCancel={() => setOpen(null)}
          onSaved={(message, saved) => {
            // The saved wallet replaces its row at once: an Edit clicked before the refetch starts from it, not from the old row.
            queries.setQueriesData<InfiniteData<{ wallets: Wallet[] }>>(
              { queryKey: ['wallets', app, 'list'] },
              (data) =>
                data && {
                  ...data,
                  pages: data.pages.map((p) => ({ ...p, wallets: p.wallets.map((w) => (w.wallet_id === saved.wallet_id ? saved : w)) })),
                },
            );
            setOpen(null);
            setTold(message);
            void changed();
          }}
        />
      )}
      {told && (
        <p role="status" className="notice">
          {told}
        </p>
      )}
      {checking && (
        <EarningCheck key={checking.wallet_id} app={app} wallet={checking} currency={checking.currency} onClose={() => setChecking(null)} />
      )}
      <label className="inline">
        <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} /> Show archived
      </label>
      <ErrorLine error={act.error} />
      <ErrorLine error={list.error} />
      <table tabIndex={0}>
        <caption className="visually-hidden">Wallets</caption>
        <thead>
          <tr>
            <th scope="col">Wallet</th>
            <th scope="col">Units</th>
            <th scope="col">Currency</th>
            <th scope="col">Timezone</th>
            <th scope="col">Points expire</th>
            <th scope="col">Pending period</th>
            <th scope="col">Orders earn</th>
            <th scope="col">Tiers</th>
            <th scope="col">Status</th>
            {who.canChange && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {wallets.map((w) => (
            <tr key={w.wallet_id}>
              <td>
                {w.wallet_name} <code>{w.wallet_id}</code>
              </td>
              <td>
                {w.singular_unit_name} / {w.plural_unit_name}
              </td>
              <td>{w.currency}</td>
              <td>{w.timezone}</td>
              <td data-testid={`expiry-${w.wallet_id}`}>{describeExpiry(w.points_expiry)}</td>
              <td data-testid={`pending-${w.wallet_id}`}>{describePending(w.pending, w.timezone)}</td>
              <td>
                <div data-testid={`earning-${w.wallet_id}`}>
                  {w.earning_rules && w.earning_rules.length > 0 ? (
                    <ul className="plain">
                      {w.earning_rules.map((r) => (
                        <li key={r.name}>{describeEarningRule(r, w.currency, { one: w.singular_unit_name, many: w.plural_unit_name })}</li>
                      ))}
                    </ul>
                  ) : (
                    'nothing'
                  )}
                </div>
                {w.earning_rules && w.earning_rules.length > 0 && (
                  <button type="button" onClick={() => setChecking(w)} aria-label={`Check an order in ${w.wallet_name}`}>
                    Check an order
                  </button>
                )}
              </td>
              <td data-testid={`tiers-${w.wallet_id}`}>
                <TiersInWords wallet={w} />
              </td>
              <td>{w.archived_at ? `archived ${formatWhen(w.archived_at, application.data?.timezone)}` : 'active'}</td>
              {who.canChange && (
                <td className="actions">
                  {!w.archived_at && (
                    <button
                      type="button"
                      onClick={() => {
                        setTold(null);
                        setOpen({ wallet: w });
                      }}
                      aria-label={`Edit wallet ${w.wallet_name}`}
                    >
                      Edit
                    </button>
                  )}
                  {w.archived_at ? (
                    <button
                      type="button"
                      onClick={() => act.mutate({ wallet: w, action: 'unarchive' })}
                      aria-label={`Unarchive wallet ${w.wallet_name}`}
                    >
                      Unarchive
                    </button>
                  ) : (
                    <button
                      type="button"
                      onClick={() => act.mutate({ wallet: w, action: 'archive' })}
                      aria-label={`Archive wallet ${w.wallet_name}`}
                    >
                      Archive
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {list.isSuccess && wallets.length === 0 && <p>No wallets yet.</p>}
      <MoreButton list={list} />
    </>
  );
}

/** A wallet's tiers for the list: how they are assessed, then each level. */
function TiersInWords({ wallet }: { wallet: Wallet }) {
  const tiers = wallet.tiers;
  if (!tiers) return <>none</>;
  const units = { one: wallet.singular_unit_name, many: wallet.plural_unit_name };
  return (
    <>
      Assessed {assessmentInWords(tiers)}:
      <ul className="plain">
        {tiers.levels.map((l, i) => (
          <li key={l.name}>{levelInWords(l, i, units)}</li>
        ))}
      </ul>
    </>
  );
}

interface Names {
  wallet_id: string;
  wallet_name: string;
  currency: string;
  singular_unit_name: string;
  plural_unit_name: string;
  timezone: string;
}
const NAME_FIELDS = ['wallet_id', 'wallet_name', 'currency', 'singular_unit_name', 'plural_unit_name', 'timezone'] as const;

/**
 * A new wallet (`POST …/wallets`: every field optional, the API's defaults said in the labels) or
 * one wallet's changes (`PATCH …/wallets/:wallet_id`: only what was changed is sent; the currency
 * and timezone cannot change). The API's refusals are shown beside their fields.
 */
function WalletForm({
  app,
  application,
  wallet,
  onSaved,
  onCancel,
}: {
  app: string;
  /** The application (its currency and timezone are a new wallet's defaults); null while it loads. */
  application: { currency?: string | null; timezone?: string | null } | null;
  wallet: Wallet | null;
  onSaved: (message: string, saved: Wallet) => void;
  onCancel: () => void;
}) {
  const initialNames: Names = {
    wallet_id: wallet?.wallet_id ?? '',
    wallet_name: wallet?.wallet_name ?? '',
    currency: wallet?.currency ?? '',
    singular_unit_name: wallet?.singular_unit_name ?? '',
    plural_unit_name: wallet?.plural_unit_name ?? '',
    timezone: wallet?.timezone ?? '',
  };
  const [names, setNames] = useState<Names>(initialNames);
  /** The clock a pending `until` is typed on: the wallet's timezone (a new one's: as typed, else the application's). */
  const walletZone = wallet?.timezone ?? (names.timezone.trim() || application?.timezone || null);
  const [initialSettings] = useState(() => settingsDraftOf(wallet?.points_expiry ?? null, wallet?.pending ?? null, walletZone));
  const [d, setDraft] = useState<SettingsDraft>(initialSettings);
  const [initialRules] = useState(() => draftsOf(wallet?.earning_rules));
  const [rules, setRules] = useState<RuleDraft[]>(initialRules);
  const [initialTiers] = useState(() => tiersDraftOf(wallet?.tiers ?? null));
  const [tiers, setTiers] = useState<TiersDraft>(initialTiers);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const set = (change: Partial<SettingsDraft>) => setDraft({ ...d, ...change });
  /** The API's message for a field, or for a part of it (`points_expiry.amount`). */
  const fieldError = (name: string) => Object.entries(fields).find(([k]) => k === name || k.startsWith(`${name}.`))?.[1];
  const described = (name: string) =>
    fieldError(name) ? { 'aria-invalid': true as const, 'aria-describedby': `field-${name}-error` } : ({} as const);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setSaving(true);
    try {
      if (wallet) {
        const body: Record<string, unknown> = {};
        for (const k of ['wallet_name', 'singular_unit_name', 'plural_unit_name'] as const)
          if (names[k] !== initialNames[k]) body[k] = names[k];
        const expiry = expiryOf(d);
        if (JSON.stringify(expiry) !== JSON.stringify(expiryOf(initialSettings))) body.points_expiry = expiry;
        const pending = pendingOf(d, walletZone);
        if (JSON.stringify(pending) !== JSON.stringify(pendingOf(initialSettings, walletZone))) body.pending = pending;
        if (JSON.stringify(rulesOf(rules)) !== JSON.stringify(rulesOf(initialRules))) body.earning_rules = rulesOf(rules);
        if (JSON.stringify(tiersOf(tiers)) !== JSON.stringify(tiersOf(initialTiers))) body.tiers = tiersOf(tiers);
        if (Object.keys(body).length === 0) {
          setFields({});
          setError('Nothing changed.');
          return;
        }
        const saved = await must(
          admin.PATCH('/admin/applications/{app}/wallets/{wallet_id}', {
            params: { path: { app, wallet_id: wallet.wallet_id } },
            body: body as never,
          }),
        );
        onSaved(`Wallet “${saved.wallet_name}” saved.`, saved);
      } else {
        const body: Record<string, unknown> = { points_expiry: expiryOf(d), pending: pendingOf(d, walletZone) };
        if (rules.length > 0) body.earning_rules = rulesOf(rules);
        if (tiers.assessment !== 'none') body.tiers = tiersOf(tiers);
        // Left blank: the API's default.
        for (const k of NAME_FIELDS) if (names[k].trim() !== '') body[k] = names[k].trim();
        const made = await must(admin.POST('/admin/applications/{app}/wallets', { params: { path: { app } }, body: body as never }));
        onSaved(`Wallet “${made.wallet_name}” created.`, made);
      }
    } catch (err) {
      setFields(err instanceof ApiFailure ? (err.body.fields ?? {}) : {});
      setError(tiersDetailsInWords(problemOf(err)));
    } finally {
      setSaving(false);
    }
  }

  const text = (name: (typeof NAME_FIELDS)[number], label: string, more: { maxLength?: number; placeholder?: string } = {}) => (
    <Field
      label={label}
      name={name}
      value={names[name]}
      onChange={(e) => setNames({ ...names, [name]: e.target.value })}
      error={fieldError(name)}
      {...more}
    />
  );
  const shownFields = [...NAME_FIELDS, 'points_expiry', 'pending', 'earning_rules', 'tiers'];
  const elsewhere = Object.entries(fields).filter(([k]) => !shownFields.some((f) => k === f || k.startsWith(`${f}.`)));
  const title = wallet ? `Edit wallet ${wallet.wallet_name}` : 'New wallet';
  return (
    <form className="panel wallet-form" aria-label={title} onSubmit={(e) => void submit(e)}>
      <h2>{title}</h2>
      {!wallet && text('wallet_id', 'Wallet id (blank: generated)', { maxLength: 64 })}
      {text('wallet_name', 'Wallet name', { maxLength: 200, placeholder: wallet ? undefined : 'Loyalty points' })}
      {text('singular_unit_name', 'Unit name, singular', { maxLength: 50, placeholder: wallet ? undefined : 'point' })}
      {text('plural_unit_name', 'Unit name, plural', { maxLength: 50, placeholder: wallet ? undefined : 'points' })}
      {!wallet &&
        text('currency', `Currency (blank: the application's${application?.currency ? `, ${application.currency}` : ''})`, {
          maxLength: 3,
          placeholder: application?.currency ?? undefined,
        })}
      {!wallet &&
        text('timezone', `Timezone (blank: the application's${application?.timezone ? `, ${application.timezone}` : ''})`, {
          placeholder: application?.timezone ?? undefined,
        })}
      {wallet && (
        <p className="hint">
          Currency {wallet.currency} and timezone {wallet.timezone} cannot change.
        </p>
      )}

      <fieldset className={fieldError('points_expiry') ? 'invalid' : undefined}>
        <legend>Points expiry</legend>
        <label>
          Points expire
          <select
            value={d.expiry}
            onChange={(e) => set({ expiry: e.target.value as SettingsDraft['expiry'] })}
            {...described('points_expiry')}
          >
            {EXPIRY_KINDS.map((k) => (
              <option key={k} value={k}>
                {EXPIRY_LABELS[k]}
              </option>
            ))}
          </select>
        </label>
        {(d.expiry === 'days' || d.expiry === 'months') && (
          <label>
            Number of {d.expiry} (1–3650)
            <input inputMode="numeric" value={d.amount} onChange={(e) => set({ amount: e.target.value })} {...described('points_expiry')} />
          </label>
        )}
        {fieldError('points_expiry') && (
          <span id="field-points_expiry-error" className="field-error">
            {sentenceOf(
              fieldError('points_expiry')!,
              d.expiry === 'days' || d.expiry === 'months' ? `Number of ${d.expiry}` : 'Points expiry',
            )}
          </span>
        )}
        <p className="hint">Calendar days, months and period ends are read on the wallet&apos;s timezone.</p>
      </fieldset>

      <fieldset className={fieldError('pending') ? 'invalid' : undefined}>
        <legend>Pending period</legend>
        <label>
          New credits are
          <select
            value={d.pending}
            onChange={(e) => set({ pending: e.target.value as SettingsDraft['pending'] })}
            {...described('pending')}
          >
            {PENDING_KINDS.map((k) => (
              <option key={k} value={k}>
                {PENDING_LABELS[k]}
              </option>
            ))}
          </select>
        </label>
        {d.pending === 'days' && (
          <label>
            Pending days (1–3650)
            <input inputMode="numeric" value={d.days} onChange={(e) => set({ days: e.target.value })} {...described('pending')} />
          </label>
        )}
        {d.pending === 'until' && (
          <label>
            Pending until, on the wallet&apos;s clock ({walletZone ?? 'your browser’s timezone'})
            <input type="datetime-local" value={d.until} onChange={(e) => set({ until: e.target.value })} {...described('pending')} />
          </label>
        )}
        {fieldError('pending') && (
          <span id="field-pending-error" className="field-error">
            {sentenceOf(
              fieldError('pending')!,
              d.pending === 'days' ? 'Pending days' : d.pending === 'until' ? 'Pending until' : 'Pending period',
            )}
          </span>
        )}
      </fieldset>

      <EarningRulesFields
        drafts={rules}
        onChange={setRules}
        currency={wallet?.currency ?? (names.currency.trim() || application?.currency)}
        errors={Object.fromEntries(Object.entries(fields).filter(([k]) => k.startsWith('earning_rules')))}
      />

      <TiersFields
        draft={tiers}
        onChange={setTiers}
        timeZone={walletZone}
        errors={Object.fromEntries(Object.entries(fields).filter(([k]) => k === 'tiers' || k.startsWith('tiers.')))}
      />

      <p className="hint" data-testid="later-credits-only">
        {LATER_CREDITS_ONLY}
      </p>
      {elsewhere.length > 0 && (
        <ul role="alert" className="error">
          {elsewhere.map(([path, message]) => (
            <li key={path}>{message}</li>
          ))}
        </ul>
      )}
      {Object.keys(fields).length === 0 && <ErrorLine error={error} />}
      <div className="actions">
        <button type="submit" disabled={saving}>
          {wallet ? 'Save wallet' : 'Create wallet'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
