import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { request } from 'undici';
import { checkMetadataUrl } from '../core/channel.js';
import { SvcError } from '../core/errors.js';
import { BodyTooLarge, readCappedBody } from '../io/capped-body.js';

export interface OpenIdKeyOptions {
  /** each fetch (metadata, then keys) gives up after this long */
  timeoutMs?: number;
  /** keys are fetched again after this long even when nothing asks for it */
  ttlMs?: number;
  /** an unknown key id refetches at most this often per document, so junk tokens cannot flood the platform */
  refreshCooldownMs?: number;
  now?: () => number;
}

interface Entry {
  keys: JWTVerifyGetKey;
  fetchedAt: number;
  /** when an unknown key id last made us refetch */
  refreshedAt: number;
}

const MAX_DOCUMENT_BYTES = 512 * 1024;

/**
 * The signing keys of a collaboration platform, found through its OpenID metadata
 * document (`jwks_uri`), fetched with undici, cached per document, and refetched when a
 * token names a key id the cache does not hold (the platform rotated its keys).
 */
export class OpenIdKeys {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Entry>>();
  /** a failed fetch, answered from here during the cool-down so callbacks cannot drive a fetch each */
  private readonly failures = new Map<string, { at: number; error: unknown }>();
  private readonly timeoutMs: number;
  private readonly ttlMs: number;
  private readonly cooldownMs: number;
  private readonly now: () => number;

  constructor(opts: OpenIdKeyOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 5_000;
    this.ttlMs = opts.ttlMs ?? 24 * 3_600_000;
    this.cooldownMs = opts.refreshCooldownMs ?? 30_000;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Run `verify` with the document's keys; when it fails for want of the token's key id,
   * fetch the keys again (rate-limited) and try once more.
   */
  async withKeys<T>(metadataUrl: string, verify: (keys: JWTVerifyGetKey) => Promise<T>): Promise<T> {
    let entry = this.entries.get(metadataUrl);
    if (!entry || this.now() - entry.fetchedAt > this.ttlMs) entry = await this.load(metadataUrl, 0);
    try {
      return await verify(entry.keys);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey) || this.now() - entry.refreshedAt < this.cooldownMs)
        throw err;
      const fresh = await this.load(metadataUrl, this.now());
      return verify(fresh.keys);
    }
  }

  private load(metadataUrl: string, refreshedAt: number): Promise<Entry> {
    const failed = this.failures.get(metadataUrl);
    if (failed && this.now() - failed.at < this.cooldownMs) return Promise.reject(failed.error);
    let pending = this.loading.get(metadataUrl);
    if (!pending) {
      pending = this.fetchKeys(metadataUrl, refreshedAt)
        .then(
          (entry) => {
            this.failures.delete(metadataUrl);
            return entry;
          },
          (error: unknown) => {
            this.failures.set(metadataUrl, { at: this.now(), error });
            throw error;
          },
        )
        .finally(() => this.loading.delete(metadataUrl));
      this.loading.set(metadataUrl, pending);
    }
    return pending;
  }

  private async fetchKeys(metadataUrl: string, refreshedAt: number): Promise<Entry> {
    const metadata = await this.fetchJson(metadataUrl, 'OpenID metadata document');
    const jwksUri = (metadata as { jwks_uri?: unknown }).jwks_uri;
    if (typeof jwksUri !== 'string')
      throw unavailable(`the OpenID metadata at ${metadataUrl} names no jwks_uri`);
    let keysUrl: string;
    try {
      keysUrl = checkMetadataUrl('jwks_uri', jwksUri);
    } catch {
      throw unavailable(`the jwks_uri of ${metadataUrl} is not an https URL`);
    }
    const jwks = (await this.fetchJson(keysUrl, 'key set')) as JSONWebKeySet;
    if (!Array.isArray(jwks.keys)) throw unavailable(`${keysUrl} is not a JSON Web Key Set`);
    const entry = { keys: createLocalJWKSet(jwks), fetchedAt: this.now(), refreshedAt };
    this.entries.set(metadataUrl, entry);
    return entry;
  }

  private async fetchJson(url: string, what: string): Promise<unknown> {
    let text: string;
    try {
      const res = await request(url, {
        method: 'GET',
        headers: { accept: 'application/json' },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (res.statusCode !== 200) {
        await res.body.dump();
        throw unavailable(`the ${what} at ${url} answered HTTP ${res.statusCode}`);
      }
      // Counted as it arrives: a platform (or whoever answers for it) sending megabytes is
      // cut off at the cap, not downloaded whole first.
      text = (await readCappedBody(res, MAX_DOCUMENT_BYTES)).toString('utf8');
    } catch (err) {
      if (err instanceof SvcError) throw err;
      if (err instanceof BodyTooLarge)
        throw unavailable(`the ${what} at ${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
      throw unavailable(`the ${what} at ${url} cannot be fetched: ${(err as Error).message}`, err);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw unavailable(`the ${what} at ${url} is not JSON`);
    }
  }
}

/** The platform's keys could not be had: the daemon's failure to check, not a bad proof. */
function unavailable(reason: string, cause?: unknown): SvcError {
  return new SvcError('unavailable', reason, {
    ...(cause !== undefined ? { cause } : {}),
    remedy: 'check the channel’s --openid-metadata URL and that the daemon can reach it',
  });
}
