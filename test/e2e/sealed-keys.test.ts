import { execFile } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KekSet } from '../../src/store/kek.js';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { provisionNotesAgent } from '../helpers/decision-world.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';

const server = await pgAvailable();
if ('skip' in server) console.warn(`sealed keys e2e skipped: ${server.skip}`);

interface SealedRow {
  kind: 'signing' | 'secrets';
  tenant_id: string;
  key_id: string;
  kek_id: string;
  sealed: Buffer;
}

/**
 * Issue 28, keys without a shared disk: on PostgreSQL with --kek-file, tenant signing keys and
 * the secret-sealing key live sealed in the database, and a replica needs only the KEK file.
 * The built binary, a real PostgreSQL database, pg_dump of it, TLS daemons under load.
 */
describe.skipIf('skip' in server)('keys sealed in PostgreSQL under a KEK (built binary)', () => {
  const tmp = tmpDir('svc-e2e-sealed-');
  const t = ['--tenant', 'acme'];
  const kekA = join(tmp.path, 'kek-a.key');
  const kekB = join(tmp.path, 'kek-b.key');
  const home = join(tmp.path, 'home');
  let env: Record<string, string>;
  let database: { url: string; drop(): Promise<void> };
  let sql: pg.Client;
  let kekAId: string;
  let kekBId: string;
  let firstKey: { key_id: string; public_key: string };
  let bot: string;
  const daemons: (DaemonProcess | undefined)[] = [];

  const rows = async (): Promise<SealedRow[]> =>
    (await sql.query('SELECT * FROM sealed_keys ORDER BY kind, tenant_id, key_id')).rows as SealedRow[];

  beforeAll(async () => {
    database = await freshDatabase();
    env = { SVC_HOME: home, SVC_STORE: database.url };
    kekAId = (await runJson<{ kek_id: string }>(['store', 'kek', 'create', '--out', kekA])).kek_id;
    kekBId = (await runJson<{ kek_id: string }>(['store', 'kek', 'create', '--out', kekB])).kek_id;
    const init = await runJson<{ key_id: string; public_key: string }>(
      ['init', ...t, '--admin', 'alice', '--kek-file', kekA],
      env,
    );
    firstKey = init;
    await provisionNotesAgent(env, tmp.path, { tenant: 'acme', task: 'load', budgetUsd: '1000', tier: '1' });
    bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
    const value = join(tmp.path, 'crm-token.txt');
    writeFileSync(value, 'crm-very-secret-value\n', { mode: 0o600 });
    await runJson(['secret', 'set', ...t, '--name', 'crm', '--from-file', value, '--kek-file', kekA], env);
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  }, 120_000);

  afterAll(async () => {
    for (const d of daemons) d?.child.kill('SIGKILL');
    await sql?.end();
    await database?.drop();
    tmp.cleanup();
  });

  it('init and secret set keep the keys in the database, sealed under the KEK: no key file in the data dir', async () => {
    expect(existsSync(join(home, 'keys'))).toBe(false);
    expect(existsSync(join(home, 'secrets.key'))).toBe(false);
    const sealed = await rows();
    expect(sealed.map((r) => [r.kind, r.tenant_id, r.key_id === firstKey.key_id, r.kek_id])).toEqual([
      ['secrets', '', false, kekAId],
      ['signing', 'acme', true, kekAId],
    ]);
  });

  it('the database dump holds no plaintext key: not the seed (hex, base64), not the PEM body, not the secret key', async () => {
    const keks = KekSet.read({ kekFile: kekA });
    const [secretRow, signingRow] = await rows();
    const pem = keks.open(
      { kind: 'signing', tenantId: 'acme', keyId: signingRow!.key_id },
      { kekId: signingRow!.kek_id, sealed: signingRow!.sealed },
    );
    const seed = Buffer.from(
      createPrivateKey(pem.toString('utf8')).export({ format: 'jwk' }).d as string,
      'base64url',
    );
    expect(seed.length).toBe(32);
    const dek = keks.open(
      { kind: 'secrets', tenantId: '', keyId: secretRow!.key_id },
      { kekId: secretRow!.kek_id, sealed: secretRow!.sealed },
    );
    const pemBody = pem
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '' && !l.startsWith('-----'))
      .join('');
    const { stdout: dump } = await promisify(execFile)('pg_dump', ['--dbname', database.url], {
      maxBuffer: 64 * 1024 * 1024,
    });
    // The dump is real and holds the key rows: the public key and the sealed bytes are in it.
    expect(dump).toContain(firstKey.public_key);
    expect(dump).toContain(signingRow!.sealed.toString('hex'));
    for (const [what, text] of [
      ['seed hex', seed.toString('hex')],
      ['seed base64', seed.toString('base64')],
      ['seed base64url', seed.toString('base64url')],
      ['PEM body', pemBody],
      ['secret key hex', dek.toString('hex')],
      ['secret key base64', dek.toString('base64')],
      ['secret value', 'crm-very-secret-value'],
      ['KEK A', readFileSync(kekA, 'utf8').trim()],
    ] as const) {
      expect(dump.includes(text), what).toBe(false);
      expect(dump.toLowerCase().includes(text.toLowerCase()), what).toBe(false);
    }
  }, 60_000);

  it('a replica without the KEK, with the wrong one, or with a readable KEK file is refused at start, saying why', async () => {
    const none = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0'], env);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain(
      `signing key ${firstKey.key_id} of tenant acme is sealed in the database under key-encryption key ${kekAId}`,
    );
    expect(none.stderr).toMatch(/no key-encryption key/);
    expect(none.stderr).toMatch(/--kek-file FILE \(or set SVC_KEK_FILE\)/);

    const wrong = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0', '--kek-file', kekB], env);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain(
      `signing key ${firstKey.key_id} of tenant acme is sealed under key-encryption key ${kekAId}; this process holds ${kekBId}`,
    );

    const loose = join(tmp.path, 'kek-loose.key');
    writeFileSync(loose, 'AAAA\n');
    chmodSync(loose, 0o644);
    const readable = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0', '--kek-file', loose], env);
    expect(readable.code).not.toBe(0);
    expect(readable.stderr).toMatch(/--kek-file: .*readable by group or others/);
    expect(readable.stderr).toContain(`chmod 600 ${loose}`);
  }, 60_000);

  it('on a deployment whose keys are sealed, a new key or secret without the KEK is refused: never a key file on one host', async () => {
    const rotate = await runSvc(['key', 'rotate', ...t, '--json'], env);
    expect(rotate.code).toBe(2);
    expect(JSON.parse(rotate.stdout).error).toMatchObject({ code: 'usage', field: 'kek-file' });
    expect(rotate.stdout).toMatch(/keeps its keys sealed in the database/);
    const value = join(tmp.path, 'another.txt');
    writeFileSync(value, 'another\n', { mode: 0o600 });
    const secret = await runSvc(['secret', 'set', ...t, '--name', 'other', '--from-file', value], env);
    expect(secret.code).not.toBe(0);
    expect(secret.stderr).toContain(`the secret-sealing key`);
    expect(secret.stderr).toContain(`is sealed in the database under key-encryption key ${kekAId}`);
    expect(existsSync(join(home, 'keys'))).toBe(false);
    expect(existsSync(join(home, 'secrets.key'))).toBe(false);
  });

  it('--kek-file on SQLite is refused, naming the flag: SQLite keeps key files', async () => {
    const r = await runSvc(['init', ...t, '--admin', 'alice', '--kek-file', kekA, '--json'], {
      SVC_HOME: join(tmp.path, 'sqlite-home'),
      SVC_STORE: 'sqlite',
    });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'usage', field: 'kek-file' });
    expect(existsSync(join(tmp.path, 'sqlite-home'))).toBe(false);
  });

  it('svc store migrate --seal-keys carries the file keys into the database; a replica then needs only the KEK', async () => {
    const sqliteHome = join(tmp.path, 'migrate-home');
    const local = { SVC_HOME: sqliteHome, SVC_STORE: 'sqlite' };
    const made = await runJson<{ key_id: string }>(['init', ...t, '--admin', 'alice'], local);
    const value = join(tmp.path, 'migrate-secret.txt');
    writeFileSync(value, 'migrated-secret\n', { mode: 0o600 });
    const secret = await runJson<{ key_id: string }>(
      ['secret', 'set', ...t, '--name', 'crm', '--from-file', value],
      local,
    );
    const target = await freshDatabase();
    try {
      const noKek = await runSvc(['store', 'migrate', '--to', target.url, '--seal-keys', '--json'], local);
      expect(noKek.code).toBe(2);
      expect(noKek.stdout).toMatch(/kek-file/);
      const moved = await runJson<{ sealed_keys: { kind: string; key_id: string; kek_id: string }[] }>(
        ['store', 'migrate', '--to', target.url, '--seal-keys', '--kek-file', kekA],
        local,
      );
      expect(moved.sealed_keys).toEqual([
        { kind: 'signing', tenant_id: 'acme', key_id: made.key_id, kek_id: kekAId },
        { kind: 'secrets', tenant_id: null, key_id: secret.key_id, kek_id: kekAId },
      ]);
      // Another host's replica: the certificate, no key file, no secret key file, only the KEK.
      rmSync(join(sqliteHome, 'keys'), { recursive: true });
      rmSync(join(sqliteHome, 'secrets.key'));
      rmSync(join(sqliteHome, 'svc.db'));
      const replica = { SVC_HOME: sqliteHome, SVC_STORE: target.url, SVC_REPLICA_ID: 'migrated' };
      const refused = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0'], replica);
      expect(refused.stderr).toContain(`sealed in the database under key-encryption key ${kekAId}`);
      const d = await startDaemonProcess(['--allow-insecure-http', '--kek-file', kekA], replica);
      try {
        const ready = await fetch(`${d.url}/readyz`);
        expect(ready.status).toBe(200);
      } finally {
        expect(await d.stop()).toBe(0);
      }
      const listed = await runJson<{ items: { name: string }[] }>(['secret', 'list', ...t], replica);
      expect(listed.items.map((i) => i.name)).toEqual(['crm']);
    } finally {
      await target.drop();
    }
  }, 120_000);

  it("svc store kek import seals an existing PostgreSQL deployment's key files; running it again seals nothing more", async () => {
    const target = await freshDatabase();
    const filesHome = join(tmp.path, 'import-home');
    const pgEnv = { SVC_HOME: filesHome, SVC_STORE: target.url, SVC_REPLICA_ID: 'imported' };
    try {
      await runJson(['init', ...t, '--admin', 'alice'], pgEnv);
      const value = join(tmp.path, 'import-secret.txt');
      writeFileSync(value, 'imported-secret\n', { mode: 0o600 });
      await runJson(['secret', 'set', ...t, '--name', 'crm', '--from-file', value], pgEnv);
      expect(existsSync(join(filesHome, 'secrets.key'))).toBe(true);
      // A KEK with the files still the only copy: secret set refuses to make a second secret key.
      const split = await runSvc(
        ['secret', 'set', ...t, '--name', 'x', '--from-file', value, '--kek-file', kekA],
        pgEnv,
      );
      expect(split.code).toBe(4);
      expect(split.stderr).toMatch(/svc store kek import/);
      const first = await runJson<{ sealed: unknown[]; already_sealed: number }>(
        ['store', 'kek', 'import', '--kek-file', kekA],
        pgEnv,
      );
      expect(first.sealed).toHaveLength(2);
      const second = await runJson<{ sealed: unknown[]; already_sealed: number }>(
        ['store', 'kek', 'import', '--kek-file', kekA],
        pgEnv,
      );
      expect(second).toMatchObject({ sealed: [], already_sealed: 2 });
      rmSync(join(filesHome, 'keys'), { recursive: true });
      rmSync(join(filesHome, 'secrets.key'));
      const d = await startDaemonProcess(['--allow-insecure-http', '--kek-file', kekA], pgEnv);
      expect(await d.stop()).toBe(0);
      await runJson(['secret', 'set', ...t, '--name', 'y', '--from-file', value, '--kek-file', kekA], pgEnv);
      expect(existsSync(join(filesHome, 'secrets.key'))).toBe(false);
    } finally {
      await target.drop();
    }
  }, 120_000);

  it('a tampered sealed key, or one moved to another row, does not open: the replica refuses to start', async () => {
    await runJson(['tenant', 'create', '--id', 'beta', '--kek-file', kekA], env);
    const before = await rows();
    const acme = before.find((r) => r.tenant_id === 'acme')!;
    const beta = before.find((r) => r.tenant_id === 'beta')!;
    try {
      await sql.query(
        `UPDATE sealed_keys SET sealed = set_byte(sealed, 20, get_byte(sealed, 20) # 1) WHERE tenant_id = 'acme'`,
      );
      const flipped = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0', '--kek-file', kekA], env);
      expect(flipped.code).not.toBe(0);
      expect(flipped.stderr).toContain(`signing key ${acme.key_id} of tenant acme does not open`);
      expect(flipped.stderr).toMatch(/altered or moved/);

      // acme's intact sealed key copied into beta's row: bound to acme's place, it does not open as beta's.
      await sql.query(`UPDATE sealed_keys SET sealed = $1 WHERE tenant_id = 'acme'`, [acme.sealed]);
      await sql.query(`UPDATE sealed_keys SET sealed = $1 WHERE tenant_id = 'beta'`, [acme.sealed]);
      const moved = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0', '--kek-file', kekA], env);
      expect(moved.code).not.toBe(0);
      expect(moved.stderr).toContain(`signing key ${beta.key_id} of tenant beta does not open`);
    } finally {
      await sql.query(`UPDATE sealed_keys SET sealed = $1 WHERE tenant_id = 'beta'`, [beta.sealed]);
      await sql.query(`UPDATE sealed_keys SET sealed = $1 WHERE tenant_id = 'acme'`, [acme.sealed]);
    }
  }, 60_000);

  it('a KEK rotation under decision load, with a signing key rotated mid-way, loses nothing; the export verifies', async () => {
    const both = ['--kek-file', kekB, '--previous-kek-file', kekA, '--anchor-entries', '25'];
    daemons[0] = await startDaemonProcess(['--allow-insecure-http', ...both], {
      ...env,
      SVC_REPLICA_ID: 'r0',
    });
    daemons[1] = await startDaemonProcess(['--allow-insecure-http', ...both], {
      ...env,
      SVC_REPLICA_ID: 'r1',
    });
    const pools = daemons.map((d) => new Pool(d!.url, { connections: 4 }));
    const acks: { receipt_id: string; sequence: number }[] = [];
    const stop = { now: false };
    const worker = async (pool: Pool, id: string) => {
      for (let i = 0; !stop.now; i++) {
        const res = await pool.request({
          method: 'POST',
          path: '/v1/action',
          headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            tenant_id: 'acme',
            actor_id: 'bot',
            capability: 'crm.notes',
            action: 'write',
            task_id: 'load',
            effect_key_step: `${id}-${i}`,
          }),
        });
        const body = (await res.body.json()) as { receipt?: { receipt_id: string; sequence: number } };
        expect(res.statusCode).toBe(200);
        acks.push(body.receipt!);
      }
    };
    const load = pools.flatMap((p, r) => [0, 1, 2].map((w) => worker(p, `r${r}-w${w}`)));
    const waitFor = async (n: number) => {
      while (acks.length < n) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      await waitFor(40);
      const rotated = await runJson<{ resealed: number; keks: { kek_id: string; rows: number }[] }>(
        ['store', 'kek', 'rotate', '--kek-file', kekB, '--previous-kek-file', kekA, '--batch', '1'],
        env,
      );
      expect(rotated.resealed).toBe(3);
      expect(rotated.keks).toEqual([{ kek_id: kekBId, rows: 3 }]);
      await waitFor(acks.length + 40);
      // A new signing key, sealed under the new KEK: the replicas' next heads are signed with it.
      const next = await runJson<{ key_id: string; public_key: string }>(
        ['key', 'rotate', ...t, '--kek-file', kekB, '--previous-kek-file', kekA],
        env,
      );
      await waitFor(acks.length + 80);
      stop.now = true;
      await Promise.all(load);

      const again = await runJson<{ resealed: number }>(['store', 'kek', 'rotate', '--kek-file', kekB], env);
      expect(again.resealed).toBe(0);
      // Every acknowledged decision is in the journal at the sequence its receipt named, none missing.
      const found = await sql.query(
        `SELECT receipt_id, sequence::int AS sequence FROM journal WHERE tenant_id = 'acme' AND receipt_id = ANY($1)`,
        [acks.map((a) => a.receipt_id)],
      );
      const at = new Map(
        found.rows.map((r: { receipt_id: string; sequence: number }) => [r.receipt_id, r.sequence]),
      );
      for (const a of acks) expect(at.get(a.receipt_id)).toBe(a.sequence);
      const [seq] = (
        await sql.query(
          `SELECT count(*)::int AS n, max(sequence)::int AS last FROM journal WHERE tenant_id = 'acme'`,
        )
      ).rows as { n: number; last: number }[];
      expect(seq!.last).toBe(seq!.n);
      for (let i = 0; i < daemons.length; i++) {
        expect(await daemons[i]!.stop()).toBe(0);
        daemons[i] = undefined;
      }
      // After the rotation the old KEK alone opens nothing, and the new one alone is enough.
      const old = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0', '--kek-file', kekA], env);
      expect(old.code).not.toBe(0);
      expect(old.stderr).toContain(`sealed under key-encryption key ${kekBId}; this process holds ${kekAId}`);
      daemons[0] = await startDaemonProcess(['--allow-insecure-http', '--kek-file', kekB], {
        ...env,
        SVC_REPLICA_ID: 'r0',
      });
      expect(await daemons[0].stop()).toBe(0);
      daemons[0] = undefined;

      const file = join(tmp.path, 'acme.jsonl');
      await runJson(['export', ...t, '--out', file, '--kek-file', kekB], env);
      const verdict = await runSvc(
        ['verify', file, '--public-key', firstKey.public_key, '--public-key', next.public_key, '--json'],
        env,
      );
      expect(verdict.code, verdict.stdout).toBe(0);
      expect(JSON.parse(verdict.stdout).result).toMatch(/^pass/);
      // Heads were signed with both keys: the new one was opened from its row sealed under the new KEK.
      const signers = await sql.query(
        `SELECT DISTINCT key_id FROM anchors WHERE tenant_id = 'acme' ORDER BY key_id`,
      );
      expect(signers.rows.map((r: { key_id: string }) => r.key_id).sort()).toEqual(
        [firstKey.key_id, next.key_id].sort(),
      );
    } finally {
      stop.now = true;
      await Promise.allSettled(load);
      await Promise.all(pools.map((p) => p.destroy()));
    }
    expect(readdirSync(home).filter((f) => f === 'keys' || f === 'secrets.key')).toEqual([]);
  }, 240_000);
});
