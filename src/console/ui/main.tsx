import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Theme } from '../../core/theme/theme.js';
import { describe, get, post, setCsrf, type Session } from './api.js';
import { AgentsPage, CapabilitiesPage, IntegrationsPage } from './pages/registry.js';
import { AppearancePage } from './pages/appearance.js';
import { ApprovalsPage } from './pages/approvals.js';
import { NotificationsPage } from './pages/notifications.js';
import { PoliciesPage } from './pages/policies.js';
import { RecordsPage } from './pages/records.js';
import { SpendPage } from './pages/spend.js';
import { VerifyPage } from './pages/verify.js';
import { applyTheme, loadTheme } from './theme.js';

const PAGES = [
  ['approvals', 'Approvals'],
  ['records', 'Records'],
  ['spend', 'Spend'],
  ['agents', 'Agents'],
  ['capabilities', 'Capabilities'],
  ['policies', 'Policies'],
  ['integrations', 'Integrations'],
  ['notifications', 'Notifications'],
  ['appearance', 'Appearance'],
  ['verify', 'Verify'],
] as const;
type PageId = (typeof PAGES)[number][0];

interface Route {
  page: PageId;
  /** `#/approvals/<id>`: the approval a link (an email, a chat message) points at */
  approvalId?: string;
}

/** Hash routing: `#/page`, or `#/approvals/<approval id>` from a link. */
function currentRoute(): Route {
  const [id, arg] = location.hash.replace(/^#\/?/, '').split('/', 2);
  const page = (PAGES.find(([p]) => p === id)?.[0] ?? 'approvals') as PageId;
  if (page === 'approvals' && arg) {
    try {
      return { page, approvalId: decodeURIComponent(arg) };
    } catch {
      return { page, approvalId: arg };
    }
  }
  return { page };
}

function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError('');
    try {
      const s = await post<Session>(
        '/api/session',
        {},
        token.trim() ? { authorization: `Bearer ${token.trim()}` } : {},
      );
      setToken('');
      onSignedIn(s);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <form class="card" onSubmit={submit}>
        <h1>svc console</h1>
        <p class="muted">
          Sign in with your operator token. It is exchanged for a session and not kept by this page.
        </p>
        <label>
          Token
          <input
            id="token"
            type="password"
            autocomplete="off"
            value={token}
            onInput={(e) => setToken((e.target as HTMLInputElement).value)}
            placeholder="svct_…"
          />
        </label>
        <button class="primary" type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

function Shell({
  session,
  theme,
  onThemeChange,
  onSignOut,
}: {
  session: Session;
  theme: Theme;
  onThemeChange: (t: Theme) => void;
  onSignOut: () => void;
}) {
  const [route, setRoute] = useState<Route>(currentRoute());
  const page = route.page;
  useEffect(() => {
    const on = () => setRoute(currentRoute());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  const signOut = async () => {
    try {
      await post('/api/session/sign-out', {});
    } finally {
      onSignOut();
    }
  };
  return (
    <div class="shell">
      <header class="top">
        <div class="brand">
          {theme.logo ? (
            <img class="logo" src={theme.logo.url} alt={theme.logo.alt} />
          ) : (
            <span class="mark">svc</span>
          )}
          <span class="tenant">{session.tenant_id}</span>
        </div>
        <div class="who">
          <span>
            {session.actor_id} <span class="dim">({session.roles.join(', ')})</span>
          </span>
          <button id="sign-out" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav class="side">
        {PAGES.map(([id, label]) => (
          <a key={id} href={`#/${id}`} class={id === page ? 'active' : ''}>
            {label}
          </a>
        ))}
      </nav>
      <main class="content">
        {page === 'approvals' && <ApprovalsPage session={session} linked={route.approvalId} />}
        {page === 'records' && <RecordsPage />}
        {page === 'spend' && <SpendPage session={session} />}
        {page === 'agents' && <AgentsPage />}
        {page === 'capabilities' && <CapabilitiesPage />}
        {page === 'policies' && <PoliciesPage session={session} />}
        {page === 'integrations' && <IntegrationsPage />}
        {page === 'notifications' && <NotificationsPage session={session} />}
        {page === 'appearance' && <AppearancePage session={session} onSaved={onThemeChange} />}
        {page === 'verify' && <VerifyPage />}
      </main>
    </div>
  );
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [theme, setTheme] = useState<Theme | undefined>(undefined);
  const adopt = (s: Session) => {
    setCsrf(s.csrf_token);
    setSession(s);
    void loadTheme().then((t) => {
      applyTheme(t);
      setTheme(t);
    });
  };
  useEffect(() => {
    get<Session>('/api/session').then(adopt, () => setSession(null));
  }, []);
  if (session === undefined) return <p class="loading">Loading…</p>;
  if (session === null || theme === undefined) {
    return session === null ? <SignIn onSignedIn={adopt} /> : <p class="loading">Loading…</p>;
  }
  return (
    <Shell
      session={session}
      theme={theme}
      onThemeChange={(t) => {
        applyTheme(t);
        setTheme(t);
      }}
      onSignOut={() => {
        setCsrf('');
        setSession(null);
      }}
    />
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
