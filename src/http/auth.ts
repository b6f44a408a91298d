import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { hasRole, type Role } from '../core/actor.js';
import { SvcError } from '../core/errors.js';
import { hashTokenSecret, parseToken, tokenSecretMatches, tokenState } from '../core/token.js';
import type { Store } from '../store/ports.js';
import { clientCertificateSubject } from '../tls/client-subject.js';
import { AuthCache, DEFAULT_AUTH_CACHE_SIZE } from './auth-cache.js';
import type { Caller } from './caller.js';
import { ChangeMarkReader } from './change-mark.js';

export type AuthMode = 'token' | 'mtls';

const REMEDY =
  'ask an operator for a valid token: `svc token issue --tenant <tenant> --actor <you>`; send it as Authorization: Bearer <token>';
const ROLE_REMEDY =
  'ask an administrator for the role this needs (`svc actor list --tenant <tenant>` shows roles)';
const unauthenticated = (reason: string) => new SvcError('unauthenticated', reason, { remedy: REMEDY });

// A hash to compare against when the token id is unknown, so the unknown-id path hashes
// and compares exactly as a wrong secret does (the store's lookup costs the same too).
const DECOY_HASH = hashTokenSecret('0000000000000000', 'decoy');

/**
 * How many times the request carries the named header. Node keeps only the first of two
 * `Authorization` headers and joins repeated unknown ones (`X-SVC-Token`) with ", ", so
 * the parsed headers cannot tell an ambiguous credential apart: the raw list can.
 */
function headerCount(request: FastifyRequest, name: string): number {
  const raw = request.raw.rawHeaders;
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) n++;
  return n;
}

/** The bearer credential from `Authorization: Bearer` or `X-SVC-Token`. */
function presentedToken(request: FastifyRequest): string | undefined {
  // An ambiguous credential is refused, never resolved by which header came first.
  if (headerCount(request, 'authorization') > 1) throw unauthenticated('Authorization: expected one header');
  if (headerCount(request, 'x-svc-token') > 1) throw unauthenticated('X-SVC-Token: expected one header');
  const auth = request.headers.authorization;
  const header = request.headers['x-svc-token'];
  let bearer: string | undefined;
  if (auth !== undefined) {
    const m = /^Bearer +(\S+)$/i.exec(auth);
    if (!m) throw unauthenticated('Authorization: expected "Bearer <token>"');
    bearer = m[1];
  }
  if (Array.isArray(header)) throw unauthenticated('X-SVC-Token: expected one header');
  if (bearer !== undefined && header !== undefined && bearer !== header) {
    throw unauthenticated('Authorization and X-SVC-Token carry different credentials');
  }
  return bearer ?? header;
}

async function byToken(
  store: Store,
  cache: AuthCache,
  marks: ChangeMarkReader,
  request: FastifyRequest,
  now: Date,
): Promise<Caller> {
  const text = presentedToken(request);
  if (text === undefined)
    throw unauthenticated('no credential: send Authorization: Bearer <token> or X-SVC-Token');
  const parts = parseToken(text);
  if (!parts) throw unauthenticated('the credential is not an svc token');
  // The mark is read (after this request arrived) before anything else, so a change
  // committed from here on is seen by the next request (which clears the cache) and this
  // lookup's result is not kept.
  const generation = cache.sync(await marks.next());
  const cached = cache.get(parts.id, hashTokenSecret(parts.id, parts.secret), now.getTime());
  if (cached) return cached;
  const record = await store.tokens.find(parts.id);
  const matches = tokenSecretMatches(parts, record?.secretHash ?? DECOY_HASH);
  if (!record || !matches) throw unauthenticated('unknown token');
  // Only a caller who holds the secret learns whether it expired or was revoked.
  const state = tokenState(record, now);
  if (state !== 'active') throw unauthenticated(`the token is ${state}`);
  const actor = await store.actors.get(record.tenantId, record.actorId);
  if (!actor) throw unauthenticated('the token names an actor that no longer exists');
  const caller: Caller = {
    tenantId: record.tenantId,
    actorId: actor.id,
    actor,
    via: 'token',
    tokenId: record.id,
  };
  cache.put(generation, record.id, record.secretHash, Date.parse(record.expiresAt), caller);
  return caller;
}

async function byCertificate(store: Store, request: FastifyRequest): Promise<Caller> {
  if (request.headers.authorization !== undefined || request.headers['x-svc-token'] !== undefined) {
    throw unauthenticated(
      'bearer tokens are refused in mutual-TLS mode; present a client certificate instead',
    );
  }
  const socket = request.raw.socket as TLSSocket;
  if (typeof socket.getPeerX509Certificate !== 'function' || !socket.authorized) {
    throw unauthenticated('a client certificate issued by the configured client CA is required');
  }
  const cert = socket.getPeerX509Certificate();
  if (!cert) throw unauthenticated('a client certificate issued by the configured client CA is required');
  // Compared exactly as the certificate holds it: only the operator's registered text was normalised.
  const subject = clientCertificateSubject(cert.raw);
  if (subject === undefined) {
    throw unauthenticated(
      'the client certificate subject names no actor: expected single-valued attributes of plain text',
    );
  }
  const actor = await store.actors.findByCertSubject(subject);
  if (!actor) throw unauthenticated('no registered actor has this client certificate subject');
  return { tenantId: actor.tenantId, actorId: actor.id, actor, via: 'mtls' };
}

/**
 * Resolve the caller of each request. Verified tokens are held in a bounded cache (see
 * AuthCache), one per listener; a certificate's actor is read from the store each time.
 */
export function authenticator(
  store: Store,
  mode: AuthMode,
  clock: () => Date,
  cache = new AuthCache(DEFAULT_AUTH_CACHE_SIZE),
) {
  const marks = new ChangeMarkReader(() => store.tokens.changeMark());
  return (request: FastifyRequest): Promise<Caller> =>
    mode === 'mtls' ? byCertificate(store, request) : byToken(store, cache, marks, request, clock());
}

/** A valid credential without the role is 403, never 401. */
export function requireHuman(caller: Caller, role?: Role): void {
  if (caller.actor.kind !== 'human') {
    throw new SvcError('forbidden', 'this route is for registered humans', { remedy: ROLE_REMEDY });
  }
  if (role !== undefined && !hasRole(caller.actor, role)) {
    throw new SvcError('forbidden', `this route needs the ${role} role`, { remedy: ROLE_REMEDY });
  }
}
