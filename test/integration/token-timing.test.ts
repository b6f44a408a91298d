import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as token from '../../src/core/token.js';
import { lookupToken } from '../../src/store/sqlite/tokens.js';
import { fixture, type Fixture } from '../helpers/fixture.js';

// Count the secret comparisons without changing them.
vi.mock('../../src/core/token.js', async (importOriginal) => {
  const actual = await importOriginal<typeof token>();
  return { ...actual, tokenSecretMatches: vi.fn(actual.tokenSecretMatches) };
});

/**
 * An unknown token id must cost what a known id with a wrong secret costs, or the time
 * to answer tells an attacker which ids exist. Checked by structure here (the same
 * lookups, the same row read, the same hash and comparison); the time is measured in
 * `npm run bench -- auth-timing`, never asserted in a test.
 */
describe('unknown token id and wrong secret take the same path', () => {
  let f: Fixture;
  beforeEach(async () => {
    f = await fixture();
  });
  afterEach(async () => f.close());

  it('the store reads and decodes a full row for a miss, shaped like a hit', async () => {
    const good = await f.token('acme', 'bot');
    const [, id] = /^svct_([0-9a-f]{16})_/.exec(good)!;
    const hit = lookupToken(f.store.db, id!);
    const miss = lookupToken(f.store.db, '0123456789abcdef');
    expect(hit.found).toBe(true);
    expect(miss.found).toBe(false);
    expect(Object.keys(miss.record).sort()).toEqual(Object.keys(hit.record).sort());
    for (const k of Object.keys(hit.record) as (keyof typeof hit.record)[]) {
      expect(typeof miss.record[k], k).toBe(typeof hit.record[k]);
    }
    expect(miss.record.secretHash).toHaveLength(hit.record.secretHash.length);
    expect(miss.record.createdAt).toHaveLength(hit.record.createdAt.length);
    // The decoy matches no secret, and the port still answers "no such token".
    expect(miss.record.secretHash.every((b) => b === 0)).toBe(true);
    expect(await f.store.tokens.find('0123456789abcdef')).toBeUndefined();
  });

  it('both run one lookup, one hash and one constant-time comparison, and answer alike', async () => {
    const good = await f.token('acme', 'bot');
    const [, id] = /^svct_([0-9a-f]{16})_/.exec(good)!;
    const wrongSecret = `svct_${id}_${'A'.repeat(43)}`;
    const unknownId = `svct_0123456789abcdef_${'A'.repeat(43)}`;
    const find = vi.spyOn(f.store.tokens, 'find');
    const matches = vi.mocked(token.tokenSecretMatches);
    const answers = [];
    for (const t of [wrongSecret, unknownId]) {
      find.mockClear();
      matches.mockClear();
      const r = await f.app.inject({ url: '/v1/capabilities', headers: { authorization: `Bearer ${t}` } });
      answers.push({ status: r.statusCode, body: r.json() });
      expect(find).toHaveBeenCalledTimes(1);
      expect(matches).toHaveBeenCalledTimes(1);
      expect(matches.mock.calls[0]![1]).toHaveLength(32);
      expect(matches.mock.results[0]!.value).toBe(false);
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]!.status).toBe(401);
  });
});
