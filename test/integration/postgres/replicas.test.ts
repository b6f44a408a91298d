import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplicaHeartbeat } from '../../../src/daemon/replica-heartbeat.js';
import { PgStore } from '../../../src/store/postgres/store.js';
import { until } from '../../helpers/until.js';
import { AT, seed } from '../../helpers/pg-seed.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';

const server = await pgAvailable();

const self = { host: hostname(), version: '9.9.9-test', startedAt: AT };
const operator = { host: 'ops-host', pid: 4242 };

/**
 * `svc store replicas` and its release, against stores on a real server: each PgStore
 * stands for one process (a replica's daemon, or the operator's CLI), sharing only the
 * database. A replica is "started" as its daemon starts: recovery takes its claim, then it beats.
 */
describe.skipIf('skip' in server)('replicas on one PostgreSQL database: heartbeats, claims, release', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let other: Awaited<ReturnType<typeof freshDatabase>>;
  let cli: PgStore;
  const open: PgStore[] = [];

  const startReplica = async (url: string, replicaId: string): Promise<PgStore> => {
    const store = await PgStore.open(url, { replicaId });
    open.push(store);
    await store.executions.markInterrupted();
    await store.replicas.beat(self);
    return store;
  };
  const pendingCall = (id: string, owner: string) =>
    cli.db.query(
      `INSERT INTO executions (tenant_id, id, intent_id, task_id, step, actor_id, capability, action, tier, surface_id,
         operation, credential_ref, state, created_at, owner_pid, owner_instance)
       VALUES ('acme', $1, $2, 'keys', $1, 'bot', 'crm.notes', 'write', 1, 'crm', 'contacts.create', 'env:X', 'pending', $3, 1, $4)`,
      [id, `int_${id}`, AT, owner],
    );
  const states = async () =>
    Object.fromEntries(
      (await cli.db.query<{ id: string; state: string }>('SELECT id, state FROM executions ORDER BY id')).map(
        (r) => [r.id, r.state],
      ),
    );

  beforeAll(async () => {
    fresh = await freshDatabase();
    other = await freshDatabase();
    cli = await PgStore.open(fresh.url, { replicaId: 'operator-cli' });
    open.push(cli);
    await seed(cli.db);
  });

  afterAll(async () => {
    for (const s of open) await s.close();
    await fresh?.drop();
    await other?.drop();
  });

  it('lists each replica with its heartbeat, whether it holds its claim, and its calls in flight', async () => {
    const web1 = await startReplica(fresh.url, 'web-1');
    await startReplica(fresh.url, 'web-2');
    await pendingCall('exe_1a', 'web-1');
    await pendingCall('exe_1b', 'web-1');
    await pendingCall('exe_old', 'web-old'); // an older svc's replica: it never beat
    await pendingCall('exe_sqlite', 'dmn_copied'); // a SQLite daemon's, copied by svc store migrate: no replica

    const listed = await cli.replicas.list();
    expect(listed.map((r) => [r.replicaId, r.live, r.pending])).toEqual([
      ['web-1', true, 2],
      ['web-2', true, 0],
      ['web-old', false, 1],
    ]);
    expect(listed[0]).toMatchObject({
      host: self.host,
      pid: process.pid,
      version: '9.9.9-test',
      startedAt: AT,
    });
    expect(listed[0]!.lastHeartbeat).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(listed[0]!.heartbeatAgeMs).toBeGreaterThanOrEqual(0);
    expect(listed[2]).toMatchObject({ host: null, pid: null, lastHeartbeat: null, heartbeatAgeMs: null });

    // A beat moves the heartbeat forward, by the database's clock.
    const before = listed[0]!.lastHeartbeat!;
    await cli.db.query('SELECT pg_sleep(0.01)');
    await web1.replicas.beat(self);
    const after = (await cli.replicas.list())[0]!.lastHeartbeat!;
    expect(after > before).toBe(true);
  });

  it('refuses to release a replica that holds its claim, and changes nothing', async () => {
    await expect(cli.replicas.release('web-1', operator)).rejects.toMatchObject({
      kind: 'conflict',
      reason: expect.stringMatching(/replica web-1 is alive/),
    });
    expect(await states()).toMatchObject({ exe_1a: 'pending', exe_1b: 'pending' });
    expect((await cli.replicas.list()).find((r) => r.replicaId === 'web-1')?.live).toBe(true);
  });

  it('a replica that stopped no longer holds its claim; a claim on the same id in another database does not count', async () => {
    const web1 = open.find((s) => s !== cli)!;
    await web1.close();
    open.splice(open.indexOf(web1), 1);
    // Same server, another database, same replica id: another deployment's replica, not this one.
    await startReplica(other.url, 'web-1');
    const listed = await cli.replicas.list();
    expect(listed.find((r) => r.replicaId === 'web-1')).toMatchObject({ live: false, pending: 2 });
  });

  it('releases a dead replica: its calls sealed as its own start-up would, each journaled with the release; twice releases nothing', async () => {
    const released = await cli.replicas.release('web-1', operator);
    expect(released.replicaId).toBe('web-1');
    expect(released.forgotten).toBe(true);
    expect(released.released.map((c) => c.executionId).sort()).toEqual(['exe_1a', 'exe_1b']);
    // Only web-1's calls: another replica's, an old one's and a SQLite daemon's stay pending.
    expect(await states()).toEqual({
      exe_1a: 'unknown',
      exe_1b: 'unknown',
      exe_old: 'pending',
      exe_sqlite: 'pending',
    });
    const journal = await cli.db.query<{ sequence: string; kind: string; intent_id: string; record: string }>(
      "SELECT sequence, kind, intent_id, record FROM journal WHERE tenant_id = 'acme' AND kind = 'execution' ORDER BY sequence",
    );
    expect(journal.map((j) => j.intent_id).sort()).toEqual(['int_exe_1a', 'int_exe_1b']);
    expect(released.released.map((c) => c.sequence).sort((a, b) => a - b)).toEqual(
      journal.map((j) => Number(j.sequence)),
    );
    for (const j of journal) {
      expect(JSON.parse(j.record)).toMatchObject({
        kind: 'execution',
        outcome: 'unknown',
        recovered: true,
        effect: { sent: true, error: 'interrupted' },
        release: { replica_id: 'web-1', host: 'ops-host', pid: 4242 },
      });
    }
    expect((await cli.replicas.list()).map((r) => r.replicaId)).toEqual(['web-2', 'web-old']);

    const again = await cli.replicas.release('web-1', operator);
    expect(again).toEqual({ replicaId: 'web-1', released: [], forgotten: false });
    expect(
      await cli.db.query("SELECT 1 FROM journal WHERE tenant_id = 'acme' AND kind = 'execution'"),
    ).toHaveLength(2);
    // Released, the id is free: a daemon may start under it again.
    await startReplica(fresh.url, 'web-1');
    expect((await cli.replicas.list()).find((r) => r.replicaId === 'web-1')).toMatchObject({
      live: true,
      pending: 0,
    });
  });

  it('a heartbeat that fails is logged once, not at every beat, and is never fatal', async () => {
    const web3 = await startReplica(fresh.url, 'web-3');
    const logged: string[] = [];
    const log = {
      warn: (_o: object, msg: string) => logged.push(`warn ${msg}`),
      info: (_o: object, msg: string) => logged.push(`info ${msg}`),
    };
    let beats = 0;
    const counting = {
      beat: (me: typeof self) => {
        beats++;
        return web3.replicas.beat(me);
      },
      list: () => web3.replicas.list(),
      release: (id: string, by: typeof operator) => web3.replicas.release(id, by),
    };
    const heartbeat = new ReplicaHeartbeat(counting, self, log, 20);
    await heartbeat.start();
    expect(logged).toEqual([]);
    // The server ends the session that holds web-3's claim: its beats now fail, as they should.
    await cli.db.query(
      `SELECT pg_terminate_backend(l.pid) FROM pg_locks l
       WHERE l.locktype = 'advisory' AND l.objsubid = 1
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended('svc:replica:' || 'web-3', 0)`,
    );
    await until('a failed beat in the log', () => (logged.length > 0 ? true : undefined));
    const failedFrom = beats;
    await until('several failed beats', () => (beats >= failedFrom + 5 ? true : undefined));
    expect(logged).toEqual([
      'warn replica heartbeat failed; the daemon keeps serving and logs again when a beat succeeds',
    ]);
    // What the list shows is the truth: web-3's claim is gone with its session.
    expect((await cli.replicas.list()).find((r) => r.replicaId === 'web-3')?.live).toBe(false);
    await heartbeat.stop();
  });

  it('refuses a malformed replica id, naming it', async () => {
    await expect(cli.replicas.release('dmn_copied', operator)).rejects.toMatchObject({
      kind: 'usage',
      reason: expect.stringMatching(/^replica id: expected /),
    });
  });
});
