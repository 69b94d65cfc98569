import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { admin, ApiFailure, must, problemOf, type Who } from '../api';
import { copyDraftOf, draftOf, emptyDraft, type Draft } from '../campaign-draft';
import { AppCrumbs, ErrorLine } from '../parts';
import { hrefOf } from '../route';
import { useApplication } from '../use-application';
import { useWallets, walletPairs } from '../use-wallets';
import { BudgetUse, useCampaignUsage } from './budget-use';
import { CampaignForm } from './campaign-editor/campaign-form';
import { PreviewPanel, useCampaignPreview } from './campaign-editor/preview';
import { useSaveCampaign } from './campaign-editor/save';
import { useTryOnPastCarts } from './campaign-editor/try-past-carts';

/**
 * The campaign editor: every rule of docs/campaigns.md. As the person types, the admin API's
 * campaign preview checks the draft (nothing saved) — its refusals are shown beside their fields
 * and, when it would be saved, the messages its rules can give a customer are listed.
 */
export function CampaignEditorPage({ app, campaign, copyOf, who }: { app: string; campaign?: string; copyOf?: string; who: Who }) {
  const editing = campaign !== undefined;
  // Editing reads the campaign; a copy reads the campaign it starts from.
  const source = campaign ?? copyOf;
  const saved = useQuery({
    queryKey: ['campaign', app, source],
    enabled: source !== undefined,
    queryFn: () => must(admin.GET('/admin/applications/{app}/campaigns/{campaign}', { params: { path: { app, campaign: source! } } })),
  });
  const [draft, setDraft] = useState<Draft | null>(source !== undefined ? null : emptyDraft());
  useEffect(() => {
    if (saved.data && draft === null) setDraft(editing ? draftOf(saved.data) : copyDraftOf(saved.data));
  }, [saved.data, draft, editing]);
  const wallets = useWallets(app);
  const walletNames = walletPairs(wallets.data);
  const tierWallets = wallets.data?.wallets.flatMap((w) =>
    w.tiers ? [{ wallet_id: w.wallet_id, wallet_name: w.wallet_name, levels: w.tiers.levels.map((l) => l.name) }] : [],
  );
  const currency = useApplication(app).data?.currency ?? null;
  const usage = useCampaignUsage(app, campaign);
  const { body, preview, refusal } = useCampaignPreview(app, campaign, draft);

  const save = useSaveCampaign(app, campaign, body);
  const tryIt = useTryOnPastCarts(app, campaign);

  // A refused try is about the form as it was sent: once changed, the preview speaks for it again.
  const tried = tryIt.error && JSON.stringify(tryIt.variables) === JSON.stringify(body) ? tryIt.error : null;
  const failure = save.error ?? tried ?? refusal;
  const errors: Record<string, string> = failure instanceof ApiFailure ? (failure.body.fields ?? {}) : {};
  const title = editing
    ? `Edit ${saved.data?.name ?? 'campaign'}`
    : copyOf
      ? `Copy of ${saved.data?.name ?? 'a campaign'}`
      : 'New campaign';
  if (!draft) {
    return (
      <>
        <h1>{title}</h1>
        <ErrorLine error={saved.error} />
        {!saved.error && <p className="loading">Loading…</p>}
      </>
    );
  }
  const set = (change: Partial<Draft>) => setDraft({ ...draft, ...change });
  const shown = new Set<string>();
  /** The message for `path`; `deep`: or for a part of it (an `in` list's third value: `….value.2`). */
  const err = (path: string, deep = false) => {
    const key = path in errors ? path : deep ? Object.keys(errors).find((k) => k.startsWith(`${path}.`)) : undefined;
    if (key === undefined) return undefined;
    shown.add(key);
    return errors[key];
  };
  const form = (
    <CampaignForm
      draft={draft}
      set={set}
      err={err}
      editing={editing}
      currency={currency}
      wallets={walletNames}
      tierWallets={tierWallets}
      walletsHref={hrefOf({ page: 'wallets', app })}
    />
  );
  // Problems not shown beside a field (a field the form does not render, or none at all) are said above Save.
  const elsewhere = Object.entries(errors).filter(([path]) => !shown.has(path));
  return (
    <>
      <AppCrumbs app={app}>{title}</AppCrumbs>
      <h1>{title}</h1>
      {campaign !== undefined && (
        <p>
          <a className="button" href={hrefOf({ page: 'results', app, campaign })}>
            Results
          </a>{' '}
          <span className="hint">redemptions, discount given, refusals and how fast its limits run out</span>{' '}
          {!who.canChange && <a href={hrefOf({ page: 'backtests', app, campaign })}>Backtest this campaign</a>}
        </p>
      )}
      {!who.canChange && <p className="hint">Your role ({who.role}) can read this campaign, not change it.</p>}
      {copyOf && (
        <p className="hint">
          A copy of every rule of {saved.data?.name ?? 'the campaign'}. It starts paused and needs a code of its own; the codes of a bulk
          campaign stay with it (generate or import new ones once it is created).
        </p>
      )}
      {editing && (
        <section aria-labelledby="budget-use-heading">
          <h2 id="budget-use-heading">Budget used</h2>
          <ErrorLine error={usage.error} />
          <BudgetUse budget={usage.data?.budget} currency={currency} />
        </section>
      )}
      <div className="editor">
        <form
          aria-label="Campaign"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <fieldset disabled={!who.canChange} className="plain">
            {form}
            {elsewhere.length > 0 && (
              <ul role="alert" className="error">
                {elsewhere.map(([path, message]) => (
                  <li key={path}>{message}</li>
                ))}
              </ul>
            )}
            {failure && Object.keys(errors).length === 0 && <ErrorLine error={problemOf(failure)} />}
            {who.canChange && (
              <div className="actions">
                <button type="submit">{editing ? 'Save changes' : 'Create campaign'}</button>
                <button
                  type="button"
                  disabled={tryIt.isPending || !body}
                  onClick={() => body && tryIt.mutate(body)}
                  aria-describedby="try-past-carts-hint"
                >
                  {tryIt.isPending ? 'Starting…' : 'Try this on past carts'}
                </button>
                <span className="hint" id="try-past-carts-hint">
                  replays the last 7 days of recorded carts with the form as it is, beside what really happened; nothing is saved
                </span>
              </div>
            )}
          </fieldset>
        </form>
        <PreviewPanel preview={preview} body={body} currency={currency} walletNames={new Map(walletNames)} />
      </div>
    </>
  );
}
