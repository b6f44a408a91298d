import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runJson, runSvc } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

/** Provisioning commands over a real data dir, through the built binary. */
describe('svc provisioning commands', () => {
  const tmp = tmpDir('svc-cli-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  afterAll(() => tmp.cleanup());

  it('refuse to run on a data dir that does not exist, saying how to make one', async () => {
    const r = await runSvc(['tenant', 'list'], env);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no svc data dir/);
    expect(r.stderr).toMatch(/svc init/);
    const j = await runSvc(['tenant', 'list', '--json'], env);
    expect(JSON.parse(j.stdout)).toEqual({
      error: {
        code: 'not_initialized',
        reason: expect.stringMatching(/no svc data dir/),
        remedy: expect.any(String),
      },
    });
  });

  it('init refuses a bad answer before writing anything', async () => {
    const r = await runSvc(['init', '--tenant', 'Bad Tenant', '--admin', 'a'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/tenant: expected a slug/);
    expect(existsSync(env.SVC_HOME)).toBe(false);
  });

  it('init without a TTY never prompts and uses defaults', async () => {
    const r = await runJson<Record<string, string>>(['init'], env);
    expect(r).toMatchObject({ tenant_id: 'default', admin_id: 'admin', data_dir: env.SVC_HOME });
    expect(readFileSync(r.ca_cert as string, 'utf8')).toMatch(/BEGIN CERTIFICATE/);
    const again = await runSvc(['init', '--tenant', 'x', '--admin', 'y'], env);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/already an svc data dir/);
  });

  it('tenant create and list, each tenant with its own key', async () => {
    const t = await runJson<Record<string, string>>(
      ['tenant', 'create', '--id', 'acme', '--admin', 'alice'],
      env,
    );
    expect(t).toMatchObject({
      tenant_id: 'acme',
      admin_id: 'alice',
      key_id: expect.stringMatching(/^ed25519-/),
    });
    expect(t.admin_token).toMatch(/^svct_/);
    const list = await runJson<{ items: { tenant_id: string; key_id: string }[] }>(['tenant', 'list'], env);
    expect(list.items.map((x) => x.tenant_id)).toEqual(['acme', 'default']);
    expect(new Set(list.items.map((x) => x.key_id)).size).toBe(2);
    expect((await runSvc(['tenant', 'create', '--id', 'acme'], env)).code).toBe(4);
  });

  it('actor add validates kind, roles and managers, with clear messages', async () => {
    const cases: [string[], number, RegExp][] = [
      [['--id', 'bot', '--kind', 'agent'], 2, /every agent names its accountable human manager/],
      [['--id', 'bot', '--kind', 'agent', '--manager', 'nobody'], 2, /nobody is not a registered human/],
      [['--id', 'bot', '--kind', 'robot'], 2, /kind/],
      [['--id', 'svc', '--kind', 'service', '--role', 'approver'], 2, /only human actors carry roles/],
      [['--id', 'Bob', '--kind', 'human'], 2, /id: expected a slug/],
    ];
    for (const [args, code, msg] of cases) {
      const r = await runSvc(['actor', 'add', '--tenant', 'acme', ...args], env);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stderr, args.join(' ')).toMatch(msg);
    }
    const bob = await runJson(
      [
        'actor',
        'add',
        '--tenant',
        'acme',
        '--id',
        'bob',
        '--kind',
        'human',
        '--role',
        'approver',
        '--role',
        'manager',
      ],
      env,
    );
    expect(bob).toMatchObject({ actor_id: 'bob', kind: 'human', roles: ['approver', 'manager'] });
    const bot = await runJson(
      ['actor', 'add', '--tenant', 'acme', '--id', 'bot', '--kind', 'agent', '--manager', 'bob'],
      env,
    );
    expect(bot).toMatchObject({ actor_id: 'bot', manager: 'bob' });
    expect(
      (await runSvc(['actor', 'add', '--tenant', 'acme', '--id', 'bot', '--kind', 'service'], env)).code,
    ).toBe(4);
    const list = await runJson<{ items: { actor_id: string }[] }>(['actor', 'list', '--tenant', 'acme'], env);
    expect(list.items.map((a) => a.actor_id)).toEqual(['alice', 'bob', 'bot']);
    expect((await runSvc(['actor', 'list', '--tenant', 'nope'], env)).code).toBe(3);
  });

  it('token issue, list and revoke; the secret is never listed', async () => {
    const issued = await runJson<Record<string, string>>(
      ['token', 'issue', '--tenant', 'acme', '--actor', 'bot', '--ttl', '12h', '--label', 'ci'],
      env,
    );
    for (const k of ['token_id', 'token', 'actor_id', 'tenant_id', 'expires_at'])
      expect(issued).toHaveProperty(k);
    const hours = (Date.parse(issued.expires_at as string) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);
    const plain = await runSvc(['token', 'issue', '--tenant', 'acme', '--actor', 'bot'], env);
    expect(plain.stdout.trim()).toMatch(/^svct_[0-9a-f]{16}_\S{43}$/);
    const listed = await runSvc(['token', 'list', '--tenant', 'acme', '--actor', 'bot', '--json'], env);
    expect(listed.stdout).not.toContain((issued.token as string).slice(22));
    const tokens = (
      JSON.parse(listed.stdout) as { items: { token_id: string; state: string; label: string | null }[] }
    ).items;
    expect(tokens.find((t) => t.token_id === issued.token_id)).toMatchObject({
      state: 'active',
      label: 'ci',
    });
    expect(
      await runJson(['token', 'revoke', '--tenant', 'acme', issued.token_id as string], env),
    ).toMatchObject({ revoked: true });
    const after = await runJson<{ items: { token_id: string; state: string }[] }>(
      ['token', 'list', '--tenant', 'acme'],
      env,
    );
    expect(after.items.find((t) => t.token_id === issued.token_id)?.state).toBe('revoked');

    expect(
      (await runSvc(['token', 'revoke', '--tenant', 'acme', '--id', 'ffffffffffffffff'], env)).code,
    ).toBe(3);
    expect((await runSvc(['token', 'revoke', '--tenant', 'acme', '--id', 'zz'], env)).stderr).toMatch(
      /16 hex digits/,
    );
    expect((await runSvc(['token', 'issue', '--tenant', 'acme', '--actor', 'ghost'], env)).code).toBe(3);
    const badTtl = await runSvc(['token', 'issue', '--tenant', 'acme', '--actor', 'bot', '--ttl', '5y'], env);
    expect(badTtl.code).toBe(2);
    expect(badTtl.stderr).toMatch(/ttl: expected a duration/);
  });

  it('key show and rotate', async () => {
    const shown = await runJson<Record<string, string>>(['key', 'show', '--tenant', 'acme'], env);
    expect(shown).toMatchObject({
      key_id: expect.stringMatching(/^ed25519-[0-9a-f]{16}$/),
      algorithm: 'ed25519',
      status: 'active',
    });
    expect(Buffer.from(shown.public_key as string, 'base64')).toHaveLength(32);
    const pem = await runSvc(['key', 'show', '--tenant', 'acme', '--pem'], env);
    expect(pem.stdout).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+-----END PUBLIC KEY-----\n$/);
    const rotated = await runJson<Record<string, string>>(['key', 'rotate', '--tenant', 'acme'], env);
    expect(rotated.key_id).not.toBe(shown.key_id);
    const all = await runJson<{ key_id: string; keys: Record<string, unknown>[] }>(
      ['key', 'show', '--tenant', 'acme', '--all'],
      env,
    );
    expect(all.key_id).toBe(rotated.key_id);
    // Exactly what an auditor pins: every key an export may name, with its public key.
    expect(all.keys).toEqual([
      {
        key_id: shown.key_id,
        public_key: shown.public_key,
        algorithm: 'ed25519',
        status: 'retired',
        created_at: expect.any(String),
        retired_at: expect.any(String),
      },
      {
        key_id: rotated.key_id,
        public_key: rotated.public_key,
        algorithm: 'ed25519',
        status: 'active',
        created_at: expect.any(String),
        retired_at: null,
      },
    ]);
    const human = await runSvc(['key', 'show', '--tenant', 'acme', '--all'], env);
    expect(human.stderr).toContain(
      `Verify with: svc verify FILE --public-key ${shown.public_key} --public-key ${rotated.public_key}`,
    );
    expect((await runSvc(['key', 'show', '--tenant', 'acme'], env)).stderr).toMatch(
      /1 retired key\(s\) not shown/,
    );
  });

  it('unknown flags and missing values are usage errors (exit 2)', async () => {
    const r = await runSvc(['token', 'issue', '--tenant', 'acme', '--actor', 'bot', '--bogus'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Nonexistent flag: --bogus/);
    const m = await runSvc(['token', 'issue', '--tenant', 'acme'], env);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/Missing required flag[\s\S]*actor/);
  });
});
