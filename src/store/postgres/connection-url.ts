import { SvcError } from '../../core/errors.js';

/**
 * PostgreSQL connection URLs as operators pass them (`--store`, `SVC_STORE`). The URL may
 * carry a password, so nothing the product prints or logs shows it: every message names
 * the store through `redactUrl`.
 *
 * libpq's multi-host form is accepted (`postgresql://h1:5432,h2:5432/db?target_session_attrs=read-write`);
 * node-postgres does not understand it, so `parsePgUrl` splits it into one single-host URL
 * per host, which the pool tries in order (host-selector.ts).
 */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

/** One host of the list, and the single-host URL node-postgres is given for it. */
export interface PgHost {
  host: string;
  port: number;
  url: string;
}

/** Session limits and pool size an operator may set in the URL's query (svc's own keys). */
export interface PgUrlSettings {
  statementTimeoutMs?: number;
  lockTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
  connectTimeoutMs?: number;
  poolSize?: number;
}

export interface PgUrl {
  hosts: PgHost[];
  /** a connection must accept writes (several hosts, or `target_session_attrs` asked for it) */
  readWrite: boolean;
  settings: PgUrlSettings;
}

/** svc's query keys: read here, never passed to the server. Milliseconds unless named. */
const SETTING_KEYS: Readonly<
  Record<string, { key: keyof PgUrlSettings; min: number; max: number; scale: number }>
> = {
  statement_timeout: { key: 'statementTimeoutMs', min: 0, max: 86_400_000, scale: 1 },
  lock_timeout: { key: 'lockTimeoutMs', min: 0, max: 86_400_000, scale: 1 },
  idle_in_transaction_session_timeout: {
    key: 'idleInTransactionTimeoutMs',
    min: 0,
    max: 86_400_000,
    scale: 1,
  },
  // libpq's key, in seconds as libpq reads it
  connect_timeout: { key: 'connectTimeoutMs', min: 1, max: 3600, scale: 1000 },
  // at least 2: a daemon holds one connection for its replica id (replica.ts)
  pool_size: { key: 'poolSize', min: 2, max: 1000, scale: 1 },
};

/** `scheme://[userinfo@]hosts[/path][?query][#fragment]`, split without decoding anything. */
interface UrlParts {
  scheme: string;
  userinfo: string;
  hosts: string;
  rest: string;
  query: string;
  fragment: string;
}

function split(url: string): UrlParts | undefined {
  const m = /^(postgres(?:ql)?:\/\/)([^/?#]*)([^?#]*)(?:\?([^#]*))?(#.*)?$/i.exec(url);
  if (!m) return undefined;
  const authority = m[2] ?? '';
  const at = authority.lastIndexOf('@');
  return {
    scheme: m[1] as string,
    userinfo: at < 0 ? '' : authority.slice(0, at + 1),
    hosts: at < 0 ? authority : authority.slice(at + 1),
    rest: m[3] ?? '',
    query: m[4] ?? '',
    fragment: m[5] ?? '',
  };
}

function parseHost(text: string, url: string): { host: string; port: number | undefined } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]*)(?::(\d*))?$/.exec(text);
  const port = m?.[2] === undefined || m[2] === '' ? undefined : Number(m[2]);
  if (!m || (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535))) {
    throw new SvcError(
      'usage',
      `--store: host ${JSON.stringify(text)} in ${redactUrl(url)} is not HOST or HOST:PORT (a port from 1 to 65535)`,
      { field: 'store' },
    );
  }
  return { host: m[1] as string, port };
}

/**
 * Parse a PostgreSQL URL: its hosts in order, each as a single-host URL, whether a
 * connection must accept writes, and svc's settings from the query. Bad input is a usage
 * error naming `store` and what was expected; the password never appears in it.
 */
export function parsePgUrl(url: string): PgUrl {
  const parts = split(url);
  if (!parts)
    throw new SvcError('usage', `--store: ${redactUrl(url)} is not a PostgreSQL URL`, { field: 'store' });
  const params = new URLSearchParams(parts.query);
  const settings: PgUrlSettings = {};
  for (const [name, spec] of Object.entries(SETTING_KEYS)) {
    const raw = params.get(name);
    if (raw === null) continue;
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(value) || value < spec.min || value > spec.max) {
      throw new SvcError(
        'usage',
        `--store: ${name} must be an integer from ${spec.min} to ${spec.max}${spec.scale === 1000 ? ' (seconds)' : name === 'pool_size' ? '' : ' (milliseconds)'}, got ${JSON.stringify(raw)}`,
        { field: 'store' },
      );
    }
    settings[spec.key] = value * spec.scale;
    params.delete(name);
  }
  const attrs = params.get('target_session_attrs');
  if (attrs !== null && !['read-write', 'primary', 'any'].includes(attrs)) {
    throw new SvcError(
      'usage',
      `--store: target_session_attrs must be read-write, primary or any (svc writes), got ${JSON.stringify(attrs)}`,
      { field: 'store' },
    );
  }
  params.delete('target_session_attrs');
  const listed = parts.hosts.split(',');
  if (listed.length > 1 && listed.some((h) => h === '')) {
    throw new SvcError('usage', `--store: an empty host in the list of ${redactUrl(url)}`, {
      field: 'store',
    });
  }
  const query = params.toString();
  const tail = `${parts.rest}${query === '' ? '' : `?${query}`}`;
  const hosts = listed.map((text) => {
    const { host, port } = parseHost(text, url);
    const single = `${parts.scheme}${parts.userinfo}${host}${port === undefined ? '' : `:${port}`}${tail}`;
    try {
      new URL(single);
    } catch {
      throw new SvcError('usage', `--store: ${redactUrl(url)} is not a valid URL`, { field: 'store' });
    }
    return { host, port: port ?? 5432, url: single };
  });
  // Several hosts only make sense as "the one that accepts writes": svc writes on every decision.
  const readWrite = hosts.length > 1 ? attrs !== 'any' : attrs === 'read-write' || attrs === 'primary';
  return { hosts, readWrite, settings };
}

/** The URL with any password (in the authority or a `password=` parameter) replaced by `***`. */
export function redactUrl(url: string): string {
  const parts = split(url);
  if (!parts) {
    // Unparseable: still never echo what could be a password after `:` in the authority.
    return url.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@').replace(/(password=)[^&]*/gi, '$1***');
  }
  const colon = parts.userinfo.indexOf(':');
  const userinfo = colon < 0 ? parts.userinfo : `${parts.userinfo.slice(0, colon)}:***@`;
  const query = parts.query.replace(/(^|&)(password=)[^&]*/gi, '$1$2***');
  return `${parts.scheme}${userinfo}${parts.hosts}${parts.rest}${query === '' ? '' : `?${query}`}${parts.fragment}`;
}

/** Remove every occurrence of the URL's password from a message (errors from the driver). */
export function redactSecrets(message: string, url: string): string {
  let out = message.split(url).join(redactUrl(url));
  for (const password of passwordsOf(url)) out = out.split(password).join('***');
  return out;
}

/** The password as written (percent-encoded) and as sent, from the authority and the query. */
function passwordsOf(url: string): string[] {
  const parts = split(url);
  if (!parts) return [];
  const found = new Set<string>();
  const colon = parts.userinfo.indexOf(':');
  const raw = colon < 0 ? '' : parts.userinfo.slice(colon + 1, -1);
  if (raw) {
    found.add(raw);
    try {
      found.add(decodeURIComponent(raw));
    } catch {
      // a malformed escape: the encoded form above is what appears
    }
  }
  for (const [key, value] of new URLSearchParams(parts.query)) {
    if (key.toLowerCase() === 'password' && value) found.add(value);
  }
  return [...found];
}
