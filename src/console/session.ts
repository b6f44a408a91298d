import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ROLES, type Actor } from '../core/actor.js';
import { SvcError } from '../core/errors.js';
import { tokenState } from '../core/token.js';
import type { Caller } from '../http/caller.js';
import type { ConsoleSessionRepo } from '../store/console-ports.js';
import type { Store } from '../store/ports.js';

/** A session lasts at most this long from sign-in, whatever its use. */
export const SESSION_LIFETIME_MS = 8 * 60 * 60 * 1000;
/** …and ends sooner when unused this long. */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** Activity is written at most this often, so reads do not each cost a write. */
const TOUCH_EVERY_MS = 60 * 1000;

export const CSRF_HEADER = 'x-csrf-token';

const REMEDY = 'sign in again with an operator token';
const signedOut = (reason: string) => new SvcError('unauthenticated', reason, { remedy: REMEDY });

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * The CSRF token of a session: an HMAC of a fixed label under the session secret. It is
 * bound to the session (another session's token never matches), needs no storage, and a
 * page that can read it already runs on our origin.
 */
export function csrfTokenFor(secret: string): string {
  return createHmac('sha256', secret).update('svc-console-csrf/1').digest('base64url');
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface SessionView {
  tenant_id: string;
  actor_id: string;
  roles: string[];
  csrf_token: string;
  expires_at: string;
}

export interface SessionDeps {
  store: Store;
  sessions: ConsoleSessionRepo;
  clock: () => Date;
  /** under TLS the cookie is `__Host-` prefixed and Secure */
  secure: boolean;
}

export class Sessions {
  readonly cookieName: string;

  constructor(private readonly d: SessionDeps) {
    // `__Host-` makes the browser refuse the cookie unless it is Secure, host-only and Path=/.
    this.cookieName = d.secure ? '__Host-svc_session' : 'svc_session';
  }

  /** The session secret the request's cookie carries, if any (parsed by @fastify/cookie). */
  presented(request: FastifyRequest): string | undefined {
    const v = request.cookies[this.cookieName];
    return v !== undefined && /^[A-Za-z0-9_-]{43}$/.test(v) ? v : undefined;
  }

  private setCookie(reply: FastifyReply, value: string, maxAgeSeconds: number): void {
    void reply.setCookie(this.cookieName, value, {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      maxAge: maxAgeSeconds,
      secure: this.d.secure,
    });
  }

  clear(reply: FastifyReply): void {
    this.setCookie(reply, '', 0);
  }

  /**
   * Exchange an authenticated caller for a new session. Any session the browser still
   * presents ends first, so a session id planted before sign-in never becomes a signed-in one.
   */
  async signIn(caller: Caller, request: FastifyRequest, reply: FastifyReply): Promise<SessionView> {
    requireConsoleUser(caller.actor);
    const old = this.presented(request);
    if (old !== undefined) await this.d.sessions.delete(sha256(old));
    const now = this.d.clock();
    const secret = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString();
    await this.d.sessions.purge(now.toISOString());
    await this.d.sessions.create(sha256(secret), {
      tenantId: caller.tenantId,
      actorId: caller.actorId,
      tokenId: caller.tokenId ?? null,
      createdAt: now.toISOString(),
      lastSeenAt: now.toISOString(),
      expiresAt,
    });
    this.setCookie(reply, secret, SESSION_LIFETIME_MS / 1000);
    return view(caller.actor, secret, expiresAt);
  }

  /** End the presented session server side; its cookie is then worthless even if kept. */
  async signOut(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const secret = this.presented(request);
    if (secret !== undefined) await this.d.sessions.delete(sha256(secret));
    this.clear(reply);
  }

  /**
   * The caller behind the request's session. Every state-changing request must also carry
   * the session's CSRF token. The token signed in with is checked again each time, so
   * revoking it (or its expiry) ends the session too; roles are read fresh from the store.
   */
  async resolve(request: FastifyRequest): Promise<{ caller: Caller; view: SessionView }> {
    const secret = this.presented(request);
    if (secret === undefined) throw signedOut('not signed in');
    const idHash = sha256(secret);
    const s = await this.d.sessions.find(idHash);
    const now = this.d.clock();
    if (!s) throw signedOut('the session has ended');
    const idleEnd = Date.parse(s.lastSeenAt) + SESSION_IDLE_MS;
    if (Date.parse(s.expiresAt) <= now.getTime() || idleEnd <= now.getTime()) {
      await this.d.sessions.delete(idHash);
      throw signedOut('the session has expired');
    }
    if (s.tokenId !== null) {
      const token = await this.d.store.tokens.find(s.tokenId);
      if (!token || tokenState(token, now) !== 'active') {
        await this.d.sessions.delete(idHash);
        throw signedOut('the token this session was signed in with is no longer valid');
      }
    }
    const actor = await this.d.store.actors.get(s.tenantId, s.actorId);
    if (!actor) throw signedOut('the session names an actor that no longer exists');
    requireConsoleUser(actor);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !sameToken(sent, csrfTokenFor(secret))) {
        throw new SvcError('forbidden', `${CSRF_HEADER}: expected the CSRF token of this session`, {
          code: 'csrf_failed',
          field: CSRF_HEADER,
          remedy: 'reload the console; the token comes with GET /api/session',
        });
      }
    }
    if (now.getTime() - Date.parse(s.lastSeenAt) > TOUCH_EVERY_MS) {
      await this.d.sessions.touch(idHash, now.toISOString());
    }
    const caller: Caller = {
      tenantId: s.tenantId,
      actorId: actor.id,
      actor,
      via: s.tokenId === null ? 'mtls' : 'token',
      ...(s.tokenId !== null ? { tokenId: s.tokenId } : {}),
    };
    return { caller, view: view(actor, secret, s.expiresAt) };
  }
}

function view(actor: Actor, secret: string, expiresAt: string): SessionView {
  return {
    tenant_id: actor.tenantId,
    actor_id: actor.id,
    roles: [...actor.roles],
    csrf_token: csrfTokenFor(secret),
    expires_at: expiresAt,
  };
}

/** The console is for registered humans who hold at least one role. */
export function requireConsoleUser(actor: Actor): void {
  if (actor.kind !== 'human' || !actor.roles.some((r) => (ROLES as readonly string[]).includes(r))) {
    throw new SvcError('forbidden', 'the console is for registered humans with a role', {
      remedy:
        'sign in with the token of a human who has the operator, administrator, approver or auditor role',
    });
  }
}
