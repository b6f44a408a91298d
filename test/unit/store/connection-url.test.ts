import { describe, expect, it } from 'vitest';
import { isPostgresUrl, redactSecrets, redactUrl } from '../../../src/store/postgres/connection-url.js';

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
});
