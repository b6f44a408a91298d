import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as token from '../../src/core/token.js';
import { revokeToken } from '../../src/provisioning/token.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { fixture, type Fixture } from '../helpers/fixture.js';

// Count the secret comparisons of the store's path without changing them.
vi.mock('../../src/core/token.js', async (importOriginal) => {
  const actual = await importOriginal<typeof token>();
  return { ...actual, tokenSecretMatches: vi.fn(actual.tokenSecretMatches) };
});

/** The daemon's verified-token cache over a real SQLite file: fast for a repeat caller, never stale. */
describe('authentication cache', () => {
  let f: Fixture;
  beforeEach(async () => {
    f = await fixture();
  });
  afterEach(async () => f.close());

  const caps = (t: string) =>
    f.app.inject({ method: 'GET', url: '/v1/capabilities', headers: { authorization: `Bearer ${t}` } });
  const idOf = (t: string) => /^svct_([0-9a-f]{16})_/.exec(t)![1]!;

  it('a repeat caller is answered without a token lookup or an actor load', async () => {
    const bot = await f.token('acme', 'bot');
    const find = vi.spyOn(f.store.tokens, 'find');
    const actor = vi.spyOn(f.store.actors, 'get');
    for (let i = 0; i < 5; i++) expect((await caps(bot)).statusCode).toBe(200);
    expect(find).toHaveBeenCalledTimes(1);
    expect(actor).toHaveBeenCalledTimes(1);
  });

  it('a revocation through the daemon’s own store refuses the very next request', async () => {
    const bot = await f.token('acme', 'bot');
    expect((await caps(bot)).statusCode).toBe(200);
    expect((await caps(bot)).statusCode).toBe(200);
    await revokeToken(f.store, { tenantId: 'acme', tokenId: idOf(bot), now: f.now.value });
    const r = await caps(bot);
    expect(r.statusCode).toBe(401);
    expect(r.json().reason).toBe('the token is revoked');
  });

  it('a revocation committed by another connection to the file refuses the very next request', async () => {
    const bot = await f.token('acme', 'bot');
    const other = await f.token('acme', 'bot');
    expect((await caps(bot)).statusCode).toBe(200);
    expect((await caps(other)).statusCode).toBe(200);
    const cli = SqliteStore.open(f.dir.database);
    try {
      await revokeToken(cli, { tenantId: 'acme', tokenId: idOf(bot), now: f.now.value });
    } finally {
      await cli.close();
    }
    expect((await caps(bot)).json().reason).toBe('the token is revoked');
    // Forgetting everything costs the other caller one lookup, not its access.
    expect((await caps(other)).statusCode).toBe(200);
  });

  it('a cached token expires at its expiry instant exactly', async () => {
    const brief = await f.token('acme', 'bot', 60_000);
    const start = f.now.value;
    expect((await caps(brief)).statusCode).toBe(200);
    f.now.value = new Date(start.getTime() + 59_999);
    expect((await caps(brief)).statusCode).toBe(200);
    f.now.value = new Date(start.getTime() + 60_000);
    const r = await caps(brief);
    expect(r.statusCode).toBe(401);
    expect(r.json().reason).toBe('the token is expired');
  });

  it('a wrong secret for a cached token id takes the store’s path and answers as an unknown id', async () => {
    const bot = await f.token('acme', 'bot');
    expect((await caps(bot)).statusCode).toBe(200);
    const id = idOf(bot);
    const secret = bot.slice(22);
    const wrongSecret = `svct_${id}_${(secret[0] === 'A' ? 'B' : 'A') + secret.slice(1)}`;
    const unknownId = `svct_0123456789abcdef_${secret}`;
    const find = vi.spyOn(f.store.tokens, 'find');
    const matches = vi.mocked(token.tokenSecretMatches);
    const answers = [];
    for (const t of [wrongSecret, unknownId]) {
      find.mockClear();
      matches.mockClear();
      const r = await caps(t);
      answers.push({ status: r.statusCode, body: r.json() });
      expect(find).toHaveBeenCalledTimes(1);
      expect(matches).toHaveBeenCalledTimes(1);
      expect(matches.mock.results[0]!.value).toBe(false);
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]!.status).toBe(401);
    // The right secret is still served from the cache afterwards.
    find.mockClear();
    expect((await caps(bot)).statusCode).toBe(200);
    expect(find).not.toHaveBeenCalled();
  });

  it('the change mark moves on a commit by another connection and on a write through the repo, and only then', async () => {
    const first = await f.store.tokens.changeMark();
    expect(await f.store.tokens.changeMark()).toBe(first);
    await caps(f.adminToken); // reads only: no move
    expect(await f.store.tokens.changeMark()).toBe(first);
    await f.token('acme', 'bot');
    const afterInsert = await f.store.tokens.changeMark();
    expect(afterInsert).not.toBe(first);
    const cli = SqliteStore.open(f.dir.database);
    try {
      await cli.tokens.insert({
        id: '00000000000000aa',
        tenantId: 'acme',
        actorId: 'bot',
        secretHash: new Uint8Array(32),
        label: null,
        createdAt: f.now.value.toISOString(),
        expiresAt: f.now.value.toISOString(),
        revokedAt: null,
      });
    } finally {
      await cli.close();
    }
    expect(await f.store.tokens.changeMark()).not.toBe(afterInsert);
  });

  it('checks arriving together share one change-mark read; a revocation before the next ones is still seen', async () => {
    const bot = await f.token('acme', 'bot');
    expect((await caps(bot)).statusCode).toBe(200);
    const marks = vi.spyOn(f.store.tokens, 'changeMark');
    const together = await Promise.all(Array.from({ length: 8 }, () => caps(bot)));
    expect(together.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
    expect(marks.mock.calls.length).toBeLessThan(8);
    const cli = SqliteStore.open(f.dir.database);
    try {
      await revokeToken(cli, { tenantId: 'acme', tokenId: idOf(bot), now: f.now.value });
    } finally {
      await cli.close();
    }
    const after = await Promise.all(Array.from({ length: 8 }, () => caps(bot)));
    expect(after.map((r) => r.json().reason)).toEqual(Array(8).fill('the token is revoked'));
  });
});
