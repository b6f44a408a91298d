import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { provisionNotesAgent } from '../helpers/decision-world.js';
import { SvcError } from '../../src/core/errors.js';
import { PgDb } from '../../src/store/postgres/database.js';
import {
  beginSmartStop,
  restartServer,
  serverBinDir,
  startServer,
  stopServer,
} from '../helpers/postgres-server.js';
import { tmpDir } from '../helpers/tmp.js';

/** A server of its own: this suite stops it, which the run's shared server must never be. */
const noServer = (() => {
  try {
    serverBinDir();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
})();
if (noServer !== undefined) console.warn(`PostgreSQL outage e2e skipped: ${noServer}`);

interface Answer {
  status: number;
  body: { decision?: string; code?: string; reason?: string; remedy?: string };
}

/** Outage requests: enough to flood a log written per request, few enough for a shared machine. */
const DURING = 24;

/**
 * The built daemon on a PostgreSQL database that goes away: stopped under concurrent load,
 * then started again. Every request meanwhile is a 503 `unavailable` (never a 500), the
 * decisions saying nothing was committed or executed; the log holds a line per outage, not
 * a stack per request; /readyz is not ready; and after the restart nothing of the failed
 * requests is left half-written: the same effect keys are then allowed once.
 */
describe.skipIf(noServer !== undefined)('a daemon whose PostgreSQL server stops and starts again', () => {
  const tmp = tmpDir('svc-e2e-pg-outage-');
  // its own directory: the server runs as another OS user when the tests run as root
  const pgRoot = tmpDir('svc-e2e-pg-server-');
  const t = ['--tenant', 'acme'];
  let env: Record<string, string>;
  let url: string;
  let daemon: DaemonProcess | undefined;
  let ca: Buffer;
  let bot: string;
  let pool: Pool;

  beforeAll(async () => {
    ({ url } = await startServer(pgRoot.path, { ownerPid: process.pid }));
    env = { SVC_HOME: join(tmp.path, 'home'), SVC_STORE: url };
    const init = await runJson<{ ca_cert: string }>(['init', ...t, '--admin', 'alice'], env);
    ca = readFileSync(init.ca_cert);
    await provisionNotesAgent(env, tmp.path, { tenant: 'acme', task: 'keys', budgetUsd: '10', tier: '1' });
    bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
    daemon = await startDaemonProcess([], env);
    pool = new Pool(daemon.url, { connect: { ca }, connections: 8, pipelining: 1 });
  }, 180_000);

  afterAll(async () => {
    await pool?.destroy();
    if (daemon) await daemon.stop();
    stopServer(pgRoot.path);
    pgRoot.cleanup();
    tmp.cleanup();
  });

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    const res = await pool.request({
      method,
      path,
      headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.statusCode, body: (await res.body.json()) as Answer['body'] };
  }

  const act = (step: string) =>
    call('POST', '/v1/action', {
      tenant_id: 'acme',
      actor_id: 'bot',
      capability: 'crm.notes',
      action: 'write',
      task_id: 'keys',
      effect_key_step: step,
    });

  /** Until /readyz answers 200: the server takes a moment to accept connections again. */
  async function ready(): Promise<void> {
    for (let attempt = 0; attempt < 300; attempt++) {
      const res = await pool.request({ method: 'GET', path: '/readyz' });
      await res.body.dump();
      if (res.statusCode === 200) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the daemon did not become ready again after the server restarted');
  }

  it('answers 503 unavailable while the server is down, leaves nothing half-written, and recovers', async () => {
    expect(await act('before')).toMatchObject({ status: 200, body: { decision: 'allowed' } });
    const logBefore = `${daemon!.stdout()}${daemon!.stderr()}`.length;

    stopServer(pgRoot.path);
    let outage: [Answer[], Answer[], Answer];
    try {
      outage = await Promise.all([
        Promise.all(Array.from({ length: DURING }, (_, i) => act(`outage-${i}`))),
        Promise.all([0, 1, 2, 3].map(() => call('GET', '/v1/capabilities'))),
        pool.request({ method: 'GET', path: '/readyz' }).then(async (r) => ({
          status: r.statusCode,
          body: (await r.body.json()) as Answer['body'],
        })),
      ]);
    } finally {
      // started again whatever the answers were, so a failure here leaves the next case a server
      restartServer(pgRoot.path);
    }
    const [decisions, reads, readyz] = outage;
    for (const a of decisions) {
      expect(a.status).toBe(503);
      expect(a.body.code).toBe('unavailable');
      expect(a.body.reason).toMatch(/nothing was committed or executed/);
      expect(a.body.remedy).toMatch(/same body/);
    }
    for (const a of reads) expect(a).toMatchObject({ status: 503, body: { code: 'unavailable' } });
    expect(readyz).toMatchObject({ status: 503, body: { code: 'unavailable' } });

    // The log: the outage in a few lines, not a stack trace per request.
    const log = `${daemon!.stdout()}${daemon!.stderr()}`.slice(logBefore);
    const errors = log.split('\n').filter((l) => /"level":50/.test(l));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.length).toBeLessThan(DURING / 2);
    expect(log).not.toMatch(/"code":"internal"|"statusCode":500/);

    await ready();
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    try {
      const left = await sql.query<{ intents: number; keys: number }>(
        `SELECT (SELECT count(*)::int FROM intents WHERE step LIKE 'outage-%') AS intents,
           (SELECT count(*)::int FROM effect_keys WHERE step LIKE 'outage-%') AS keys`,
      );
      expect(left.rows[0]).toEqual({ intents: 0, keys: 0 });
      const journal = await sql.query<{ sequence: string }>(
        "SELECT sequence FROM journal WHERE tenant_id = 'acme' ORDER BY sequence",
      );
      expect(journal.rows.map((r) => Number(r.sequence))).toEqual(journal.rows.map((_, i) => i + 1));
    } finally {
      await sql.end();
    }
    // Nothing was claimed: every step the outage refused is allowed now, once.
    const after = await Promise.all(Array.from({ length: DURING }, (_, i) => act(`outage-${i}`)));
    expect(after.map((a) => a.body.decision)).toEqual(after.map(() => 'allowed'));
  }, 180_000);

  it('a connection the server ends under load (57P01) is a 503, never a 500', async () => {
    await ready();
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    try {
      const load = Promise.all(Array.from({ length: DURING }, (_, i) => act(`terminated-${i}`)));
      await sql.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'svc daemon'",
      );
      const answers = await load;
      for (const a of answers) {
        expect([200, 503]).toContain(a.status);
        if (a.status === 503) expect(a.body.code).toBe('unavailable');
      }
    } finally {
      await sql.end();
    }
  }, 120_000);

  it('a server shutting down refuses new connections (57P03): unavailable, and decisions are never a 500', async () => {
    await ready();
    const db = new PgDb(url, { poolSize: 1 });
    // a session of its own keeps the server in its shutdown until the restart below
    const session = new pg.Client({ connectionString: url });
    await session.connect();
    session.on('error', () => undefined);
    beginSmartStop(pgRoot.path);
    try {
      // the postmaster takes the signal asynchronously: wait until a new connection is refused
      let refused: unknown;
      for (let attempt = 0; attempt < 200 && refused === undefined; attempt++) {
        const probe = new pg.Client({ connectionString: url });
        refused = await probe.connect().then(
          () => probe.end().then(() => undefined),
          (e: unknown) => e,
        );
        if (refused === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      expect((refused as { code?: string }).code).toBe('57P03');
      const err = await db.query('SELECT 1').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SvcError);
      expect(err).toMatchObject({
        code: 'unavailable',
        reason: 'the store is unreachable; nothing was committed or executed',
      });
      expect(((err as SvcError).cause as { code?: string }).code).toBe('57P03');
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => act(`smart-${i}`)));
      for (const a of answers) expect([200, 503]).toContain(a.status);
    } finally {
      await db.close();
      restartServer(pgRoot.path);
      await session.end().catch(() => undefined);
    }
  }, 120_000);
});
