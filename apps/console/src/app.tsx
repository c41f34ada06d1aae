import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, currentSession, errorText, isResuming, isSignedIn, onSessionChange, signOut, switchOrganization } from './api';
import { Link, match, navigate, useLocation } from './router';
import { CaseEditor, CaseView } from './screens/cases';
import { DashboardScreen } from './screens/dashboard';
import { DiscoveryList, DiscoveryView } from './screens/discovery';
import { ExecutionList, ExecutionView } from './screens/executions';
import { AcceptInvitation, ACCEPT_INVITATION_PATH } from './screens/invitation';
import { IssueView } from './screens/issue';
import { IssueList } from './screens/issues';
import { AccountScreen } from './screens/account';
import { KeysScreen } from './screens/keys';
import { Login } from './screens/login';
import { PlanView } from './screens/plans';
import { ProjectList, ProjectView } from './screens/projects';
import { RecorderScreen } from './screens/recorder';
import { OrganizationScreen } from './screens/organization';
import { ReportList, ReportView } from './screens/reports';
import { SuiteList, SuiteView } from './screens/suites';
import { WebhookList, WebhookView } from './screens/webhooks';

const NAV: Array<[string, string]> = [
  ['/dashboard', 'Dashboard'],
  ['/projects', 'Projects'],
  ['/executions', 'Executions'],
  ['/issues', 'Issues'],
  ['/reports', 'Reports'],
  ['/discovery', 'Discovery'],
  ['/webhooks', 'Webhooks'],
  ['/settings/keys', 'Keys'],
  ['/settings/organization', 'Organization'],
  ['/settings/account', 'Account'],
];

function Screen(props: { path: string; query: URLSearchParams }): JSX.Element {
  const { path, query } = props;
  let m: Record<string, string> | undefined;
  if (path === '/' || path === '/projects') return <ProjectList />;
  if ((m = match('/projects/:id/record', path))) return <RecorderScreen projectId={m.id!} />;
  if ((m = match('/projects/:id', path))) return <ProjectView id={m.id!} />;
  if (path === '/dashboard') return <DashboardScreen projectId={query.get('project') ?? ''} />;
  if (match('/cases/new', path)) return <CaseEditor projectId={query.get('project') ?? ''} />;
  if ((m = match('/cases/:id/edit', path))) return <CaseEditor id={m.id!} />;
  if ((m = match('/cases/:id', path))) return <CaseView id={m.id!} />;
  if ((m = match('/plans/:id', path))) return <PlanView id={m.id!} />;
  if (path === '/executions') return <ExecutionList />;
  if ((m = match('/executions/:id', path))) return <ExecutionView id={m.id!} />;
  if (path === '/issues') return <IssueList />;
  if ((m = match('/issues/:id', path))) return <IssueView id={m.id!} />;
  if (path === '/reports') return <ReportList projectId={query.get('project') ?? ''} />;
  if ((m = match('/reports/:id', path))) return <ReportView id={m.id!} />;
  if (path === '/suites') return <SuiteList projectId={query.get('project') ?? ''} />;
  if ((m = match('/suites/:id', path))) return <SuiteView id={m.id!} />;
  if (path === '/discovery') return <DiscoveryList />;
  if ((m = match('/discovery/:id', path))) return <DiscoveryView id={m.id!} />;
  if (path === '/webhooks') return <WebhookList />;
  if ((m = match('/webhooks/:id', path))) return <WebhookView id={m.id!} />;
  if (path === '/settings/keys') return <KeysScreen />;
  if (path === '/settings/organization') return <OrganizationScreen />;
  if (path === '/settings/account') return <AccountScreen />;
  return (
    <section class="page">
      <h1>Not found</h1>
      <p>
        Nothing lives at <code>{path}</code>. <Link href="/projects">Back to projects</Link>
      </p>
    </section>
  );
}

function OrganizationSwitch(): JSX.Element | null {
  const session = currentSession();
  const [orgs, setOrgs] = useState<Array<{ id: string; name: string; role: string }>>([]);
  const [error, setError] = useState<string>();
  useEffect(() => {
    api()
      .api.GET('/api/auth/organizations')
      .then((r) => setOrgs(r.data?.data ?? []), (err) => setError(errorText(err)));
  }, [session?.organizationId]);
  if (!session) return null;
  if (orgs.length < 2) return <span class="org-name" title={error}>{session.organizationName}</span>;
  return (
    <label class="org-switch">
      <span class="visually-hidden">Organization</span>
      <select
        aria-label="Organization"
        value={session.organizationId}
        onChange={async (e) => {
          const id = (e.target as HTMLSelectElement).value;
          try {
            await switchOrganization(id);
            navigate('/projects');
          } catch (err) {
            setError(errorText(err));
          }
        }}
      >
        {orgs.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name} ({o.role})
          </option>
        ))}
      </select>
    </label>
  );
}

export function App(): JSX.Element {
  const [, setTick] = useState(0);
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => {
    const off = onSessionChange(() => setTick((n) => n + 1));
    // The session may have resumed (or not) before this subscription: render what it is now.
    setTick((n) => n + 1);
    return off;
  }, []);
  useEffect(() => setMenuOpen(false), [location.path]);

  // The invitation screen needs no session (the token is the credential) and starts a new one.
  if (location.path === ACCEPT_INVITATION_PATH) return <AcceptInvitation />;
  if (isResuming()) {
    return (
      <main id="main" class="login">
        <p class="muted" role="status">
          Loading your session…
        </p>
      </main>
    );
  }
  if (!isSignedIn() || !currentSession()) return <Login />;
  const session = currentSession()!;
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href="/projects" class="brand">
          Assay
        </Link>
        <button type="button" class="menu-toggle secondary" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" class={menuOpen ? 'open' : ''}>
          <ul>
            {NAV.map(([href, label]) => (
              <li key={href}>
                <Link href={href} aria-current={location.path.startsWith(href) ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <OrganizationSwitch />
          <span class="muted user-email">{session.email}</span>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              void signOut().finally(() => navigate('/'));
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <Screen path={location.path} query={location.query} />
      </main>
    </div>
  );
}
