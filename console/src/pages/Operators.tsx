import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Schemas } from '@coupons/client';
import { admin, ApiFailure, everyPage, must, problemOf, type Role, type Who } from '../api';
import { ErrorLine } from '../parts';
import { formatWhen } from '../when';

type Operator = Schemas['Operator'];

/** The roles as the people who hand them out read them. */
export const ROLE_WORDS: Record<Role, string> = {
  owner: 'Owner: everything, including who may use the console',
  editor: 'Editor: changes campaigns, codes, customers, wallets and webhooks',
  viewer: 'Viewer: reads everything, changes nothing',
};

/** Every application, archived ones too, by id: operators' access is named, not listed as ids. */
function useApplicationNames() {
  return useQuery({
    queryKey: ['application-names'],
    queryFn: async () => {
      const applications = await everyPage(
        (cursor) => must(admin.GET('/admin/applications', { params: { query: { cursor, limit: 1000, include_archived: true } } })),
        (page) => page.applications,
      );
      const names = new Map(applications.map((a) => [a.id, a.name]));
      return names;
    },
  });
}

/** A password for a new operator: 18 random characters, shown once to the owner who hands it over. */
function newPassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(14));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

const accessOf = (apps: string[] | null | undefined, names: Map<string, string> | undefined) =>
  apps === null || apps === undefined
    ? 'all applications'
    : apps.length === 0
      ? 'no application'
      : apps.map((id) => names?.get(id) ?? id).join(', ');

/**
 * Who may use the console and the admin API. Owners invite people (a password shown once, to hand
 * over), change their role and the applications they reach, disable and enable them, and manage
 * anyone's personal API tokens; everyone else sees their own access and manages their own tokens.
 */
export function OperatorsPage({ who, meId }: { who: Who; meId: string | null }) {
  const names = useApplicationNames();
  const owner = who.role === 'owner';
  const list = useQuery({
    queryKey: ['operators'],
    enabled: owner,
    queryFn: () =>
      everyPage(
        (cursor) => must(admin.GET('/admin/operators', { params: { query: { cursor, limit: 1000 } } })),
        (page) => page.operators,
      ),
  });
  return (
    <>
      <h1>People</h1>
      {owner ? (
        <>
          <p className="hint">Who may sign in to this console (and use the admin API with a personal token), and what they may do.</p>
          <InviteForm names={names.data} />
          <ErrorLine error={list.error} />
          <table tabIndex={0}>
            <caption className="visually-hidden">People with access</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Applications</th>
                <th scope="col">Access</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {(list.data ?? []).map((o) => (
                <OperatorRow key={o.id} operator={o} names={names.data} self={o.id === meId} />
              ))}
            </tbody>
          </table>
        </>
      ) : (
        <p>
          You are a {who.role}: {ROLE_WORDS[who.role as Role]?.split(': ')[1] ?? ''}.
        </p>
      )}
      {meId && <Tokens operatorId={meId} title="Your API tokens" />}
    </>
  );
}

function InviteForm({ names }: { names: Map<string, string> | undefined }) {
  const queries = useQueryClient();
  const [everywhere, setEverywhere] = useState(true);
  const [given, setGiven] = useState<{ email: string; password: string } | null>(null);
  const invite = useMutation({
    mutationFn: async (body: { email: string; name: string; role: Role; applications: string[] | null; password: string }) =>
      must(admin.POST('/admin/operators', { body })),
    onSuccess: async (made, body) => {
      setGiven({ email: made.email, password: body.password });
      await queries.invalidateQueries({ queryKey: ['operators'] });
    },
  });
  const errors = invite.error instanceof ApiFailure ? (invite.error.body.fields ?? {}) : {};
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setGiven(null);
    invite.mutate({
      email: String(form.get('email') ?? '').trim(),
      name: String(form.get('name') ?? '').trim(),
      role: String(form.get('role')) as Role,
      applications: everywhere ? null : form.getAll('applications').map(String),
      password: newPassword(),
    });
  }
  return (
    <form onSubmit={submit} aria-label="Invite someone" className="panel">
      <h2>Invite someone</h2>
      <label>
        E-mail
        <input name="email" type="email" required maxLength={254} aria-invalid={errors.email ? true : undefined} />
      </label>
      {errors.email && <p className="error">Give a valid e-mail address.</p>}
      <label>
        Name
        <input name="name" maxLength={200} />
      </label>
      <label>
        Role
        <select name="role" defaultValue="viewer">
          {(Object.keys(ROLE_WORDS) as Role[]).map((r) => (
            <option key={r} value={r}>
              {ROLE_WORDS[r]}
            </option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>Applications they reach</legend>
        <label className="inline">
          <input type="checkbox" checked={everywhere} onChange={(e) => setEverywhere(e.target.checked)} /> All applications, and those added
          later
        </label>
        {!everywhere &&
          [...(names ?? new Map<string, string>())].map(([id, name]) => (
            <label key={id} className="inline">
              <input type="checkbox" name="applications" value={id} /> {name}
            </label>
          ))}
      </fieldset>
      <button type="submit" disabled={invite.isPending}>
        Invite
      </button>
      {invite.error && !errors.email && <ErrorLine error={problemOf(invite.error)} />}
      {given && (
        <div role="status" className="notice">
          <p>
            {given.email} can sign in now with this password, shown only once: <code data-testid="new-password">{given.password}</code>
          </p>
          <p className="hint">Hand it over in person or through a password manager, not by e-mail.</p>
        </div>
      )}
    </form>
  );
}

function OperatorRow({ operator: o, names, self }: { operator: Operator; names: Map<string, string> | undefined; self: boolean }) {
  const queries = useQueryClient();
  const [tokens, setTokens] = useState(false);
  const change = useMutation({
    mutationFn: (body: { role?: Role; disabled?: boolean; applications?: string[] | null }) =>
      must(admin.PATCH('/admin/operators/{operator}', { params: { path: { operator: o.id } }, body })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['operators'] }),
  });
  const label = o.name || o.email;
  return (
    <>
      <tr>
        <th scope="row">
          {label}
          {self && ' (you)'}
        </th>
        <td>{o.email}</td>
        <td>
          <select
            aria-label={`Role of ${label}`}
            value={o.role}
            disabled={change.isPending}
            onChange={(e) => change.mutate({ role: e.target.value as Role })}
          >
            {(Object.keys(ROLE_WORDS) as Role[]).map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </td>
        <td>{accessOf(o.applications, names)}</td>
        <td>{o.disabled ? 'disabled: cannot sign in' : 'can sign in'}</td>
        <td>
          <button type="button" onClick={() => change.mutate({ disabled: !o.disabled })} disabled={change.isPending}>
            {o.disabled ? `Enable ${label}` : `Disable ${label}`}
          </button>{' '}
          <button type="button" aria-expanded={tokens} onClick={() => setTokens(!tokens)}>
            {`API tokens of ${label}`}
          </button>
          {change.error && <ErrorLine error={problemOf(change.error)} />}
        </td>
      </tr>
      {tokens && (
        <tr>
          <td colSpan={6}>
            <Tokens operatorId={o.id} title={`API tokens of ${label}`} />
          </td>
        </tr>
      )}
    </>
  );
}

/** An operator's personal API tokens: made (shown once), listed with their last use, revoked. */
function Tokens({ operatorId, title }: { operatorId: string; title: string }) {
  const queries = useQueryClient();
  const [made, setMade] = useState<string | null>(null);
  const key = ['tokens', operatorId];
  const list = useQuery({
    queryKey: key,
    queryFn: () => must(admin.GET('/admin/operators/{operator}/tokens', { params: { path: { operator: operatorId } } })),
  });
  const create = useMutation({
    mutationFn: (name: string) =>
      must(admin.POST('/admin/operators/{operator}/tokens', { params: { path: { operator: operatorId } }, body: { name } })),
    onSuccess: async (t) => {
      setMade(t.token);
      await queries.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: (token: string) =>
      must(admin.DELETE('/admin/operators/{operator}/tokens/{token}', { params: { path: { operator: operatorId, token } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: key }),
  });
  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    create.mutate(String(new FormData(e.currentTarget).get('name') ?? '').trim());
  }
  const live = (list.data?.tokens ?? []).filter((t) => !t.revoked_at);
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      <p className="hint">A token signs a script or a tool in as this person, with their role. Revoke one that is no longer used.</p>
      <ErrorLine error={list.error ?? create.error ?? revoke.error} />
      {live.length === 0 ? (
        <p>No tokens.</p>
      ) : (
        <ul>
          {live.map((t) => (
            <li key={t.id}>
              {t.name || 'unnamed'} (<code>{t.hint}…</code>), made {formatWhen(t.created_at, null)},{' '}
              {t.last_used_at ? `last used ${formatWhen(t.last_used_at, null)}` : 'never used'}{' '}
              <button type="button" onClick={() => revoke.mutate(t.id)} disabled={revoke.isPending}>
                {`Revoke ${t.name || t.hint}`}
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="row" onSubmit={submit} aria-label={`New token: ${title}`}>
        <label>
          What it is for
          <input name="name" maxLength={200} placeholder="e.g. nightly export" />
        </label>
        <button type="submit" disabled={create.isPending}>
          Make a token
        </button>
      </form>
      {made && (
        <p role="status" className="notice">
          The new token, shown only once: <code data-testid="new-token">{made}</code>
        </p>
      )}
    </section>
  );
}
