import { describe, expect, it } from 'vitest';
import { MIN_SERVER_VERSION, tooOld } from '../../../src/store/postgres/database.js';

describe('the oldest PostgreSQL server svc runs on', () => {
  it('refuses a server older than 12, naming its version and the one needed', () => {
    expect(tooOld(110022)?.message).toBe(
      'the database server runs PostgreSQL 11; svc needs PostgreSQL 12 or newer',
    );
    expect(tooOld(90624)?.message).toBe(
      'the database server runs PostgreSQL 9.6; svc needs PostgreSQL 12 or newer',
    );
    expect(tooOld(110022)?.kind).toBe('unavailable');
  });

  it('accepts 12 and every later server', () => {
    expect(MIN_SERVER_VERSION).toBe(120000);
    for (const v of [120000, 130012, 150010, 170002]) expect(tooOld(v)).toBeUndefined();
  });
});
