import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Bearer tokens: `svct_<id>_<secret>`. The 64-bit id is public (listed, revoked by it);
 * the 256-bit secret is shown once and stored only as a hash. The secret is random, so a
 * single SHA-256 is enough (no password stretching needed); the hash is domain-separated
 * and bound to the id so a stored hash cannot be moved to another token row.
 */
const TOKEN_RE = /^svct_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface TokenParts {
  id: string;
  secret: string;
}

export interface NewToken extends TokenParts {
  token: string;
  secretHash: Uint8Array;
}

export function newToken(): NewToken {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, secret, token: `svct_${id}_${secret}`, secretHash: hashTokenSecret(id, secret) };
}

/** Undefined when the text is not shaped like a token: never throws on attacker input. */
export function parseToken(text: string): TokenParts | undefined {
  const m = TOKEN_RE.exec(text);
  return m ? { id: m[1] as string, secret: m[2] as string } : undefined;
}

export function hashTokenSecret(id: string, secret: string): Uint8Array {
  // Every authenticated request hashes its secret once: the one-shot hash, not a Hash
  // object. Copied out, so a cached digest never holds a larger buffer alive.
  return new Uint8Array(hash('sha256', `svc/token/1\0${id}\0${secret}`, 'buffer'));
}

/** Constant-time comparison of a presented secret against the stored hash. */
export function tokenSecretMatches(parts: TokenParts, storedHash: Uint8Array): boolean {
  const presented = hashTokenSecret(parts.id, parts.secret);
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash);
}

export type TokenState = 'active' | 'expired' | 'revoked';

export function tokenState(rec: { expiresAt: string; revokedAt: string | null }, now: Date): TokenState {
  if (rec.revokedAt !== null) return 'revoked';
  return Date.parse(rec.expiresAt) <= now.getTime() ? 'expired' : 'active';
}
