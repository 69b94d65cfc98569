import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, ApiFailure, must, problemOf, type Application, type Backtest, type Who } from '../api';
import {
  CARTS_WORDS,
  KIND_WORDS,
  STATUS_WORDS,
  changedInWords,
  replayedInWords,
  outcomeInWords,
  periodOf,
  ranOutInWords,
  type BacktestResult,
} from '../backtest-words';
import { sentenceOf } from '../field-errors';
import { formatMoney } from '../money';
import { AppCrumbs, ErrorLine, ReasonsTable } from '../parts';
import { hrefOf } from '../route';
import { useApplication } from '../use-application';
import { useCampaignNames } from '../use-campaign-names';
import { addDays, dayKeyIn, formatWhen } from '../when';

/** How often a backtest still running is read again. */
const POLL_MS = 1000;
const finished = (b: Backtest) => b.status === 'done' || b.status === 'failed';

/**
 * Backtests (docs/console.md "Backtests"): a campaign as it is, a change to it or a new one tried
 * on the carts the application recorded, nothing changed live. The list page asks for one and
 * lists the last ones; a backtest's page follows it while it runs, then says what it would have
 * done beside what really happened, in the application's currency and on its clock.
 */
export function BacktestsPage({ app, backtest, campaign, who }: { app: string; backtest?: string; campaign?: string; who: Who }) {
  const application = useApplication(app);
  if (backtest !== undefined) return <BacktestView app={app} id={backtest} application={application.data ?? null} who={who} />;
  return (
    <>
      <AppCrumbs app={app}>backtests</AppCrumbs>
      <h1>Backtests</h1>
      <p>
        Try a campaign — as it is, with a change, or a new one — on the carts your shop really sent, and see what it would have done beside
        what actually happened. Nothing changes for customers: a backtest only reads the recorded carts.
      </p>
      <RecordingState app={app} application={application.data ?? null} who={who} />
      <BacktestForm key={campaign ?? ''} app={app} campaign={campaign} timeZone={application.data?.timezone ?? null} />
      <BacktestList app={app} timeZone={application.data?.timezone ?? null} />
    </>
  );
}

/** Whether the application records carts, and for how long; a link to the setting for those who may change it. */
function RecordingState({ app, application, who }: { app: string; application: Application | null; who: Who }) {
  if (!application) return null;
  const settings = <a href={hrefOf({ page: 'applications', settings: app })}>promotion settings of {application.name}</a>;
  const recording = application.cart_recording;
  if (!recording.enabled)
    return (
      <p className="notice" data-testid="recording-state">
        Cart recording is off for {application.name}: no new carts are recorded.{' '}
        {who.canChange ? (
          <>Turn on “Record carts for backtesting” in the {settings}.</>
        ) : (
          <>An editor or owner can turn on “Record carts for backtesting” in its promotion settings.</>
        )}
      </p>
    );
  const days = `${recording.retention_days} ${recording.retention_days === 1 ? 'day' : 'days'}`;
  return (
    <p className="hint" data-testid="recording-state">
      Carts are recorded and kept {days}
      {who.canChange ? <> (change it in the {settings}).</> : <>; an editor or owner can change this in its promotion settings.</>}
    </p>
  );
}

/** The admin API's refusal of one input of the form, in the form's words. */
const FORM_WORDS: Record<string, string> = {
  campaign_id: 'Choose the campaign to try.',
  carts: 'Choose which carts to replay.',
};

/** What to try: a campaign by its name, the days of recorded carts (the application's calendar), and which carts. */
function BacktestForm({ app, campaign, timeZone }: { app: string; campaign?: string; timeZone: string | null }) {
  const queries = useQueryClient();
  const campaigns = useCampaignNames(app);
  const today = dayKeyIn(new Date(), timeZone);
  const [chosen, setChosen] = useState(campaign ?? '');
  // The defaults follow the application's clock once it is read; what was typed stays.
  const [from, setFrom] = useState<string | null>(null);
  const [to, setTo] = useState<string | null>(null);
  const [carts, setCarts] = useState<Backtest['carts']>('presented');
  const run = useMutation({
    mutationFn: () =>
      must(
        admin.POST('/admin/applications/{app}/backtests', {
          params: { path: { app } },
          body: { campaign_id: chosen, from: from ?? addDays(today, -6), to: to ?? today, carts },
        }),
      ),
    onSuccess: async (made) => {
      await queries.invalidateQueries({ queryKey: ['backtests', app] });
      window.location.hash = hrefOf({ page: 'backtests', app, backtest: made.id });
    },
  });
  const fields = run.error instanceof ApiFailure ? (run.error.body.fields ?? {}) : {};
  const problem = (path: string, label: string) =>
    fields[path] === undefined ? undefined : (FORM_WORDS[path] ?? sentenceOf(fields[path], label));
  const errors = {
    campaign: problem('campaign_id', 'Campaign'),
    from: problem('from', 'From'),
    to: problem('to', 'To'),
    carts: problem('carts', 'Carts'),
  };
  const unplaced = run.error && !Object.values(errors).some(Boolean);
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    run.mutate();
  }
  const described = (id: string, error: string | undefined, hint?: string) => ({
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? `${id}-error` : hint,
  });
  return (
    <form className="panel backtest-form" aria-label="New backtest" onSubmit={submit}>
      <h2>New backtest</h2>
      <div className={errors.campaign ? 'control invalid' : 'control'}>
        {/* The label outside the select: its name is “Campaign”, not the option chosen. */}
        <label htmlFor="backtest-campaign">Campaign</label>
        <select
          id="backtest-campaign"
          value={chosen}
          onChange={(e) => setChosen(e.target.value)}
          required
          {...described('backtest-campaign', errors.campaign)}
        >
          <option value="">{campaigns.data ? 'Choose a campaign' : 'Loading the campaigns…'}</option>
          {(campaigns.data ?? []).map((c) => (
            <option key={c.id} value={c.id}>
              {c.archived ? `${c.name} (archived)` : c.name}
            </option>
          ))}
        </select>
        {errors.campaign && (
          <span id="backtest-campaign-error" className="field-error">
            {errors.campaign}
          </span>
        )}
      </div>
      <p className="hint">
        The campaign as it is now. To try a change, or a campaign not yet saved, use “Try this on past carts” in the campaign’s editor.
      </p>
      <fieldset>
        <legend>Carts recorded</legend>
        <div className="row">
          <div className={errors.from ? 'control invalid' : 'control'}>
            <label htmlFor="backtest-from">From</label>
            <input
              id="backtest-from"
              type="date"
              value={from ?? addDays(today, -6)}
              max={today}
              onChange={(e) => setFrom(e.target.value)}
              required
              {...described('backtest-from', errors.from, 'backtest-days-hint')}
            />
            {errors.from && (
              <span id="backtest-from-error" className="field-error">
                {errors.from}
              </span>
            )}
          </div>
          <div className={errors.to ? 'control invalid' : 'control'}>
            <label htmlFor="backtest-to">To</label>
            <input
              id="backtest-to"
              type="date"
              value={to ?? today}
              max={today}
              onChange={(e) => setTo(e.target.value)}
              required
              {...described('backtest-to', errors.to, 'backtest-days-hint')}
            />
            {errors.to && (
              <span id="backtest-to-error" className="field-error">
                {errors.to}
              </span>
            )}
          </div>
        </div>
        <p className="hint" id="backtest-days-hint">
          Both days included, on the application’s calendar ({timeZone ?? 'UTC'}).
        </p>
      </fieldset>
      <fieldset aria-describedby={errors.carts ? 'backtest-carts-error' : undefined}>
        <legend>Which carts</legend>
        <label className="inline">
          <input type="radio" name="carts" value="presented" checked={carts === 'presented'} onChange={() => setCarts('presented')} /> Carts
          that used this campaign
        </label>
        <label className="inline">
          <input type="radio" name="carts" value="all" checked={carts === 'all'} onChange={() => setCarts('all')} /> All carts, as if every
          customer had used it
        </label>
        {errors.carts && (
          <span id="backtest-carts-error" className="field-error">
            {errors.carts}
          </span>
        )}
      </fieldset>
      {unplaced && <ErrorLine error={problemOf(run.error)} />}
      <button type="submit" disabled={run.isPending}>
        {run.isPending ? 'Starting…' : 'Run backtest'}
      </button>
    </form>
  );
}

/** The application's last backtests, newest first, read again every second while one runs. */
function BacktestList({ app, timeZone }: { app: string; timeZone: string | null }) {
  const list = useQuery({
    queryKey: ['backtests', app],
    queryFn: () => must(admin.GET('/admin/applications/{app}/backtests', { params: { path: { app } } })),
    refetchInterval: (query) => (query.state.data?.backtests.some((b) => !finished(b)) ? POLL_MS : false),
  });
  const rows = list.data?.backtests ?? [];
  return (
    <section aria-labelledby="backtests-heading">
      <h2 id="backtests-heading">Last backtests</h2>
      <ErrorLine error={list.error} />
      {list.isSuccess && rows.length === 0 && <p>No backtest yet.</p>}
      {rows.length > 0 && (
        <div className="scroll" tabIndex={0} role="region" aria-label="Last backtests">
          <table className="backtests">
            <caption className="visually-hidden">Backtests, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Campaign</th>
                <th scope="col">What was tried</th>
                <th scope="col">Carts recorded</th>
                <th scope="col">Status</th>
                <th scope="col">Asked</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((b) => (
                <tr key={b.id}>
                  <td>
                    <a href={hrefOf({ page: 'backtests', app, backtest: b.id })} title={b.id}>
                      {b.name}
                    </a>
                  </td>
                  <td>{KIND_WORDS[b.kind]}</td>
                  <td>
                    {periodOf(b)}, {CARTS_WORDS[b.carts]}
                  </td>
                  <td>{b.status === 'running' ? `Running: ${progressWords(b)}` : STATUS_WORDS[b.status]}</td>
                  <td>{formatWhen(b.created_at, timeZone ?? b.timezone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** "12 of 40 carts replayed". */
function progressWords(b: Backtest): string {
  const { done, total } = b.progress;
  return `${done.toLocaleString()} of ${total.toLocaleString()} ${total === 1 ? 'cart' : 'carts'} replayed`;
}

/** One backtest: followed every second until it is done (or failed), then its results. */
function BacktestView({ app, id, application, who }: { app: string; id: string; application: Application | null; who: Who }) {
  const read = useQuery({
    queryKey: ['backtest', app, id],
    queryFn: () => must(admin.GET('/admin/applications/{app}/backtests/{backtest}', { params: { path: { app, backtest: id } } })),
    // Read again until it is finished; not after a refusal (a backtest not found), which the page says.
    refetchInterval: (query) => (query.state.status === 'error' || (query.state.data && finished(query.state.data)) ? false : POLL_MS),
  });
  const b = read.data;
  const title = b ? `Backtest of ${b.name}` : 'Backtest';
  return (
    <>
      <AppCrumbs app={app}>
        <a href={hrefOf({ page: 'backtests', app })}>backtests</a> / {b?.name ?? '…'}
      </AppCrumbs>
      <h1>{title}</h1>
      <ErrorLine error={read.error} />
      {!b && !read.error && <p className="loading">Loading…</p>}
      {b && (
        <>
          <p data-testid="backtest-what">
            {KIND_WORDS[b.kind]}, tried on the {CARTS_WORDS[b.carts]} recorded from {periodOf(b)} (days of the application’s calendar,{' '}
            {b.timezone}); money in {b.currency ?? 'the shop’s units'}.{' '}
            <span className="hint">Asked {formatWhen(b.created_at, b.timezone)}.</span>
          </p>
          <p className="hint">
            {b.campaign_id && (
              <>
                <a href={hrefOf({ page: 'campaign', app, campaign: b.campaign_id })}>Campaign settings</a> ·{' '}
                <a href={hrefOf({ page: 'results', app, campaign: b.campaign_id })}>results</a> ·{' '}
              </>
            )}
            <a href={hrefOf({ page: 'backtests', app })}>all backtests</a>
          </p>
          {!finished(b) && <Progress b={b} />}
          {b.status === 'failed' && (
            <p role="alert" className="error" data-testid="backtest-error">
              The backtest could not finish: {b.error ?? 'the service did not say why'}. Nothing was changed; you can run it again.
            </p>
          )}
          {b.status === 'done' && b.result && <Outcome app={app} b={b} result={b.result} application={application} who={who} />}
        </>
      )}
    </>
  );
}

/**
 * A bar of the carts replayed so far, and the same in words. Until the worker has counted the
 * carts (a backtest waiting to start) the bar is empty: 0 of 1, its text saying it waits.
 */
function Progress({ b }: { b: Backtest }) {
  const { done, total } = b.progress;
  const words = total > 0 ? progressWords(b) : b.status === 'queued' ? 'no cart replayed yet' : 'counting the carts to replay';
  return (
    <div className="backtest-progress">
      <progress
        aria-label="Carts replayed"
        max={Math.max(total, 1)}
        value={done}
        aria-valuemin={0}
        aria-valuemax={Math.max(total, 1)}
        aria-valuenow={done}
        aria-valuetext={words}
      />
      <p role="status" data-testid="backtest-progress">
        {b.status === 'queued' && total === 0 ? `${STATUS_WORDS.queued}…` : `${STATUS_WORDS[b.status]}: ${words}…`}
      </p>
    </div>
  );
}

type Figures = BacktestResult['backtest'];
const FIGURE_ROWS: { key: keyof Figures & keyof NonNullable<BacktestResult['actual']>; label: string; money: boolean }[] = [
  { key: 'orders', label: 'Orders with it', money: false },
  { key: 'discount', label: 'Discount given', money: true },
  { key: 'cashback', label: 'Cashback given', money: true },
  { key: 'basket', label: 'Basket value (the orders’ subtotals)', money: true },
  { key: 'customers', label: 'Customers', money: false },
];

/** What a finished backtest found: the figures it would have had beside the real ones, limits, refusals and the carts that would have gone differently. */
function Outcome({
  app,
  b,
  result: r,
  application,
  who,
}: {
  app: string;
  b: Backtest;
  result: BacktestResult;
  application: Application | null;
  who: Who;
}) {
  const money = (n: number) => formatMoney(n, b.currency);
  const count = (n: number) => n.toLocaleString();
  const replayed = r.replayed.orders + r.replayed.checks + r.replayed.lists + r.replayed.reverts;
  const reasons = Object.entries(r.refusals_by_reason).sort((x, y) => y[1] - x[1]);
  const changed = r.changed;
  const changedTotal = changed.gained + changed.lost + changed.different_amount;
  const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;
  return (
    <div data-testid="backtest-outcome">
      {replayed === 0 ? (
        <NothingReplayed app={app} b={b} application={application} who={who} />
      ) : (
        <p data-testid="backtest-replayed">
          {progressWords(b)}: {replayedInWords(r.replayed)}; finished {b.finished_at ? formatWhen(b.finished_at, b.timezone) : ''}.
        </p>
      )}

      <section aria-labelledby="figures-heading">
        <h2 id="figures-heading">{r.actual ? 'What it would have done, and what actually happened' : 'What it would have done'}</h2>
        <div className="scroll">
          <table className="backtest-figures">
            <caption className="visually-hidden">
              {r.actual ? 'Figures it would have had, beside the real ones' : 'Figures it would have had'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Figure</th>
                <th scope="col">Would have</th>
                {r.actual && <th scope="col">Actually</th>}
              </tr>
            </thead>
            <tbody>
              {FIGURE_ROWS.map((f) => (
                <tr key={f.key}>
                  <th scope="row">{f.label}</th>
                  <td data-testid={`would-${f.key}`}>{(f.money ? money : count)(r.backtest[f.key])}</td>
                  {r.actual && <td data-testid={`actual-${f.key}`}>{(f.money ? money : count)(r.actual[f.key])}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {!r.actual && <p className="hint">A campaign not yet saved has no real figures to compare with.</p>}
        {(r.replayed.checks > 0 || r.replayed.lists > 0) && (
          <p data-testid="backtest-checks">
            {r.replayed.checks > 0 &&
              `It would have been valid on ${count(r.backtest.checks_valid)} of ${plural(r.replayed.checks, 'code check', 'code checks')}. `}
            {r.replayed.lists > 0 &&
              `It would have been offered in ${count(r.backtest.lists_shown)} of ${plural(r.replayed.lists, 'list', 'lists')} of coupons shown to customers.`}
          </p>
        )}
      </section>

      <section aria-labelledby="limits-heading">
        <h2 id="limits-heading">Limits and budget</h2>
        {r.limits.length === 0 ? (
          <p>It has no redemption limit and no money budget: nothing could run out.</p>
        ) : (
          <ul data-testid="backtest-limits">
            {r.limits.map((l) => (
              <li key={`${l.what}-${l.period}`}>{ranOutInWords(l, b.kind, b.currency, b.timezone)}</li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="refusals-heading">
        <h2 id="refusals-heading">Orders it would have refused</h2>
        {reasons.length === 0 ? (
          <p>It would have refused no order.</p>
        ) : (
          <ReasonsTable reasons={reasons} caption="Orders it would have refused, by reason, the most frequent first" counted="Orders" />
        )}
      </section>

      <section aria-labelledby="changed-heading">
        <h2 id="changed-heading">Orders that would have gone differently</h2>
        {changedTotal === 0 ? (
          <p data-testid="changed-summary">Every order replayed would have gone as it really did.</p>
        ) : (
          <>
            <p data-testid="changed-summary">
              {changedInWords(changed)}
              {changed.carts.length < changedTotal && ` The first ${count(changed.carts.length)} are listed, in time order.`}
            </p>
            <div className="scroll" tabIndex={0} role="region" aria-label="Orders that would have gone differently">
              <table className="changed-carts">
                <caption className="visually-hidden">Orders that would have gone differently, in time order</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Customer</th>
                    <th scope="col">Order</th>
                    <th scope="col">Actually</th>
                    <th scope="col">Would have</th>
                  </tr>
                </thead>
                <tbody>
                  {changed.carts.map((c, i) => (
                    <tr key={`${c.at}-${c.order_id ?? ''}-${i}`}>
                      <td>{formatWhen(c.at, b.timezone)}</td>
                      <td>{c.customer ?? 'not signed in'}</td>
                      <td>{c.order_id ?? '—'}</td>
                      <td title={c.actual.reason ?? undefined}>{outcomeInWords(c.actual, b.currency)}</td>
                      <td title={c.backtest.reason ?? undefined}>{outcomeInWords(c.backtest, b.currency)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </section>
    </div>
  );
}

/** Nothing was replayed: why that may be, with the way to the setting. */
function NothingReplayed({ app, b, application, who }: { app: string; b: Backtest; application: Application | null; who: Who }) {
  const name = application?.name ?? 'this application';
  const settings = who.canChange ? (
    <a href={hrefOf({ page: 'applications', settings: app })}>promotion settings of {name}</a>
  ) : (
    <>promotion settings of {name}</>
  );
  const which = b.carts === 'presented' ? ' that used this campaign' : '';
  return (
    <p className="notice" data-testid="nothing-replayed">
      Nothing was replayed:{' '}
      {application && !application.cart_recording.enabled ? (
        <>
          cart recording is off for {name}, so there were no carts to replay. {who.canChange ? 'Turn on' : 'An editor or owner can turn on'}{' '}
          “Record carts for backtesting” in the {settings}, then run a backtest once carts have been recorded.
        </>
      ) : (
        <>
          no cart{which} was recorded from {periodOf(b)}. Carts are recorded from the moment “Record carts for backtesting” is on (the{' '}
          {settings}), and kept for the days it says.
        </>
      )}
    </p>
  );
}
