import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { AssayApiError } from '@assay/client';
import { errorText, signIn } from '../api';
import { ErrorNote, Field } from '../ui';

export function Login(): JSX.Element {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="login">
      <form
        class="card login-card"
        aria-labelledby="login-title"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            await signIn(email.trim(), password);
          } catch (err) {
            // A wrong password is not an "invalid API key" to a person: say what the server says, without the code.
            setError(err instanceof AssayApiError && err.status === 401 ? err.message : errorText(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1 id="login-title">Sign in to Assay</h1>
        <p class="muted">Use your e-mail and password. `make run` prints the first administrator’s.</p>
        <Field label="E-mail" id="login-email">
          {(a) => <input {...a} type="email" autoComplete="username" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />}
        </Field>
        <Field label="Password" id="login-password">
          {(a) => <input {...a} type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />}
        </Field>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
