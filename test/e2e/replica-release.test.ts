import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { downstream, type Downstream } from '../helpers/downstream.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';

const server = await pgAvailable();
if ('skip' in server) console.warn(`replica release e2e skipped: ${server.skip}`);

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

interface ReplicaItem {
  replica_id: string;
  host: string | null;
  pid: number | null;
  version: string | null;
  last_heartbeat: string | null;
  heartbeat_age_ms: number | null;
  holds_claim: boolean;
  pending_executions: number;
}

interface Release {
  replica_id: string;
  released: {
    tenant_id: string;
    execution_id: string;
    intent_id: string;
    receipt_id: string;
    sequence: number;
  }[];
  forgotten: boolean;
}

/**
 * Replica housekeeping with the built binary on a real PostgreSQL server: `--replica-id`,
 * `svc store replicas` and `svc store replicas release` for a replica SIGKILLed in the middle
 * of a brokered call.
 */
describe.skipIf('skip' in server)(
  'svc store replicas: heartbeats, claims and releasing a dead replica',
  () => {
    const tmp = tmpDir('svc-e2e-replica-release-');
    const t = ['--tenant', 'acme'];
    const daemons: (DaemonProcess | undefined)[] = [];
    let env: Record<string, string>;
    let database: { url: string; drop(): Promise<void> };
    let sql: pg.Client;
    let ca: Buffer;
    let bot: string;
    let publicKey: string;
    let ds: Downstream;
    const ops = join(tmp.path, 'ops.yaml');

    const replicas = async () => (await runJson<{ items: ReplicaItem[] }>(['store', 'replicas'], env)).items;

    beforeAll(async () => {
      database = await freshDatabase();
      env = {
        SVC_HOME: join(tmp.path, 'home'),
        SVC_STORE: database.url,
        RELEASE_CRM_TOKEN: 'release-crm-token',
      };
      ds = await downstream();
      writeFileSync(
        ops,
        `surfaces:
  - id: crm
    adapter: http
    base_url: ${ds.url}
    credential_ref: env:RELEASE_CRM_TOKEN
    auth: { type: bearer }
    timeout_ms: 60000
    check: { method: GET, path: /health }
    operations:
      contacts.create:
        method: POST
        path: /contacts
        effect_id: /id
`,
      );
      const init = await runJson<{ ca_cert: string }>(['init', ...t, '--admin', 'alice'], env);
      ca = readFileSync(init.ca_cert);
      publicKey = (await runJson<{ public_key: string }>(['key', 'show', ...t], env)).public_key;
      await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
      await runJson(
        [
          ...[
            'capability',
            'register',
            ...t,
            '--name',
            'crm.contacts.create',
            '--actions',
            'write',
            '--tier',
            '1',
          ],
          ...['--custody', 'brokered', '--surface', 'crm', '--operation', 'contacts.create'],
        ],
        env,
      );
      await runJson(
        ['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'crm.contacts.create'],
        env,
      );
      const policy = join(tmp.path, 'policy.cedar');
      writeFileSync(policy, 'permit (principal, action, resource);\n');
      await runJson(['policy', 'set', ...t, '--file', policy], env);
      await runJson(
        [
          'task',
          'create',
          ...t,
          '--id',
          'work',
          '--sponsor',
          'alice',
          '--budget-usd',
          '100',
          '--actor',
          'bot',
        ],
        env,
      );
      bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
      sql = new pg.Client({ connectionString: database.url });
      await sql.connect();
    }, 120_000);

    afterAll(async () => {
      for (const d of daemons) d?.child.kill('SIGKILL');
      await sql?.end();
      await ds?.close();
      await database?.drop();
      tmp.cleanup();
    });

    it('--replica-id names the replica (the flag beats SVC_REPLICA_ID); each is listed live, with its heartbeat', async () => {
      daemons[0] = await startDaemonProcess(['--integration-ops', ops, '--replica-id', 'web-0'], {
        ...env,
        SVC_REPLICA_ID: 'not-this-one',
      });
      daemons[1] = await startDaemonProcess(['--integration-ops', ops], { ...env, SVC_REPLICA_ID: 'web-1' });
      const listed = await replicas();
      expect(listed.map((r) => [r.replica_id, r.holds_claim, r.pending_executions])).toEqual([
        ['web-0', true, 0],
        ['web-1', true, 0],
      ]);
      expect(listed[0]).toMatchObject({ pid: daemons[0].child.pid, version: VERSION });
      expect(listed[0]!.last_heartbeat).toMatch(/Z$/);
      expect(listed[0]!.heartbeat_age_ms).toBeGreaterThanOrEqual(0);
      // Only the database is needed: a host with no data dir lists them too.
      const elsewhere = await runJson<{ items: ReplicaItem[] }>(['store', 'replicas'], {
        ...env,
        SVC_HOME: join(tmp.path, 'no-data-dir-here'),
      });
      expect(elsewhere.items.map((r) => r.replica_id)).toEqual(['web-0', 'web-1']);
      const table = await runSvc(['store', 'replicas'], env);
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/web-0\s.*held \(live\)/);
    }, 60_000);

    it('a replica SIGKILLed mid brokered call: release refused while alive, then its call sealed unknown and journaled; the export verifies', async () => {
      const held: (() => void)[] = [];
      ds.handle((_c, res) => {
        held.push(() => res.writeHead(201).end(JSON.stringify({ id: 'late' })));
      });
      const pool = new Pool(daemons[0]!.url, { connect: { ca }, connections: 1 });
      const call = pool
        .request({
          method: 'POST',
          path: '/v1/brokered',
          headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            tenant_id: 'acme',
            actor_id: 'bot',
            capability: 'crm.contacts.create',
            action: 'write',
            task_id: 'work',
            effect_key_step: 'create-1',
            params: { name: 'Ada' },
          }),
        })
        .catch((err: Error) => err);
      while (held.length < 1) await new Promise((r) => setTimeout(r, 20));
      expect((await replicas()).find((r) => r.replica_id === 'web-0')).toMatchObject({
        holds_claim: true,
        pending_executions: 1,
      });

      // Alive: refused, nothing changed.
      const refused = await runSvc(['store', 'replicas', 'release', 'web-0'], env);
      expect(refused.code, refused.stderr).toBe(4);
      expect(refused.stderr).toMatch(/replica web-0 is alive/);
      const pending = async () =>
        (
          await sql.query(
            `SELECT id, intent_id, state, owner_instance FROM executions WHERE tenant_id = 'acme'`,
          )
        ).rows as { id: string; intent_id: string; state: string; owner_instance: string }[];
      expect((await pending()).map((r) => [r.owner_instance, r.state])).toEqual([['web-0', 'pending']]);

      daemons[0]!.child.kill('SIGKILL');
      daemons[0] = undefined;
      expect(await call).toBeInstanceOf(Error);
      await pool.destroy();
      expect((await replicas()).find((r) => r.replica_id === 'web-0')).toMatchObject({
        holds_claim: false,
        pending_executions: 1,
      });

      const released = await runJson<Release>(['store', 'replicas', 'release', 'web-0'], env);
      const [execution] = await pending();
      expect(execution!.state).toBe('unknown');
      expect(released).toMatchObject({ replica_id: 'web-0', forgotten: true });
      expect(released.released).toEqual([
        {
          tenant_id: 'acme',
          execution_id: execution!.id,
          intent_id: execution!.intent_id,
          receipt_id: expect.stringMatching(/^rcp_/),
          sequence: expect.any(Number),
        },
      ]);
      const { rows } = await sql.query(
        `SELECT kind, intent_id, record FROM journal WHERE tenant_id = 'acme' AND sequence = $1`,
        [released.released[0]!.sequence],
      );
      expect(rows[0]).toMatchObject({ kind: 'execution', intent_id: execution!.intent_id });
      expect(JSON.parse((rows[0] as { record: string }).record)).toMatchObject({
        outcome: 'unknown',
        recovered: true,
        release: { replica_id: 'web-0' },
      });
      expect((await replicas()).map((r) => r.replica_id)).toEqual(['web-1']);

      // The agent reconciles through a live replica: the intent's execution receipt says unknown.
      const live = new Pool(daemons[1]!.url, { connect: { ca }, connections: 1 });
      const res = await live.request({
        method: 'GET',
        path: '/v1/receipts?task_id=work',
        headers: { authorization: `Bearer ${bot}` },
      });
      const page = (await res.body.json()) as {
        items: { kind: string; intent_id: string; outcome?: string }[];
      };
      await live.destroy();
      expect(
        page.items.filter((r) => r.kind === 'execution' && r.intent_id === execution!.intent_id),
      ).toHaveLength(1);

      // Twice: nothing more released, nothing more journaled.
      const again = await runJson<Release>(['store', 'replicas', 'release', 'web-0'], env);
      expect(again).toEqual({ replica_id: 'web-0', released: [], forgotten: false });
      const executions = await sql.query(
        `SELECT 1 FROM journal WHERE tenant_id = 'acme' AND kind = 'execution'`,
      );
      expect(executions.rows).toHaveLength(1);
      // A live replica is still refused.
      expect((await runSvc(['store', 'replicas', 'release', 'web-1'], env)).code).toBe(4);

      for (const answer of held) answer();
      expect(await daemons[1]!.stop()).toBe(0);
      daemons[1] = undefined;
      const file = join(tmp.path, 'acme.jsonl');
      await runJson(['export', ...t, '--out', file], env);
      const verdict = await runSvc(['verify', file, '--public-key', publicKey, '--json'], env);
      expect(verdict.code, verdict.stdout).toBe(0);
      expect(JSON.parse(verdict.stdout).result).toMatch(/^pass/);
    }, 120_000);

    it('a bad replica id is refused before anything starts, naming where it came from', async () => {
      const flag = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0', '--replica-id', 'dmn_x'], env);
      expect(flag.code).toBe(2);
      expect(flag.stderr).toMatch(/replica-id: expected 1 to 128 letters/);
      const variable = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0'], {
        ...env,
        SVC_REPLICA_ID: 'has space',
      });
      expect(variable.code).toBe(2);
      expect(variable.stderr).toMatch(/env SVC_REPLICA_ID: .*1 to 128 letters/);
    }, 60_000);
  },
);

describe('svc store replicas on SQLite', () => {
  const tmp = tmpDir('svc-e2e-replicas-sqlite-');
  const env = { SVC_HOME: join(tmp.path, 'home'), SVC_STORE: '' };
  afterAll(() => tmp.cleanup());

  it('says replicas need PostgreSQL', async () => {
    await runJson(['init', '--tenant', 'acme', '--admin', 'alice'], env);
    for (const args of [
      ['store', 'replicas'],
      ['store', 'replicas', 'release', 'web-0'],
    ]) {
      const r = await runSvc(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/replicas need PostgreSQL/);
    }
  }, 60_000);
});
