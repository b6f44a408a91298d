import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** Sign a chat callback exactly as the chat platform does: over the raw body bytes. */
export function chatSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

/** The interactive-message form body of a button press. */
export function chatForm(userId: string, approvalId: string, decision: 'approve' | 'deny'): string {
  const payload = {
    type: 'block_actions',
    user: { id: userId, username: 'ignored-display-name' },
    team: { id: 'T0001' },
    actions: [{ action_id: decision, value: approvalId, block_id: 'svc' }],
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export function chatHeaders(secret: string, timestamp: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/x-www-form-urlencoded',
    'x-chat-request-timestamp': String(timestamp),
    'x-chat-signature': chatSignature(secret, timestamp, body),
  };
}

export function collabActivity(aadObjectId: string, approvalId: string, decision: 'approve' | 'deny') {
  return {
    type: 'invoke',
    id: 'act-1',
    serviceUrl: 'https://smba.example.test/',
    from: { id: '29:1-user', aadObjectId, name: 'ignored display name' },
    value: { approval_id: approvalId, decision },
  };
}

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function signingKey(kid: string, alg: 'RS256' | 'ES256' = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/**
 * A real OpenID provider on loopback: the metadata document names the JWKS address, and
 * the key set is what `keys` holds at the moment of each request, so a test can rotate.
 */
export class OpenIdServer {
  keys: SigningKey[] = [];
  hits = { metadata: 0, jwks: 0 };
  /** answer 503 to everything, as a platform having an outage */
  failing = false;
  private server: Server | undefined;
  url = '';

  get metadataUrl(): string {
    return `${this.url}/.well-known/openid-configuration`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      if (this.failing) {
        this.hits.metadata++;
        res.statusCode = 503;
        res.end();
      } else if (req.url === '/.well-known/openid-configuration') {
        this.hits.metadata++;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ issuer: 'https://issuer.example.test', jwks_uri: `${this.url}/keys` }));
      } else if (req.url === '/keys') {
        this.hits.jwks++;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ keys: this.keys.map((k) => k.jwk) }));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

export interface TokenClaims {
  aud?: string;
  iss?: string;
  /** seconds since the epoch */
  iat: number;
  exp?: number;
  serviceurl?: string;
}

/** A bearer token as the collaboration platform issues it for the bot. */
export function collabToken(
  key: SigningKey,
  claims: TokenClaims,
  alg: 'RS256' | 'ES256' = 'RS256',
): Promise<string> {
  const jwt = new SignJWT({ ...(claims.serviceurl !== undefined ? { serviceurl: claims.serviceurl } : {}) })
    .setProtectedHeader({ alg, kid: key.kid, typ: 'JWT' })
    .setIssuedAt(claims.iat);
  if (claims.aud !== undefined) jwt.setAudience(claims.aud);
  if (claims.iss !== undefined) jwt.setIssuer(claims.iss);
  if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp);
  return jwt.sign(key.privateKey);
}
