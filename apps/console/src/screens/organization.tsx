import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, currentSession, errorText, fieldErrors } from '../api';
import { ErrorNote, Field, formatDate, Page, QuotaBar, SecretOnce, useLoad } from '../ui';
import { invitationLink } from './invitation';

export function OrganizationScreen(): JSX.Element {
  const session = currentSession();
  const usage = useLoad(async () => (await api().api.GET('/api/organizations/current/usage')).data!, []);
  const members = useLoad(async () => (await api().api.GET('/api/organizations/current/members', { params: { query: { limit: 500 } } as never })).data!, []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [invitation, setInvitation] = useState<string>();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string>();
  const canManage = session?.role === 'owner' || session?.role === 'admin';
  return (
    <Page title={session?.organizationName ?? 'Organization'}>
      <section aria-labelledby="usage-title">
        <h2 id="usage-title">Plan and usage</h2>
        <ErrorNote error={usage.error} />
        {usage.data ? (
          <>
            <p>
              Plan <strong>{usage.data.plan}</strong> · {usage.data.period} · resets {formatDate(usage.data.resets_at)}
            </p>
            {usage.data.quotas.map((q) => (
              <QuotaBar key={q.quota} label={q.quota.replace(/_/g, ' ')} used={q.used} limit={q.limit ?? null} unit={q.unit} />
            ))}
          </>
        ) : null}
      </section>
      <section aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <ErrorNote error={members.error ?? (Object.keys(errors).length ? undefined : error)} />
        {invitation ? (
          <SecretOnce label="Invitation token (send it to the new member)" secret={invitation} onDone={() => setInvitation(undefined)}>
            <p>
              Or send the link that sets the password and signs in:{' '}
              <a href={invitationLink(invitation)} data-testid="invitation-link" target="_blank" rel="noopener noreferrer">
                accept-invitation link
              </a>{' '}
              <button type="button" class="link" onClick={() => void navigator.clipboard.writeText(invitationLink(invitation)).catch(() => undefined)}>
                Copy link
              </button>
            </p>
          </SecretOnce>
        ) : null}
        {canManage ? (
          <form
            class="inline-form"
            aria-label="Add a member"
            onSubmit={async (e) => {
              e.preventDefault();
              setErrors({});
              setError(undefined);
              try {
                const added = await api().requestJson<{ invitation: { token: string } | null }>('POST', '/api/organizations/current/members', { body: { email, role } });
                if (added.invitation) setInvitation(added.invitation.token);
                setEmail('');
                members.reload();
              } catch (err) {
                setErrors(fieldErrors(err));
                setError(errorText(err));
              }
            }}
          >
            <Field label="E-mail" id="member-email" error={errors.email}>
              {(a) => <input {...a} type="email" value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />}
            </Field>
            <Field label="Role" id="member-role" error={errors.role}>
              {(a) => (
                <select {...a} value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as typeof role)}>
                  <option value="member">member</option>
                  <option value="admin">admin</option>
                </select>
              )}
            </Field>
            <button type="submit">Add member</button>
          </form>
        ) : null}
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col">Since</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data?.data.map((m) => (
              <tr key={m.user_id}>
                <td>
                  {m.name} <span class="muted">{m.email}</span>{' '}
                  {(m as { pending?: boolean }).pending ? (
                    <span class="badge badge-pending pending" title="Invited: the invitation has not been accepted yet">
                      invited, pending
                    </span>
                  ) : null}
                </td>
                <td>
                  {canManage && m.role !== 'owner' ? (
                    <select
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      onChange={async (e) => {
                        try {
                          await api().request('PATCH', `/api/organizations/current/members/${encodeURIComponent(m.user_id)}`, { body: { role: (e.target as HTMLSelectElement).value } });
                          members.reload();
                        } catch (err) {
                          setError(errorText(err));
                        }
                      }}
                    >
                      <option value="member">member</option>
                      <option value="admin">admin</option>
                    </select>
                  ) : (
                    m.role
                  )}
                </td>
                <td>{formatDate(m.created_at)}</td>
                <td>
                  {canManage && m.role !== 'owner' ? (
                    <button
                      type="button"
                      class="secondary danger"
                      aria-label={`Remove ${m.email}`}
                      onClick={async () => {
                        if (!window.confirm(`Remove ${m.email} from the organization?`)) return;
                        try {
                          await api().request('DELETE', `/api/organizations/current/members/${encodeURIComponent(m.user_id)}`);
                          members.reload();
                        } catch (err) {
                          setError(errorText(err));
                        }
                      }}
                    >
                      Remove
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </Page>
  );
}
