import type { FastifyInstance } from 'fastify';
import { buildConsole } from '../../src/console/app.js';
import { consoleDeps } from '../../src/console/server.js';
import type { UiBundle } from '../../src/console/ui-files.js';
import type { Store } from '../../src/store/ports.js';
import type { Fixture } from './fixture.js';

export interface ConsoleClient {
  app: FastifyInstance;
  /** sign in with a token; returns the cookie header value and the session's CSRF token */
  signIn(token: string): Promise<Session>;
}

export interface Session {
  cookie: string;
  csrf: string;
  setCookie: string;
}

/** The console app over the fixture's data dir and store (the daemon's `f.app` shares it). */
export async function consoleOf(
  f: Fixture<Store>,
  o: { secure?: boolean; ui?: UiBundle } = {},
): Promise<ConsoleClient> {
  const deps = consoleDeps(f.dir, f.store, {
    secure: o.secure ?? true,
    authMode: 'token',
    clock: () => f.now.value,
  });
  const app = buildConsole(deps, { logger: false, ...(o.ui ? { ui: o.ui } : {}) });
  await app.ready();
  return consoleClient(app);
}

/** A request with the session's cookie and, unless told otherwise, its CSRF token. */
export async function call(
  c: ConsoleClient,
  s: Session | undefined,
  url: string,
  o: { method?: 'GET' | 'POST'; body?: unknown; csrf?: string | null; headers?: Record<string, string> } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any; headers: Record<string, unknown>; raw: Buffer }> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (s) headers.cookie = s.cookie;
  const csrf = o.csrf === undefined ? s?.csrf : o.csrf;
  if (csrf !== null && csrf !== undefined && o.method === 'POST') headers['x-csrf-token'] = csrf;
  const r = await c.app.inject({
    method: o.method ?? 'GET',
    url,
    headers,
    ...(o.body !== undefined ? { payload: o.body as Record<string, unknown> } : {}),
  });
  const json = (r.headers['content-type'] ?? '').toString().startsWith('application/json');
  return {
    status: r.statusCode,
    body: json && r.body !== '' ? r.json() : r.body,
    headers: r.headers,
    raw: r.rawPayload,
  };
}

/** A console app (ready) and a sign-in that exchanges a token for its session, on any store. */
export function consoleClient(app: FastifyInstance): ConsoleClient {
  return {
    app,
    signIn: async (token) => {
      const r = await app.inject({
        method: 'POST',
        url: '/api/session',
        headers: { authorization: `Bearer ${token}` },
        payload: {},
      });
      if (r.statusCode !== 200) throw new Error(`sign-in failed: ${r.statusCode} ${r.body}`);
      const setCookie = String(r.headers['set-cookie']);
      return { cookie: setCookie.split(';')[0] as string, csrf: r.json().csrf_token, setCookie };
    },
  };
}
