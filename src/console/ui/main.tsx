import { render } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Theme } from '../../core/theme/theme.js';
import { ApiFailure, describe, get, post, setCsrf, type Session } from './api.js';
import { CapabilitiesPage, IntegrationsPage } from './pages/registry.js';
import { PeoplePage } from './pages/people.js';
import { AppearancePage } from './pages/appearance.js';
import { ApprovalsPage } from './pages/approvals.js';
import { NotificationsPage } from './pages/notifications.js';
import { OverviewPage } from './pages/overview.js';
import { PoliciesPage } from './pages/policies.js';
import { RecordsPage } from './pages/records.js';
import { SpendPage } from './pages/spend.js';
import { VerifyPage } from './pages/verify.js';
import { rememberedLook, rememberLook } from './remembered-theme.js';
import { applyTheme, loadTheme } from './theme.js';

const PAGES = [
  ['overview', 'Overview'],
  ['approvals', 'Approvals'],
  ['records', 'Records'],
  ['spend', 'Spend'],
  ['people', 'People'],
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

/**
 * The landing page: the overview reads the whole tenant's journal summary, so those who read
 * every receipt (operators, administrators, auditors) land there; an approver on approvals.
 */
const landing = (s: Session): PageId =>
  s.roles.some((r) => r === 'operator' || r === 'administrator' || r === 'auditor')
    ? 'overview'
    : 'approvals';

/** Hash routing: `#/page`, or `#/approvals/<approval id>` from a link. */
function currentRoute(fallback: PageId): Route {
  const [id, arg] = location.hash
    .replace(/^#\/?/, '')
    .replace(/^agents\b/, 'people')
    .split('/', 2);
  const page = (PAGES.find(([p]) => p === id)?.[0] ?? fallback) as PageId;
  if (page === 'approvals' && arg) {
    try {
      return { page, approvalId: decodeURIComponent(arg) };
    } catch {
      return { page, approvalId: arg };
    }
  }
  return { page };
}

/** A refused sign-in in words for someone at a form (the API's remedy speaks to programs). */
function signInError(err: unknown): string {
  if (err instanceof ApiFailure && err.error.status === 401) {
    return `That token was not accepted: ${err.error.reason}. Check that you pasted all of it (it starts with svct_) and that it has not expired or been revoked; an administrator can issue you a new one.`;
  }
  return describe(err);
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
      setError(signInError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <form class="card" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">svc console</h1>
        <p class="muted">
          Sign in with your operator token. It is exchanged for a session and not kept by this page.
        </p>
        <label for="token">Token</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          placeholder="svct_…"
          aria-describedby="token-help"
          aria-invalid={error ? 'true' : undefined}
        />
        <button class="primary" type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div id="token-help" class="help">
          <p>
            <strong>Where a token comes from:</strong> an administrator issues one for you on the deployment’s
            machine and hands it over out of band:
          </p>
          <pre class="code">svc token issue --tenant &lt;tenant&gt; --actor &lt;you&gt;</pre>
          <p>
            On a demo, <code>svc quickstart</code> printed one (<code>SVC_TOKEN</code> in{' '}
            <code>svc quickstart --env</code>). Only registered people with a role sign in here.
          </p>
        </div>
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
  const [route, setRoute] = useState<Route>(currentRoute(landing(session)));
  const page = route.page;
  useEffect(() => {
    const on = () => setRoute(currentRoute(landing(session)));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  const [signOutError, setSignOutError] = useState('');
  const signOut = async () => {
    setSignOutError('');
    try {
      await post('/api/session/sign-out', {});
    } catch (err) {
      // A 401: the session had already ended on the server. Anything else may have left it
      // alive there: showing the sign-in page would tell the person it ended when it has not.
      if (!(err instanceof ApiFailure && err.error.status === 401)) {
        // the reason only: the API's remedy speaks to programs retrying a request
        const reason = err instanceof ApiFailure ? err.error.reason : describe(err);
        setSignOutError(`Sign-out failed: ${reason}. This session is still signed in; try again.`);
        return;
      }
    }
    onSignOut();
  };
  // After a move between pages, focus goes to the page (not on first load): a keyboard or
  // screen-reader user lands on the new heading instead of the top of the navigation.
  const mainRef = useRef<HTMLElement>(null);
  const first = useRef(true);
  // in the render that shows the new page, so a key pressed at once is not lost on the old one
  useLayoutEffect(() => {
    if (first.current) first.current = false;
    else mainRef.current?.focus();
  }, [page]);
  const label = PAGES.find(([id]) => id === page)?.[1] ?? '';
  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), mainRef.current?.focus())}>
        Skip to content
      </a>
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
      <nav class="side" aria-label="Console pages">
        {PAGES.map(([id, label]) => (
          <a
            key={id}
            href={`#/${id}`}
            class={id === page ? 'active' : ''}
            aria-current={id === page ? 'page' : undefined}
          >
            {label}
          </a>
        ))}
      </nav>
      <main class="content" id="main" tabIndex={-1} ref={mainRef} aria-label={label}>
        {signOutError && (
          <p id="sign-out-error" class="error banner" role="alert">
            {signOutError}
          </p>
        )}
        {page === 'overview' && <OverviewPage />}
        {page === 'approvals' && <ApprovalsPage session={session} linked={route.approvalId} />}
        {page === 'records' && <RecordsPage />}
        {page === 'spend' && <SpendPage session={session} />}
        {page === 'people' && <PeoplePage session={session} />}
        {page === 'capabilities' && <CapabilitiesPage session={session} />}
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
      rememberLook(t);
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
        rememberLook(t);
        setTheme(t);
      }}
      onSignOut={() => {
        setCsrf('');
        setSession(null);
      }}
    />
  );
}

// The last tenant's look from this browser, before the first frame: the sign-in page wears it
// from the start instead of flashing the default colours (a signed-in load then applies the
// tenant's own theme as soon as it is read).
const look = rememberedLook();
if (look) applyTheme(look);
render(<App />, document.getElementById('app') as HTMLElement);
