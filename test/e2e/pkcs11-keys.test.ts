import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Pkcs11Lib from 'pkcs11js';
import { runJson, runSvc, startDaemonProcess } from '../helpers/cli.js';
import { provisionNotesAgent } from '../helpers/decision-world.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';

/** Debian's softhsm2 package: .ci/run installs it. */
const MODULE = '/usr/lib/softhsm/libsofthsm2.so';
const available = existsSync(MODULE) && existsSync('/usr/bin/softhsm2-util');
if (!available) console.warn('PKCS#11 e2e skipped: Debian softhsm2 is not installed');
const pgServer = await pgAvailable();

/**
 * Issue 28, the next step after sealed keys: tenant signing keys generated in a PKCS#11 token
 * (SoftHSM, a real PKCS#11 library), never extractable. The built binary signs tree heads
 * through the token; an auditor verifies them with the public key alone.
 */
describe.skipIf(!available)('signing keys in a PKCS#11 token (SoftHSM, built binary)', () => {
  const tmp = tmpDir('svc-e2e-pkcs11-');
  const t = ['--tenant', 'acme'];
  const home = join(tmp.path, 'home');
  const conf = join(tmp.path, 'softhsm2.conf');
  const pin = join(tmp.path, 'pin');
  let token: Record<string, string>;
  let env: Record<string, string>;
  let firstKey: { key_id: string; public_key: string };

  beforeAll(async () => {
    const tokens = join(tmp.path, 'tokens');
    mkdirSync(tokens);
    writeFileSync(conf, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`);
    execFileSync(
      'softhsm2-util',
      ['--init-token', '--free', '--label', 'svc-test', '--pin', '4321', '--so-pin', '87654321'],
      { env: { ...process.env, SOFTHSM2_CONF: conf }, stdio: 'ignore' },
    );
    writeFileSync(pin, '4321\n', { mode: 0o600 });
    token = { SVC_PKCS11_MODULE: MODULE, SVC_PKCS11_TOKEN_LABEL: 'svc-test', SVC_PKCS11_PIN_FILE: pin };
    env = { SVC_HOME: home, SOFTHSM2_CONF: conf };
    firstKey = await runJson(['init', ...t, '--admin', 'alice'], { ...env, ...token });
    await provisionNotesAgent(env, tmp.path, { tenant: 'acme', task: 'notes', budgetUsd: '10', tier: '0' });
  }, 120_000);

  afterAll(() => tmp.cleanup());

  /** Allowed decisions through a daemon that holds the token, one per step; it is stopped after. */
  async function decideThrough(steps: string[]): Promise<void> {
    const bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
    const d = await startDaemonProcess(['--allow-insecure-http'], { ...env, ...token });
    try {
      expect((await fetch(`${d.url}/readyz`)).status).toBe(200);
      for (const step of steps) {
        const r = await fetch(`${d.url}/v1/action`, {
          method: 'POST',
          headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            tenant_id: 'acme',
            actor_id: 'bot',
            capability: 'crm.notes',
            action: 'write',
            task_id: 'notes',
            effect_key_step: step,
            intent: 'write a note',
          }),
        });
        expect(r.status).toBe(200);
      }
    } finally {
      expect(await d.stop()).toBe(0);
    }
  }

  it('init makes the key in the token: no key file in the data dir, and the token will not give up the private half', () => {
    expect(firstKey.key_id).toMatch(/^ed25519-[0-9a-f]{16}$/);
    expect(existsSync(join(home, 'keys'))).toBe(false);
    const pems = readdirSync(home, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.pem'));
    expect(pems.sort()).toEqual(['tls/deployment-cert.pem', 'tls/deployment-key.pem']);

    // Asked directly, as anyone holding the PIN could: the object is there, sensitive, not extractable.
    const before = process.env.SOFTHSM2_CONF;
    process.env.SOFTHSM2_CONF = conf;
    const lib = createRequire(import.meta.url)('pkcs11js') as typeof Pkcs11Lib;
    const p11 = new lib.PKCS11();
    p11.load(MODULE);
    p11.C_Initialize();
    try {
      const slot = p11.C_GetSlotList(true).find((s) => p11.C_GetTokenInfo(s).label.trim() === 'svc-test')!;
      const session = p11.C_OpenSession(slot, lib.CKF_SERIAL_SESSION);
      p11.C_Login(session, lib.CKU_USER, '4321');
      p11.C_FindObjectsInit(session, [
        { type: lib.CKA_CLASS, value: lib.CKO_PRIVATE_KEY },
        { type: lib.CKA_ID, value: Buffer.from(firstKey.key_id) },
      ]);
      const [key] = p11.C_FindObjects(session, 2);
      p11.C_FindObjectsFinal(session);
      expect(key).toBeDefined();
      const [extractable, sensitive] = p11.C_GetAttributeValue(session, key!, [
        { type: lib.CKA_EXTRACTABLE },
        { type: lib.CKA_SENSITIVE },
      ]);
      expect(extractable!.value).toEqual(Buffer.from([0]));
      expect(sensitive!.value).toEqual(Buffer.from([1]));
      expect(() => p11.C_GetAttributeValue(session, key!, [{ type: lib.CKA_VALUE }])).toThrow(
        /CKR_ATTRIBUTE_SENSITIVE/,
      );
    } finally {
      p11.C_Finalize();
      if (before === undefined) delete process.env.SOFTHSM2_CONF;
      else process.env.SOFTHSM2_CONF = before;
    }
  });

  it('the daemon signs through the token: decisions, an export whose heads verify with the public key alone', async () => {
    await decideThrough(['note-0', 'note-1', 'note-2']);
    const file = join(tmp.path, 'acme.jsonl');
    const exported = await runJson<{ key_id: string }>(['export', ...t, '--out', file], { ...env, ...token });
    expect(exported.key_id).toBe(firstKey.key_id);
    const verdict = await runJson<{ result: string }>(
      ['verify', file, '--public-key', firstKey.public_key],
      env,
    );
    expect(verdict.result).toBe('pass');
  });

  it('without the token, signing stops and says where the key is: the export refuses, the daemon is not ready', async () => {
    const refused = await runSvc(['export', ...t, '--out', join(tmp.path, 'no.jsonl')], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`signing key ${firstKey.key_id}`);
    expect(refused.stderr).toContain('--pkcs11-module');
    const d = await startDaemonProcess(['--allow-insecure-http'], env);
    try {
      const ready = await fetch(`${d.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.text()).toContain('a signing key cannot be loaded');
    } finally {
      await d.stop();
    }
  });

  it('a wrong PIN, an unknown label or a half-given token is refused before anything is written, naming the flag', async () => {
    const wrongPin = join(tmp.path, 'wrong-pin');
    writeFileSync(wrongPin, '0000\n', { mode: 0o600 });
    const cases: [Record<string, string>, string][] = [
      [{ ...token, SVC_PKCS11_PIN_FILE: wrongPin }, '--pkcs11-pin-file: the token svc-test refused the PIN'],
      [
        { ...token, SVC_PKCS11_TOKEN_LABEL: 'no-such-token' },
        '--pkcs11-token-label: no token labelled "no-such-token"',
      ],
      [{ SVC_PKCS11_MODULE: MODULE }, '--pkcs11-token-label: a PKCS#11 token needs its module'],
    ];
    for (const [given, message] of cases) {
      const other = join(tmp.path, `home-${Object.keys(given).length}-${given.SVC_PKCS11_TOKEN_LABEL ?? ''}`);
      const r = await runSvc(['init', ...t, '--admin', 'alice', '--yes'], {
        SVC_HOME: other,
        SOFTHSM2_CONF: conf,
        ...given,
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(message);
      expect(existsSync(other)).toBe(false);
    }
  });

  it('key rotate makes the next key in the token; heads signed before keep verifying with the first key', async () => {
    const next = await runJson<{ key_id: string; public_key: string }>(['key', 'rotate', ...t], {
      ...env,
      ...token,
    });
    expect(next.key_id).not.toBe(firstKey.key_id);
    expect(existsSync(join(home, 'keys'))).toBe(false);
    await decideThrough(['note-3']);
    const file = join(tmp.path, 'after-rotation.jsonl');
    const exported = await runJson<{ key_id: string }>(['export', ...t, '--out', file], { ...env, ...token });
    expect(exported.key_id).toBe(next.key_id);
    const verdict = await runJson<{ result: string }>(
      ['verify', file, '--public-key', next.public_key, '--public-key', firstKey.public_key],
      env,
    );
    expect(verdict.result).toBe('pass');
  });

  it.skipIf('skip' in pgServer)(
    'on PostgreSQL with a KEK too: the signing key goes to the token, the KEK seals only the secret key',
    async () => {
      const database = await freshDatabase();
      try {
        const kek = join(tmp.path, 'kek.key');
        await runJson(['store', 'kek', 'create', '--out', kek]);
        const pgEnv = { SVC_HOME: join(tmp.path, 'pg-home'), SVC_STORE: database.url, SOFTHSM2_CONF: conf };
        const key = await runJson<{ key_id: string }>(['init', ...t, '--admin', 'alice', '--kek-file', kek], {
          ...pgEnv,
          ...token,
        });
        const value = join(tmp.path, 'crm-token.txt');
        writeFileSync(value, 'crm-value\n', { mode: 0o600 });
        await runJson(
          ['secret', 'set', ...t, '--name', 'crm', '--from-file', value, '--kek-file', kek],
          pgEnv,
        );
        const sql = new pg.Client({ connectionString: database.url });
        await sql.connect();
        try {
          const rows = (await sql.query('SELECT kind, key_id FROM sealed_keys ORDER BY kind')).rows as {
            kind: string;
            key_id: string;
          }[];
          expect(rows.map((r) => r.kind)).toEqual(['secrets']);
          expect(rows.some((r) => r.key_id === key.key_id)).toBe(false);
        } finally {
          await sql.end();
        }
        expect(existsSync(join(tmp.path, 'pg-home', 'keys'))).toBe(false);
      } finally {
        await database.drop();
      }
    },
  );
});
