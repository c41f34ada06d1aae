import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { acceptInvitation, errorText, fieldErrors } from '../api';
import { navigate } from '../router';
import { ErrorNote, Field } from '../ui';

export const ACCEPT_INVITATION_PATH = '/accept-invitation';

/**
 * The link a new member opens. The token rides in the fragment (`#token=…`):
 * a fragment is never sent to a server, so it reaches neither the gateway's
 * access log nor any Referer. `?token=…` is read too (a link written by
 * hand); either way the screen takes the token once and replaces the URL
 * with the bare path (history.replaceState), so it does not stay in the
 * address bar, the history, or the Referer of the requests that follow.
 */
export function invitationLink(token: string): string {
  return `${window.location.origin}${ACCEPT_INVITATION_PATH}#token=${encodeURIComponent(token)}`;
}

function takeTokenFromUrl(): string {
  const fromHash = new URLSearchParams(window.location.hash.replace(/^#/, '')).get('token');
  const fromQuery = new URLSearchParams(window.location.search).get('token');
  const token = fromHash ?? fromQuery ?? '';
  if (fromHash !== null || fromQuery !== null) window.history.replaceState(window.history.state, '', ACCEPT_INVITATION_PATH);
  return token;
}

/** Sets the invited member's password (POST /api/auth/accept-invitation) and signs them in. */
export function AcceptInvitation(): JSX.Element {
  // Read once, on the first render, before anything else can copy the URL.
  const [token, setToken] = useState(takeTokenFromUrl);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Accept an invitation · Assay';
  }, []);

  return (
    <main id="main" class="login">
      <form
        class="card login-card"
        aria-labelledby="invitation-title"
        onSubmit={async (e) => {
          e.preventDefault();
          setErrors({});
          setError(undefined);
          if (password !== repeat) return setErrors({ repeat: 'The two passwords differ' });
          setBusy(true);
          try {
            await acceptInvitation(token.trim(), password);
            navigate('/projects');
          } catch (err) {
            setErrors(fieldErrors(err));
            setError(errorText(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1 id="invitation-title">
          Accept your invitation
        </h1>
        <p class="muted">Choose the password you will sign in with. The invitation works once and for 7 days.</p>
        {/* Shown only when the link carried no token: it can be pasted here instead. */}
        {token === '' || errors.token ? (
          <Field label="Invitation token" id="invitation-token" error={errors.token}>
            {(a) => <input {...a} required autoComplete="off" spellcheck={false} value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />}
          </Field>
        ) : null}
        <Field label="New password" id="invitation-password" error={errors.password} hint="At least 12 characters">
          {(a) => <input {...a} type="password" autoComplete="new-password" required value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Repeat the password" id="invitation-repeat" error={errors.repeat}>
          {(a) => <input {...a} type="password" autoComplete="new-password" required value={repeat} onInput={(e) => setRepeat((e.target as HTMLInputElement).value)} />}
        </Field>
        <ErrorNote error={Object.keys(errors).length ? undefined : error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Set password and sign in'}
        </button>
      </form>
    </main>
  );
}
