import { isIP } from 'node:net';
import { invalidField } from '../core/errors.js';

const MAX_URL_LENGTH = 2048;

/** A literal loopback address as the WHATWG parser writes a host: `127.x.y.z` or `[::1]`. */
export function isLoopbackLiteral(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}

/**
 * The STATIC check of a destination URL, when an administrator configures it: https, or
 * http to a literal loopback address (the daemon still refuses that unless the deployment
 * allows it); no credentials in the URL (they would end up in lists and logs); no fragment;
 * an explicit port in range. What the name resolves to is checked at send time, under the
 * deployment's outbound policy, because DNS answers change.
 */
export function checkDestinationUrl(field: string, url: string): URL {
  const expected =
    'an https:// URL (or http:// to a literal loopback address such as 127.0.0.1), without user:password@ or #fragment';
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL_LENGTH) {
    throw invalidField(field, `${expected}, at most ${MAX_URL_LENGTH} characters`);
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalidField(field, expected);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw invalidField(field, expected);
  if (u.protocol === 'http:' && !isLoopbackLiteral(u.hostname)) {
    throw invalidField(field, `${expected}; http:// is allowed only to a literal loopback address`);
  }
  if (u.username !== '' || u.password !== '') {
    throw invalidField(
      field,
      `${expected}; put no credentials in the URL (the signing secret authenticates)`,
    );
  }
  // `new URL` drops an empty `#`, so look at the text too.
  if (u.hash !== '' || url.includes('#')) throw invalidField(field, `${expected}; no #fragment`);
  if (u.hostname === '') throw invalidField(field, `${expected}; a host`);
  if (u.port === '0') throw invalidField(field, `${expected}; a port from 1 to 65535`);
  return u;
}

/**
 * An email destination's server: `smtp://host[:port]` (port 587, submission, by default).
 * STARTTLS is always required at send time, so there is no scheme for plain SMTP, and no
 * credentials in the URL (the password is the destination's sealed secret).
 */
export function checkSmtpUrl(field: string, url: string): URL {
  const expected = 'smtp://HOST[:PORT] (STARTTLS is always required), without user:password@, path or query';
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalidField(field, expected);
  }
  if (
    url.length > MAX_URL_LENGTH ||
    u.protocol !== 'smtp:' ||
    u.hostname === '' ||
    u.username !== '' ||
    u.password !== '' ||
    (u.pathname !== '' && u.pathname !== '/') ||
    u.search !== '' ||
    url.includes('#') ||
    u.port === '0'
  ) {
    throw invalidField(field, expected);
  }
  return u;
}
