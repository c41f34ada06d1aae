import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { changePassword, currentSession, errorText, fieldErrors, signOut } from '../api';
import { navigate } from '../router';
import { ErrorNote, Field, Page } from '../ui';

/** `/settings/account`: the signed-in user's password and sign-ins. */
export function AccountScreen(): JSX.Element {
  const session = currentSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  return (
    <Page title="Account">
      <p class="muted">Signed in as {session?.email}. A sign-in lasts until you sign out (12 hours at most); reloads and new tabs keep it.</p>
      <form
        class="card form"
        aria-labelledby="password-title"
        onSubmit={async (e) => {
          e.preventDefault();
          setErrors({});
          setError(undefined);
          setNotice(undefined);
          try {
            const ended = await changePassword(current, next);
            setCurrent('');
            setNext('');
            setNotice(`Password changed. ${ended} sign-in(s) ended everywhere; this tab goes on in a new one.`);
          } catch (err) {
            setErrors(fieldErrors(err));
            setError(errorText(err));
          }
        }}
      >
        <h2 id="password-title">Change password</h2>
        <Field label="Current password" id="account-current-password" error={errors.current_password}>
          {(a) => <input {...a} type="password" autoComplete="current-password" value={current} onInput={(e) => setCurrent((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="New password" id="account-new-password" error={errors.new_password} hint="At least 12 characters. Every other sign-in of yours ends.">
          {(a) => <input {...a} type="password" autoComplete="new-password" value={next} onInput={(e) => setNext((e.target as HTMLInputElement).value)} />}
        </Field>
        <ErrorNote error={Object.keys(errors).length ? undefined : error} />
        <p role="status">{notice}</p>
        <button type="submit">Change password</button>
      </form>
      <section class="card" aria-labelledby="signins-title">
        <h2 id="signins-title">Sign-ins</h2>
        <p>Signing out here ends this sign-in in every tab of this browser. To end the sign-ins of other browsers and devices too:</p>
        <button type="button" class="secondary danger" onClick={() => void signOut(true).finally(() => navigate('/'))}>
          Sign out everywhere
        </button>
      </section>
    </Page>
  );
}
