import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { admin, ApiFailure, must, problemOf, type Who } from '../api';
import { sentenceOf } from '../field-errors';
import { formatMoney } from '../money';
import { AppCrumbs, ErrorLine, Field, MoreButton } from '../parts';
import { hrefOf } from '../route';
import { useApplication } from '../use-application';
import { formatIn, instantIn } from '../when';

type Card = {
  id: string;
  kind: 'gift_card' | 'store_credit';
  code: string | null;
  balance: number;
  initial_amount: number;
  currency: string | null;
  status: 'active' | 'disabled';
  expires_at: string | null;
  note: string;
};

/**
 * Gift cards and store credit of an application (docs/gift-cards.md): issue one, many, or import
 * a CSV file; top up, disable and enable each card. Every change is in the application's audit log.
 */
export function GiftCardsPage({ app, who }: { app: string; who: Who }) {
  const queries = useQueryClient();
  const application = useApplication(app);
  const currency = application.data?.currency ?? null;
  const [outcome, setOutcome] = useState<string | null>(null);
  const list = useInfiniteQuery({
    queryKey: ['gift-cards', app],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      must(admin.GET('/admin/applications/{app}/gift-cards', { params: { path: { app }, query: { before: pageParam, limit: 50 } } })),
    getNextPageParam: (page) => page.next_before ?? undefined,
  });
  const changed = (said: string) => {
    setOutcome(said);
    void queries.invalidateQueries({ queryKey: ['gift-cards', app] });
  };
  const cards = (list.data?.pages.flatMap((p) => p.gift_cards) ?? []) as Card[];
  const money = (amount: number) => formatMoney(amount, currency);
  return (
    <>
      <AppCrumbs app={app}>Gift cards</AppCrumbs>
      <h1>Gift cards and store credit</h1>
      <p className="hint">
        {application.data?.gift_cards_at_checkout
          ? 'Customers pay with these at checkout: they type the card’s code where a coupon code goes.'
          : 'Checkout does not take gift cards yet: turn on “Gift cards at checkout” in the application’s settings.'}{' '}
        Every change is in the <a href={hrefOf({ page: 'audit', app })}>audit log of this application</a>.
      </p>
      {who.canChange && (
        <div className="panels">
          <IssueCard
            app={app}
            timeZone={application.data?.timezone ?? null}
            onDone={(c) => changed(`Gift card ${c.code} issued with ${money(c.balance)}.`)}
          />
          <IssueMany app={app} timeZone={application.data?.timezone ?? null} onDone={(n) => changed(`${n} gift cards issued.`)} />
          <ImportCards
            app={app}
            onDone={(n, skipped) => changed(`${n} gift cards imported.${skipped ? ` Not imported: ${skipped}.` : ''}`)}
          />
        </div>
      )}
      {outcome && (
        <p role="status" className="notice">
          {outcome}
        </p>
      )}
      <ErrorLine error={list.error} />
      <div className="scroll" tabIndex={0} role="region" aria-label="Gift cards, scrolls sideways">
        <table>
          <caption className="visually-hidden">Gift cards and store credit</caption>
          <thead>
            <tr>
              <th scope="col">Card</th>
              <th scope="col">Balance</th>
              <th scope="col">State</th>
              {who.canChange && <th scope="col">Change</th>}
            </tr>
          </thead>
          <tbody>
            {cards.map((c) => (
              <tr key={c.id}>
                <td>
                  {c.code ? <code title={`id ${c.id}`}>{c.code}</code> : <span title={`id ${c.id}`}>Store credit</span>}
                  {c.note && <div className="hint">{c.note}</div>}
                </td>
                <td>
                  {money(c.balance)} <span className="hint">of {money(c.initial_amount)} issued</span>
                </td>
                <td>{stateOf(c, application.data?.timezone ?? null)}</td>
                {who.canChange && (
                  <td>
                    <CardActions app={app} card={c} money={money} onDone={changed} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.isSuccess && cards.length === 0 && <p>No gift cards yet.</p>}
      <MoreButton list={list} />
    </>
  );
}

function stateOf(c: Card, timeZone: string | null): string {
  if (c.status === 'disabled') return 'Disabled: cannot pay';
  if (c.expires_at && Date.parse(c.expires_at) <= Date.now()) return `Expired on ${dayIn(c.expires_at, timeZone)}`;
  if (c.balance <= 0) return 'Used up';
  return c.expires_at ? `Can pay until ${dayIn(c.expires_at, timeZone)}` : 'Can pay, never expires';
}

/** The admin API's errors by field, and the one to show when none is a field's. */
function useFormErrors() {
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  return {
    fields,
    error: Object.keys(fields).length === 0 ? error : null,
    clear: () => {
      setFields({});
      setError(null);
    },
    fail: (err: unknown) => {
      setFields(err instanceof ApiFailure ? (err.body.fields ?? {}) : {});
      setError(problemOf(err));
    },
  };
}

/** A date picker's day as the end of that day on the application's clock (null: never expires). */
function expiryOf(day: FormDataEntryValue | null, timeZone: string | null): string | null {
  const at = day ? instantIn(`${String(day)}T23:59`, timeZone) : undefined;
  return at ? new Date(Date.parse(at) + 59_000).toISOString() : null;
}

/** A day as the application's clock reads it (the browser's own without one). */
const dayIn = (iso: string, timeZone: string | null) => formatIn(iso, timeZone, { year: 'numeric', month: 'numeric', day: 'numeric' });

function IssueCard({ app, timeZone, onDone }: { app: string; timeZone: string | null; onDone: (card: Card) => void }) {
  const errors = useFormErrors();
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const code = String(data.get('code') ?? '').trim();
    try {
      const card = await must(
        admin.POST('/admin/applications/{app}/gift-cards', {
          params: { path: { app } },
          body: {
            amount: Number(data.get('amount')),
            ...(code ? { code } : {}),
            expires_at: expiryOf(data.get('expires'), timeZone),
            note: String(data.get('note') ?? ''),
          },
        }),
      );
      errors.clear();
      form.reset();
      onDone(card as Card);
    } catch (err) {
      errors.fail(err);
    }
  }
  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Issue a gift card" className="panel">
      <h2>Issue a gift card</h2>
      <Field
        label="Amount"
        name="amount"
        type="number"
        min={0.01}
        step={0.01}
        required
        error={sayField(errors.fields.amount, 'The amount')}
      />
      <Field
        label="Code (leave empty to make one)"
        name="code"
        error={sayField(errors.fields.code, 'The code')}
        placeholder="XMAS-2026-0001"
      />
      <Field
        label={`Expires after (optional; the end of that day${timeZone ? `, ${timeZone}` : ''})`}
        name="expires"
        type="date"
        error={sayField(errors.fields.expires_at, 'The expiry')}
      />
      <Field label="Note" name="note" error={sayField(errors.fields.note, 'The note')} placeholder="Sold at the till" />
      <button type="submit">Issue gift card</button>
      <ErrorLine error={errors.error} />
    </form>
  );
}

function IssueMany({ app, timeZone, onDone }: { app: string; timeZone: string | null; onDone: (count: number) => void }) {
  const errors = useFormErrors();
  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const prefix = String(data.get('prefix') ?? '').trim();
    try {
      const r = await must(
        admin.POST('/admin/applications/{app}/gift-cards/bulk', {
          params: { path: { app } },
          body: {
            count: Number(data.get('count')),
            amount: Number(data.get('amount')),
            ...(prefix ? { prefix } : {}),
            expires_at: expiryOf(data.get('expires'), timeZone),
          },
        }),
      );
      errors.clear();
      form.reset();
      onDone(r.cards.length);
    } catch (err) {
      errors.fail(err);
    }
  }
  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Issue many gift cards" className="panel">
      <h2>Issue many</h2>
      <Field
        label="How many"
        name="count"
        type="number"
        min={1}
        max={1000}
        defaultValue="10"
        required
        error={sayField(errors.fields.count, 'How many')}
      />
      <Field
        label="Amount of each"
        name="amount"
        type="number"
        min={0.01}
        step={0.01}
        required
        error={sayField(errors.fields.amount, 'The amount')}
      />
      <Field label="Code prefix" name="prefix" placeholder="GC" error={sayField(errors.fields.prefix, 'The prefix')} />
      <Field
        label={`Expires after (optional; the end of that day${timeZone ? `, ${timeZone}` : ''})`}
        name="expires"
        type="date"
        error={sayField(errors.fields.expires_at, 'The expiry')}
      />
      <button type="submit">Issue gift cards</button>
      <ErrorLine error={errors.error} />
    </form>
  );
}

function ImportCards({ app, onDone }: { app: string; onDone: (count: number, skipped: string) => void }) {
  const [problems, setProblems] = useState<string[]>([]);
  const run = useMutation({
    mutationFn: async (file: File) => {
      try {
        return await must(
          admin.POST('/admin/applications/{app}/gift-cards/import', { params: { path: { app } }, body: { csv: await file.text() } }),
        );
      } catch (err) {
        // The API names each bad row by its line: say each in the form's words.
        const fields = err instanceof ApiFailure ? (err.body.fields ?? {}) : {};
        const lines = Object.entries(fields).map(([path, message]) => {
          const m = /^line (\d+)\.(\w+)$/.exec(path);
          return m
            ? `line ${m[1]}: ${sentenceOf(message, m[2] === 'amount' ? 'The amount' : m[2] === 'code' ? 'The code' : `The ${m[2]}`)}`
            : message;
        });
        if (lines.length > 0) throw new ImportRefused(lines);
        throw err;
      }
    },
    onMutate: () => setProblems([]),
    onSuccess: (r) => onDone(r.imported, r.not_imported.map((n) => `line ${n.line} (${n.code})`).join(', ')),
    onError: (err) => setProblems(err instanceof ImportRefused ? err.lines : [problemOf(err)]),
  });
  return (
    <form className="panel" aria-label="Import gift cards" onSubmit={(e) => e.preventDefault()}>
      <h2>Import a CSV file</h2>
      <p className="hint">
        A first line naming the columns: code, amount, and if you like expires_at and note. Nothing is imported if a line is bad.
      </p>
      <label>
        CSV file
        <input
          type="file"
          accept=".csv,text/csv,text/plain"
          aria-describedby="gift-card-import-problems"
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            e.currentTarget.value = '';
            if (file) run.mutate(file);
          }}
        />
      </label>
      {run.isPending && <p role="status">Importing…</p>}
      {problems.length > 0 && (
        <div id="gift-card-import-problems" role="alert" className="error">
          <p>Nothing was imported:</p>
          <ul>
            {problems.slice(0, 20).map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
          {problems.length > 20 && <p>… and {problems.length - 20} more lines.</p>}
        </div>
      )}
    </form>
  );
}

class ImportRefused extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('; '));
  }
}

const sayField = (message: string | undefined, label: string) => (message ? sentenceOf(message, label) : undefined);

/** Top up, disable or enable one card. */
function CardActions({
  app,
  card,
  money,
  onDone,
}: {
  app: string;
  card: Card;
  money: (n: number) => string;
  onDone: (said: string) => void;
}) {
  const errors = useFormErrors();
  const name = card.code ?? 'the store credit';
  async function topUp(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    try {
      const r = await must(
        admin.POST('/admin/applications/{app}/gift-cards/{card}/top-up', {
          params: { path: { app, card: card.id } },
          body: { amount: Number(new FormData(form).get('amount')) },
        }),
      );
      errors.clear();
      form.reset();
      onDone(`${name} topped up: its balance is ${money(r.balance)}.`);
    } catch (err) {
      errors.fail(err);
    }
  }
  async function toggle() {
    const status = card.status === 'active' ? 'disabled' : 'active';
    try {
      await must(
        admin.PATCH('/admin/applications/{app}/gift-cards/{card}', { params: { path: { app, card: card.id } }, body: { status } }),
      );
      errors.clear();
      onDone(status === 'disabled' ? `${name} disabled: it cannot pay.` : `${name} enabled: it can pay again.`);
    } catch (err) {
      errors.fail(err);
    }
  }
  return (
    <div className="card-actions">
      <form onSubmit={(e) => void topUp(e)} aria-label={`Top up ${name}`} className="inline">
        <Field
          label={`Add to ${name}`}
          name="amount"
          type="number"
          min={0.01}
          step={0.01}
          required
          error={sayField(errors.fields.amount, 'The amount')}
        />
        <button type="submit">Top up</button>
      </form>
      <button type="button" onClick={() => void toggle()}>
        {card.status === 'active' ? `Disable ${name}` : `Enable ${name}`}
      </button>
      <ErrorLine error={errors.error} />
    </div>
  );
}
