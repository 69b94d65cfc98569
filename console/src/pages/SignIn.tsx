import { useState, type FormEvent } from 'react';
import { admin, csrf } from '../api';
import { ErrorLine } from '../parts';
import { MAIN_ID } from '../skip-link';

/** POST /admin/sessions: the cookie is the browser's; the CSRF token is kept for this tab. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    const {
      data,
      error: refused,
      response,
    } = await admin.POST('/admin/sessions', {
      body: { email: String(form.get('email')), password: String(form.get('password')) },
    });
    setBusy(false);
    if (data) {
      csrf.set(data.csrf_token);
      onSignedIn();
      return;
    }
    const details = (refused as { details?: string } | undefined)?.details;
    setError(
      response.status === 429
        ? (details ?? 'Too many failed sign-ins: try again later')
        : (details ?? `Sign-in failed (${response.status})`),
    );
  }

  return (
    <main className="sign-in" id={MAIN_ID} tabIndex={-1}>
      <h1>Promotions console</h1>
      <form onSubmit={(e) => void submit(e)} aria-describedby={error ? 'sign-in-error' : undefined}>
        <label>
          E-mail
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <ErrorLine id="sign-in-error" error={error} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
