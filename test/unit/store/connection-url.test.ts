import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import {
  isPostgresUrl,
  parsePgUrl,
  redactSecrets,
  redactUrl,
} from '../../../src/store/postgres/connection-url.js';

describe('PostgreSQL connection URLs', () => {
  it('recognises both URL schemes and nothing else', () => {
    expect(isPostgresUrl('postgres://h/db')).toBe(true);
    expect(isPostgresUrl('postgresql://h/db')).toBe(true);
    expect(isPostgresUrl('./.svc')).toBe(false);
    expect(isPostgresUrl('/data/postgres://x')).toBe(false);
  });

  it('hides a password in the authority or the query, and keeps the rest', () => {
    expect(redactUrl('postgresql://svc:p%40ss@db.internal:5432/svc?sslmode=require')).toBe(
      'postgresql://svc:***@db.internal:5432/svc?sslmode=require',
    );
    expect(redactUrl('postgres://svc@db/svc?password=hunter2')).toBe('postgres://svc@db/svc?password=***');
    expect(redactUrl('postgres://db/svc')).toBe('postgres://db/svc');
  });

  it('hides the password even in a URL it cannot parse', () => {
    expect(redactUrl('postgres://u:pw word@[bad/x')).not.toContain('pw word');
  });

  it('removes the password, raw and decoded, from any message', () => {
    const url = 'postgresql://svc:p%40ss@db/svc';
    expect(redactSecrets(`failed for ${url} with p@ss and p%40ss`, url)).toBe(
      'failed for postgresql://svc:***@db/svc with *** and ***',
    );
  });

  it('hides the password of a multi-host URL, which the WHATWG parser refuses', () => {
    const url =
      'postgresql://svc:s3cret@db1:5432,db2:5433/svc?target_session_attrs=read-write&password=other';
    expect(redactUrl(url)).toBe(
      'postgresql://svc:***@db1:5432,db2:5433/svc?target_session_attrs=read-write&password=***',
    );
    expect(redactSecrets(`connect to ${url} failed (s3cret, other)`, url)).not.toMatch(/s3cret|other\)/);
  });

  it('splits a multi-host URL into one single-host URL per host, in order, asking for writes', () => {
    const parsed = parsePgUrl(
      'postgresql://svc:p%40ss@db1:5432,[::1]:5433,db3/svc?sslmode=require&target_session_attrs=read-write',
    );
    expect(parsed.readWrite).toBe(true);
    expect(parsed.hosts).toEqual([
      { host: 'db1', port: 5432, url: 'postgresql://svc:p%40ss@db1:5432/svc?sslmode=require' },
      { host: '[::1]', port: 5433, url: 'postgresql://svc:p%40ss@[::1]:5433/svc?sslmode=require' },
      { host: 'db3', port: 5432, url: 'postgresql://svc:p%40ss@db3/svc?sslmode=require' },
    ]);
    // several hosts without the attribute: still the writable one (svc writes every decision)
    expect(parsePgUrl('postgres://a,b/db').readWrite).toBe(true);
    expect(parsePgUrl('postgres://a/db').readWrite).toBe(false);
    expect(parsePgUrl('postgres://a/db?target_session_attrs=primary').readWrite).toBe(true);
  });

  it("reads svc's session limits and pool size from the query and keeps them from the server", () => {
    const parsed = parsePgUrl(
      'postgres://h/db?statement_timeout=5000&lock_timeout=2000&idle_in_transaction_session_timeout=9000&connect_timeout=3&pool_size=2&sslmode=disable',
    );
    expect(parsed.settings).toEqual({
      statementTimeoutMs: 5000,
      lockTimeoutMs: 2000,
      idleInTransactionTimeoutMs: 9000,
      connectTimeoutMs: 3000,
      poolSize: 2,
    });
    expect(parsed.hosts[0]!.url).toBe('postgres://h/db?sslmode=disable');
  });

  it('refuses a bad host list or setting, naming the store and what was expected, never the password', () => {
    const bad = [
      ['postgres://u:pw@a:99999,b/db', /host "a:99999" .* HOST:PORT/],
      ['postgres://u:pw@a,,b/db', /empty host/],
      ['postgres://u:pw@a/db?pool_size=0', /pool_size must be an integer from 2 to 1000, got "0"/],
      [
        'postgres://u:pw@a/db?lock_timeout=5s',
        /lock_timeout must be an integer from 0 to 86400000 \(milliseconds\)/,
      ],
      [
        'postgres://u:pw@a,b/db?target_session_attrs=standby',
        /target_session_attrs must be read-write, primary or any/,
      ],
    ] as const;
    for (const [url, message] of bad) {
      const err = (() => {
        try {
          parsePgUrl(url);
        } catch (e) {
          return e;
        }
      })();
      expect(err, url).toBeInstanceOf(SvcError);
      expect((err as SvcError).field).toBe('store');
      expect((err as SvcError).reason).toMatch(message);
      expect((err as SvcError).reason).not.toContain('pw');
    }
  });
});
