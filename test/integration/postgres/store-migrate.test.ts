import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayPolicy } from '../../../src/provisioning/policy-replay.js';
import { openRecordedDecisions } from '../../../src/store/open.js';
import { migrateToPostgres } from '../../../src/store/migrate-copy.js';
import { proveExports } from '../../../src/store/migrate-export-proof.js';
import { PgJournalExports } from '../../../src/store/postgres/journal-export.js';
import { SqliteJournalExports } from '../../../src/store/sqlite/journal-export.js';
import { tablePlan } from '../../../src/store/migrate-plan.js';
import { proveCopy } from '../../../src/store/migrate-proof.js';
import { PgDb } from '../../../src/store/postgres/database.js';
import { migrate } from '../../../src/store/postgres/migrate.js';
import { pgDecisionEvents } from '../../../src/store/postgres/outbox.js';
import { sqliteDecisionEvents } from '../../../src/store/sqlite/outbox.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';
import { realExport, type RealExport } from '../../helpers/real-export.js';

const server = await pgAvailable();

describe.skipIf('skip' in server)('copying a SQLite store into PostgreSQL', () => {
  const count = (table: string) =>
    Number(real.f.store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
  let real: RealExport;
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let pg: PgDb;
  beforeAll(async () => {
    // A real log: decisions through the daemon, anchors, a key rotation, a redaction, two tenants.
    real = await realExport();
    // The outbox too: a destination and the event a surface revocation wrote for it.
    await real.f.store.notify.addDestination({
      tenantId: 'acme',
      id: 'hook',
      kind: 'webhook',
      url: 'https://hooks.example.org/svc',
      events: ['integration.*'],
      secretName: 'notify.hook',
      enabled: true,
      disabledReason: null,
      settings: {},
      remindAfterSeconds: null,
      escalateTo: null,
      createdAt: '2026-03-01T10:00:00.000Z',
    });
    // and a refusal staged for it (the loop has not fanned it out): a row PostgreSQL numbers itself
    const intent = real.f.store.db
      .prepare("SELECT id FROM intents WHERE tenant_id = 'acme' LIMIT 1")
      .pluck()
      .get();
    real.f.store.db.transaction(() =>
      sqliteDecisionEvents(real.f.store.db).stageRefusal(
        {
          tenantId: 'acme',
          eventId: 'evt_staged',
          timestamp: '2026-03-01T10:00:00.000Z',
          intentId: String(intent),
        },
        ['hook'],
      ),
    )();
    const admin = (await real.f.store.actors.get('acme', 'alice'))!;
    await real.f.store.surfaces.revoke('acme', 'crm', { documentRef: 'env:CRM_TOKEN', actor: admin });
    // A shadow policy with one recorded difference (issue 27).
    await real.f.store.shadows.set({
      tenantId: 'acme',
      candidateId: 'shd_1',
      text: 'forbid (principal, action, resource);',
      source: 'candidate.cedar',
      // after every decision the fixture made: the daemon's shadow queue, still holding the
      // last of them for a batch window, compares none of them with this candidate
      setAt: new Date(real.f.now.value.getTime() + 3_600_000).toISOString(),
    });
    await real.f.store.shadows.record({
      tenantId: 'acme',
      candidateId: 'shd_1',
      compared: 3,
      dropped: 0,
      uncompiled: 0,
      differences: [
        {
          seq: 1,
          intentId: 'int_1',
          at: '2026-03-01T10:00:00.000Z',
          inputs: { amountMicros: '1' },
          current: { outcome: 'allowed', determining: [] },
          candidate: { outcome: 'refused', code: 'policy_denied', determining: [] },
        },
      ],
    });
    fresh = await freshDatabase();
    pg = await PgDb.connect(fresh.url, { poolSize: 2 });
    // A replica started on the empty target before the copy: its heartbeat is not content.
    await migrate(pg);
    await pg.query(
      `INSERT INTO replicas (id, host, pid, version, started_at, last_heartbeat)
       VALUES ('web-1', 'web-1', 1, '0.1.0', now(), now())`,
    );
  });
  afterAll(async () => {
    await pg?.close();
    await fresh?.drop();
    await real?.f.close();
  });

  it('copies every table, every row, and proves each tenant', async () => {
    const copied: string[] = [];
    const report = await migrateToPostgres(real.f.store.db, pg, { onTable: (t) => copied.push(t) });
    // Parents before children: the foreign keys never wait for a row.
    expect(copied.indexOf('tenants')).toBeLessThan(copied.indexOf('actors'));
    expect(copied.indexOf('anchors')).toBeLessThan(copied.indexOf('anchor_timestamps'));
    for (const { table, rows } of report.tables) expect(rows, table).toBe(count(table));
    expect(report.tables.find((t) => t.table === 'journal')?.rows).toBeGreaterThan(14);
    for (const table of [
      'notify_destinations',
      'notify_events',
      'notify_deliveries',
      'notify_staged',
      'policy_shadows',
      'policy_shadow_differences',
    ]) {
      expect(report.tables.find((t) => t.table === table)?.rows, table).toBe(1);
    }
    // the copy numbered past SQLite's: the next refusal staged on PostgreSQL takes a new number
    await pg.tx((tx) =>
      pgDecisionEvents(tx).stageRefusal(
        { tenantId: 'acme', eventId: 'evt_next', timestamp: '2026-03-01T11:00:00.000Z', intentId: 'int_x' },
        ['hook'],
      ),
    );
    const seqs = await pg.query<{ seq: string }>('SELECT seq FROM notify_staged ORDER BY seq');
    expect(seqs.map((r) => Number(r.seq))).toEqual([1, 2]);
    await pg.query("DELETE FROM notify_staged WHERE event_id = 'evt_next'");
    // What decisions were evaluated with (issue 27) travels too: a replay of the copy on
    // PostgreSQL reports what a replay of the SQLite source reports.
    expect(report.tables.find((t) => t.table === 'decision_inputs')?.rows).toBeGreaterThan(0);
    expect(report.tables.find((t) => t.table === 'policy_input_snapshots')?.rows).toBeGreaterThan(0);
    const replayOf = async (spec: string) => {
      const recorded = await openRecordedDecisions(spec);
      try {
        return await replayPolicy(recorded, {
          tenantId: 'acme',
          text: '@id("stop") forbid (principal, action, resource);',
          source: 'candidate.cedar',
          range: {},
        });
      } finally {
        await recorded.close();
      }
    };
    const onSqlite = await replayOf(real.f.dir.database);
    expect(onSqlite.counts.replayed).toBeGreaterThan(0);
    expect(await replayOf(fresh.url)).toEqual(onSqlite);
    // Each tenant's export from the copy is the source's, line for line: every entry and anchor.
    const lines = (tenant: string) =>
      count(`journal WHERE tenant_id = '${tenant}'`) + count(`anchors WHERE tenant_id = '${tenant}'`);
    expect(report.tenants).toEqual([
      { tenantId: 'acme', entries: count("journal WHERE tenant_id = 'acme'"), exportLines: lines('acme') },
      { tenantId: 'other', entries: count("journal WHERE tenant_id = 'other'"), exportLines: lines('other') },
    ]);
    // Byte for byte: the leaves, the frontier and the Merkle nodes (BYTEA) as SQLite has them.
    const [state] = await pg.query<{ frontier: string; size: string }>(
      "SELECT frontier, size FROM journal_state WHERE tenant_id = 'acme'",
    );
    const sqliteState = real.f.store.db
      .prepare("SELECT frontier, size FROM journal_state WHERE tenant_id = 'acme'")
      .get() as { frontier: string; size: number };
    expect(state).toEqual({ frontier: sqliteState.frontier, size: String(sqliteState.size) });
    const [node] = await pg.query<{ hash: Buffer }>(
      "SELECT hash FROM merkle_nodes WHERE tenant_id = 'acme' ORDER BY at_size, level LIMIT 1",
    );
    const sqliteNode = real.f.store.db
      .prepare("SELECT hash FROM merkle_nodes WHERE tenant_id = 'acme' ORDER BY at_size, level LIMIT 1")
      .get() as { hash: Buffer };
    expect(node?.hash.equals(sqliteNode.hash)).toBe(true);
    // The overview's activity counts are the source's, counted once: redacted entries too
    // (their records were blanked after they were counted); the trigger counts again after.
    const activity =
      'SELECT tenant_id, hour, kind, outcome, code, n FROM journal_activity ORDER BY 1, 2, 3, 4, 5';
    const onPg = await pg.query<Record<string, string>>(activity);
    const onSqliteRows = real.f.store.db.prepare(activity).all() as Record<string, string | number>[];
    expect(onSqliteRows.length).toBeGreaterThan(0);
    expect(onPg.map((r) => ({ ...r, n: Number(r.n) }))).toEqual(onSqliteRows);
    const [trigger] = await pg.query<{ tgenabled: string }>(
      "SELECT tgenabled FROM pg_trigger WHERE tgname = 'journal_activity_count'",
    );
    expect(trigger?.tgenabled).toBe('O');
  });

  it('refuses a second run into the now non-empty database, naming what it found', async () => {
    const err = await migrateToPostgres(real.f.store.db, pg).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'conflict', field: 'to' });
    expect((err as Error).message).toMatch(
      /not empty: it holds tenants acme, other; rows in \d+ tables: actors \(3 rows\)/,
    );
  });

  it('finds a row that differs, naming the table, the key and the column but no value', async () => {
    await pg.query("UPDATE journal SET leaf = repeat('0', 64) WHERE tenant_id = 'acme' AND sequence = 7");
    const err = await pg
      .tx(async (tx) => proveCopy(real.f.store.db, tx, await tablePlan(real.f.store.db, tx)))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'internal' });
    expect((err as Error).message).toContain(
      'table journal at row 7 in key order (tenant_id=acme, sequence=7)',
    );
    expect((err as Error).message).toContain('column leaf differs');
    expect((err as Error).message).not.toContain('0'.repeat(64));
    // The export comparison sees it too, at the entry's line.
    const exported = await proveExports(
      new SqliteJournalExports(real.f.store.db.name),
      new PgJournalExports(pg),
      ['other', 'acme'],
    ).catch((e: unknown) => e);
    expect(exported).toMatchObject({ code: 'internal' });
    expect((exported as Error).message).toMatch(
      /^the export of tenant acme from the copy is not the source's: line \d+ of the export \(after the header\): it differs$/,
    );
    const leaf = real.f.store.db
      .prepare("SELECT leaf FROM journal WHERE tenant_id = 'acme' AND sequence = 7")
      .pluck()
      .get() as string;
    await pg.query("UPDATE journal SET leaf = $1 WHERE tenant_id = 'acme' AND sequence = 7", [leaf]);
    const [last] = await pg.query<{ sequence: string }>(
      `DELETE FROM journal WHERE tenant_id = 'other'
         AND sequence = (SELECT max(sequence) FROM journal WHERE tenant_id = 'other') RETURNING sequence`,
    );
    const missing = await pg
      .tx(async (tx) => proveCopy(real.f.store.db, tx, await tablePlan(real.f.store.db, tx)))
      .catch((e: unknown) => e);
    expect((missing as Error).message).toContain(
      `table journal at row ${count('journal')} in key order (tenant_id=other, sequence=${last?.sequence}): the source has a row the copy does not`,
    );
  });

  it('creates nothing in a database that belongs to something else', async () => {
    const other = await freshDatabase();
    const db = await PgDb.connect(other.url, { poolSize: 1 });
    try {
      await db.query('CREATE TABLE invoices (id int)');
      const err = await migrateToPostgres(real.f.store.db, db).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'conflict', field: 'to' });
      expect((err as Error).message).toContain('invoices');
      const tables = await db.query<{ n: string }>(
        "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'",
      );
      expect(tables[0]?.n).toBe('1');
    } finally {
      await db.close();
      await other.drop();
    }
  });
});
