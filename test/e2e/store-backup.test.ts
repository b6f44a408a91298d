import { createHash } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';

interface Head {
  tree_size: number;
  root_hash: string;
  key_id: string;
}
interface Manifest {
  format: string;
  svc_version: string;
  sha256: string;
  size: number;
  tenants: { tenant_id: string; entries: number; head: Head | null }[];
  not_included: string[];
}
interface ErrorBody {
  error: { code: string; field?: string; reason: string };
}

const TENANTS = ['acme', 'other'];
const WORKERS = 3;

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Change one character of one journal record in a SQLite file (same length: one byte). */
function tamperOneJournalByte(file: string): void {
  const db = new Database(file);
  try {
    const row = db
      .prepare("SELECT rowid, record FROM journal WHERE tenant_id = 'acme' AND sequence = 2")
      .get() as { rowid: number; record: string };
    const at = row.record.indexOf('"decision"') + 2;
    const changed = row.record.slice(0, at) + (row.record[at] === 'e' ? 'E' : 'e') + row.record.slice(at + 1);
    expect(changed.length).toBe(row.record.length);
    db.prepare('UPDATE journal SET record = ? WHERE rowid = ?').run(changed, row.rowid);
  } finally {
    db.close();
  }
}

/** Two tenants whose bot may write notes under any policy; returns the deployment CA. */
async function provision(
  env: Record<string, string>,
  tenants: string[],
  tokens: Record<string, string>,
  publicKeys: Record<string, string>,
): Promise<{ ca: Buffer }> {
  const init = await runJson<{ ca_cert: string }>(['init', '--tenant', tenants[0]!, '--admin', 'alice'], env);
  for (const tenant of tenants.slice(1))
    await runJson(['tenant', 'create', '--id', tenant, '--admin', 'alice'], env);
  const policy = join(env.SVC_HOME!, '..', 'policy.cedar');
  writeFileSync(policy, 'permit (principal, action, resource);\n');
  const candidate = join(env.SVC_HOME!, '..', 'candidate.cedar');
  writeFileSync(candidate, 'forbid (principal, action, resource);\n');
  for (const tenant of tenants) {
    const t = ['--tenant', tenant];
    await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
    await runJson(
      ['capability', 'register', ...t, '--name', 'crm.notes', '--actions', 'write', '--tier', '1'],
      env,
    );
    await runJson(['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'crm.notes'], env);
    await runJson(['policy', 'set', ...t, '--file', policy, '--message', 'the first policy'], env);
    await runJson(
      ['task', 'create', ...t, '--id', 't1', '--sponsor', 'alice', '--budget-usd', '1000', '--actor', 'bot'],
      env,
    );
    tokens[tenant] = (
      await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)
    ).token;
    publicKeys[tenant] = (await runJson<{ public_key: string }>(['key', 'show', ...t], env)).public_key;
    // A shadow policy that would refuse everything: every decision under load is a difference.
    await runJson(['policy', 'shadow', 'set', ...t, '--file', candidate], env);
  }
  return { ca: readFileSync(init.ca_cert) };
}

/** One decision through the daemon's HTTPS API; it must be allowed. */
async function decide(pool: Pool, token: string, tenant: string, step: string): Promise<void> {
  const res = await pool.request({
    method: 'POST',
    path: '/v1/action',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      tenant_id: tenant,
      actor_id: 'bot',
      capability: 'crm.notes',
      action: 'write',
      task_id: 't1',
      effect_key_step: step,
    }),
  });
  const body = (await res.body.json()) as { decision?: string };
  expect(res.statusCode, JSON.stringify(body)).toBe(200);
  expect(body.decision).toBe('allowed');
}

/**
 * Online backup under load: a daemon process takes decisions through HTTPS for two tenants
 * while `svc store backup` copies its database; the copy restores into a new data dir, a
 * daemon starts on it, and each tenant's export verifies and carries the head the manifest
 * names. A tampered copy fails verify and restore; a non-empty target is refused.
 */
describe('svc store backup / restore / verify (built binary, a daemon under load)', () => {
  const tmp = tmpDir('svc-e2e-backup-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  const backup = join(tmp.path, 'svc-backup.db');
  const restored = join(tmp.path, 'restored');
  let daemon: DaemonProcess | undefined;
  let ca: Buffer;
  const tokens: Record<string, string> = {};
  const publicKeys: Record<string, string> = {};
  let manifest: Manifest;

  beforeAll(async () => {
    ({ ca } = await provision(env, TENANTS, tokens, publicKeys));
  });

  afterAll(() => {
    daemon?.child.kill('SIGKILL');
    tmp.cleanup();
  });

  it('backs up while the daemon decides; the copy restores, serves, and each export verifies under the manifest head', async () => {
    daemon = await startDaemonProcess(['--anchor-entries', '5'], env);
    const pool = new Pool(daemon.url, { connect: { ca }, connections: WORKERS });
    let acks = 0;
    const stop = { now: false };
    const load = Array.from({ length: WORKERS }, async (_, w) => {
      for (let i = 0; !stop.now; i++) {
        const tenant = TENANTS[(w + i) % TENANTS.length]!;
        await decide(pool, tokens[tenant]!, tenant, `w${w}-${i}`);
        acks++;
      }
    });
    const until = async (n: number) => {
      while (acks < n) await new Promise((r) => setTimeout(r, 20));
    };
    await until(30);
    // A signed head for each tenant while the load runs (the export signs one), besides the schedule's.
    for (const tenant of TENANTS) {
      await runJson(['export', '--tenant', tenant, '--out', join(tmp.path, `before-${tenant}.jsonl`)], env);
    }

    const started = acks;
    const run = await runSvc(['store', 'backup', '--to', backup, '--json'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { file: string; manifest_file: string; manifest: Manifest };
    // the daemon kept deciding: more decisions after the backup, which the copy does not hold
    await until(acks + 10);
    stop.now = true;
    await Promise.all(load);
    await pool.destroy();
    expect(await daemon.stop()).toBe(0);
    daemon = undefined;

    manifest = JSON.parse(readFileSync(`${backup}.manifest.json`, 'utf8')) as Manifest;
    expect(result.manifest).toEqual(manifest);
    expect(result.file).toBe(backup);
    expect(manifest.format).toBe('svc.backup/v1');
    expect(manifest.sha256).toBe(sha256(backup));
    expect(manifest.size).toBe(readFileSync(backup).length);
    expect(manifest.tenants.map((t) => t.tenant_id)).toEqual(TENANTS);

    // svc policy replay reads the backup as it is, without writing: every decision in it
    // carries the inputs it was decided with, so a candidate that forbids all flips each one.
    const candidate = join(tmp.path, 'forbid-all.cedar');
    writeFileSync(candidate, '@id("stop") forbid (principal, action, resource);\n');
    const replay = await runJson<{
      read: number;
      replayed: number;
      policy_versions: number[];
      by_pair: { pair: string; count: number }[];
    }>(['policy', 'replay', '--backup', backup, '--tenant', 'acme', '--candidate', candidate], env);
    expect(replay.replayed).toBeGreaterThan(0);
    expect(replay.read).toBe(replay.replayed);
    expect(replay.policy_versions).toEqual([1]);
    expect(replay.by_pair.map((p) => [p.pair, p.count])).toEqual([['allowed->refused', replay.replayed]]);
    expect(sha256(backup)).toBe(manifest.sha256);
    const source = new Database(join(home, 'svc.db'), { readonly: true });
    const total = source.prepare('SELECT count(*) FROM journal').pluck().get() as number;
    source.close();
    const copied = manifest.tenants.reduce((n, t) => n + t.entries, 0);
    expect(copied).toBeGreaterThanOrEqual(started);
    expect(total).toBeGreaterThan(copied);
    for (const t of manifest.tenants) expect(t.head?.tree_size, t.tenant_id).toBeGreaterThan(0);
    // The keys, the deployment certificate and its key are named, not copied.
    expect(manifest.not_included).toEqual(
      expect.arrayContaining(['tls/deployment-cert.pem', 'tls/deployment-key.pem']),
    );
    for (const tenant of TENANTS) {
      expect(manifest.not_included.some((f) => f.startsWith(`keys/${tenant}/`))).toBe(true);
    }

    // Restore into a new data dir, copy what the manifest names, start a daemon on it.
    const r = await runJson<{
      data_dir: string;
      tenants: { tenant_id: string; head: Head | null }[];
      copy_from_source: string[];
    }>(['store', 'restore', backup, '--data-dir', restored]);
    expect(r.data_dir).toBe(restored);
    expect(r.tenants.map((t) => t.head)).toEqual(manifest.tenants.map((t) => t.head));
    for (const file of r.copy_from_source) {
      mkdirSync(join(restored, file, '..'), { recursive: true, mode: 0o700 });
      cpSync(join(home, file), join(restored, file), { preserveTimestamps: true });
    }
    const restoredEnv = { SVC_HOME: restored };
    daemon = await startDaemonProcess([], restoredEnv);
    const again = new Pool(daemon.url, { connect: { ca }, connections: 1 });
    await decide(again, tokens.acme!, 'acme', 'after-restore');
    await again.destroy();
    expect(await daemon.stop()).toBe(0);
    daemon = undefined;

    for (const t of manifest.tenants) {
      const file = join(tmp.path, `${t.tenant_id}.jsonl`);
      await runJson(['export', '--tenant', t.tenant_id, '--out', file], restoredEnv);
      const verified = await runSvc(['verify', file, '--public-key', publicKeys[t.tenant_id]!, '--json']);
      expect(verified.code, verified.stdout).toBe(0);
      expect((JSON.parse(verified.stdout) as { result: string }).result).toBe('pass');
      const anchors = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{') && l.includes('"type":"anchor"'))
        .map((l) => JSON.parse(l) as { head: { tree_size: number; root_hash: string }; key_id: string });
      const head = t.head!;
      expect(anchors).toContainEqual(
        expect.objectContaining({
          key_id: head.key_id,
          head: expect.objectContaining({ tree_size: head.tree_size, root_hash: head.root_hash }),
        }),
      );
    }

    // The policy history comes along: every version, with who set it, when, why and its hash.
    for (const tenant of TENANTS) {
      const history = (e: Record<string, string>) =>
        runJson<{ items: { message: string | null }[] }>(['policy', 'history', '--tenant', tenant], e);
      const kept = await history(restoredEnv);
      expect(kept.items.map((v) => v.message)).toEqual(['the first policy']);
      expect(kept).toEqual(await history(env));
    }

    // The shadow policy comes along, its tally and its differences from one moment of the store.
    for (const tenant of TENANTS) {
      const report = (e: Record<string, string>) =>
        runJson<{ candidate_id: string; evaluated: number; differing: number; by_pair: { pair: string }[] }>(
          ['policy', 'shadow', 'report', '--tenant', tenant],
          e,
        );
      const [kept, source] = [await report(restoredEnv), await report(env)];
      expect(kept.candidate_id).toBe(source.candidate_id);
      expect(kept.differing).toBe(kept.evaluated);
      expect(kept.evaluated).toBeLessThanOrEqual(source.evaluated);
      expect(kept.by_pair.map((p) => p.pair)).toEqual(kept.evaluated > 0 ? ['allowed->refused'] : []);
    }

    const verify = await runJson<{ tenants: { tenant_id: string; head: Head | null }[] }>(
      ['store', 'verify'],
      restoredEnv,
    );
    expect(verify.tenants.map((t) => t.tenant_id)).toEqual(TENANTS);
  });

  it('refuses an existing --to without --force, and replaces it with --force', async () => {
    const before = readFileSync(backup);
    const r = await runSvc(['store', 'backup', '--to', backup, '--json'], env);
    expect(r.code).toBe(4);
    expect((JSON.parse(r.stdout) as ErrorBody).error).toMatchObject({ code: 'already_exists', field: 'to' });
    expect(readFileSync(backup).equals(before)).toBe(true);
    const forced = await runJson<{ manifest: Manifest }>(['store', 'backup', '--to', backup, '--force'], env);
    expect(forced.manifest.sha256).toBe(sha256(backup));
    expect(readdirSync(tmp.path).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('refuses a non-empty target data dir and leaves it as it was', async () => {
    const target = join(tmp.path, 'occupied');
    mkdirSync(target);
    writeFileSync(join(target, 'notes.txt'), 'keep me\n');
    const r = await runSvc(['store', 'restore', backup, '--data-dir', target, '--json']);
    expect(r.code).toBe(4);
    expect((JSON.parse(r.stdout) as ErrorBody).error).toMatchObject({
      code: 'already_exists',
      field: 'data-dir',
    });
    expect(readdirSync(target)).toEqual(['notes.txt']);
  });

  it('a tampered backup (one journal byte) fails restore, even with a manifest rewritten to match, and fails verify', async () => {
    const tampered = join(tmp.path, 'tampered.db');
    copyFileSync(backup, tampered);
    copyFileSync(`${backup}.manifest.json`, `${tampered}.manifest.json`);
    tamperOneJournalByte(tampered);

    const target = join(tmp.path, 'from-tampered');
    const r = await runSvc(['store', 'restore', tampered, '--data-dir', target, '--json']);
    expect(r.code).toBe(6);
    expect((JSON.parse(r.stdout) as ErrorBody).error).toMatchObject({
      code: 'backup_mismatch',
      field: 'file',
    });
    expect(existsSync(target)).toBe(false);

    // Someone who rewrites the manifest too: the journal check still refuses the copy.
    const m = JSON.parse(readFileSync(`${backup}.manifest.json`, 'utf8')) as Manifest;
    writeFileSync(
      `${tampered}.manifest.json`,
      JSON.stringify({
        ...m,
        file: 'tampered.db',
        sha256: sha256(tampered),
        size: readFileSync(tampered).length,
      }),
    );
    const rewritten = await runSvc(['store', 'restore', tampered, '--data-dir', target, '--json']);
    expect(rewritten.code).toBe(6);
    const error = (JSON.parse(rewritten.stdout) as ErrorBody).error;
    expect(error.code).toBe('journal_corrupt');
    expect(error.reason).toContain('tenant acme');
    expect(existsSync(target)).toBe(false);

    // The same file as a data dir's database: `svc store verify` fails it.
    const dir = join(tmp.path, 'tampered-dir');
    mkdirSync(dir);
    copyFileSync(tampered, join(dir, 'svc.db'));
    const v = await runSvc(['store', 'verify', '--data-dir', dir, '--json']);
    expect(v.code).toBe(6);
    expect((JSON.parse(v.stdout) as ErrorBody).error).toMatchObject({ code: 'journal_corrupt' });
    // A changed entry field (not the record): the chain and root no longer match the signed head.
    copyFileSync(backup, join(dir, 'svc.db'));
    const db = new Database(join(dir, 'svc.db'));
    db.prepare("UPDATE journal SET actor_id = 'bou' WHERE tenant_id = 'other' AND sequence = 1").run();
    db.close();
    const entry = await runSvc(['store', 'verify', '--data-dir', dir, '--json']);
    expect(entry.code).toBe(6);
    const entryError = (JSON.parse(entry.stdout) as ErrorBody).error;
    expect(entryError).toMatchObject({ code: 'journal_corrupt' });
    expect(entryError.reason).toContain('tenant other: its journal does not match its last signed head');
    // The intact copy passes.
    copyFileSync(backup, join(dir, 'svc.db'));
    expect((await runSvc(['store', 'verify', '--data-dir', dir, '--json'])).code).toBe(0);
  });
});

const server = await pgAvailable();

describe.skipIf('skip' in server)(
  'svc store verify --store postgres:// (built binary, real PostgreSQL)',
  () => {
    const tmp = tmpDir('svc-e2e-backup-pg-');
    const home = join(tmp.path, 'home');
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    beforeAll(async () => {
      db = await freshDatabase();
    });
    afterAll(async () => {
      await db?.drop();
      tmp.cleanup();
    });

    it('passes a database holding signed journals and fails it once a journal row is changed', async () => {
      const env = { SVC_HOME: home, SVC_STORE: db.url };
      const tokens: Record<string, string> = {};
      const { ca } = await provision(env, ['acme'], tokens, {});
      // Six decisions through a daemon on the database.
      const daemon = await startDaemonProcess([], env);
      try {
        const pool = new Pool(daemon.url, { connect: { ca }, connections: 1 });
        for (let i = 0; i < 6; i++) await decide(pool, tokens.acme!, 'acme', `pg-${i}`);
        await pool.destroy();
      } finally {
        expect(await daemon.stop()).toBe(0);
      }
      // The export signs a head over the log as it stands.
      await runJson(['export', '--tenant', 'acme', '--out', join(tmp.path, 'a.jsonl')], env);

      // No data dir needed: a pg_restored database is checked on its own.
      const elsewhere = { SVC_HOME: join(tmp.path, 'nowhere') };
      const ok = await runJson<{ store: string; tenants: { tenant_id: string; head: Head | null }[] }>(
        ['store', 'verify', '--store', db.url],
        elsewhere,
      );
      expect(ok.tenants[0]?.tenant_id).toBe('acme');
      expect(ok.tenants[0]?.head?.tree_size).toBeGreaterThan(0);

      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rowCount } = await client.query(
          "UPDATE journal SET record = replace(record, '\"bot\"', '\"bou\"') WHERE tenant_id = 'acme' AND sequence = 1",
        );
        expect(rowCount).toBe(1);
      } finally {
        await client.end();
      }
      const bad = await runSvc(['store', 'verify', '--store', db.url, '--json'], elsewhere);
      expect(bad.code).toBe(6);
      expect((JSON.parse(bad.stdout) as ErrorBody).error).toMatchObject({ code: 'journal_corrupt' });
    });
  },
);
