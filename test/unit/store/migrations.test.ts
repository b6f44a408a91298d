import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { policyHash } from '../../../src/core/policy-version.js';
import { MIGRATIONS } from '../../../src/store/sqlite/migrations.js';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { JournalWriter } from '../../../src/store/sqlite/journal.js';
import { tmpDir } from '../../helpers/tmp.js';

describe('SQLite migrations', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it('apply in order at open, with WAL and synchronous=FULL, and re-open as a no-op', () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    const file = join(t.path, 'svc.db');
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['tenants', 'actors', 'tokens', 'signing_keys']));
    db.prepare("INSERT INTO tenants (id, created_at) VALUES ('t', 'now')").run();
    db.close();
    const again = openDatabase(file);
    expect(again.prepare('SELECT count(*) AS n FROM tenants').get()).toEqual({ n: 1 });
    again.close();
  });

  it('refuses a database written by a newer svc', () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    const file = join(t.path, 'svc.db');
    const raw = new Database(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(/newer than this svc understands/);
  });

  it('two processes opening a fresh data dir at once both succeed and migrate once', async () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    const file = join(t.path, 'svc.db');
    // Each child opens the same file through the real adapter, as the built CLI and daemon do.
    const adapter = new URL('../../../dist/src/store/sqlite/database.js', import.meta.url).href;
    const script = `
      const { openDatabase } = await import(${JSON.stringify(adapter)});
      const db = openDatabase(${JSON.stringify(file)});
      db.prepare("INSERT INTO tenants (id, created_at) VALUES (?, 'now')").run('p' + process.pid);
      db.close();
    `;
    const run = () =>
      new Promise<number | null>((resolve) => {
        const c = spawn(process.execPath, ['--input-type=module', '-e', script], {
          cwd: fileURLToPath(new URL('../../..', import.meta.url)),
          stdio: 'inherit',
        });
        c.on('close', resolve);
      });
    const codes = await Promise.all([run(), run(), run()]);
    expect(codes).toEqual([0, 0, 0]);
    const db = openDatabase(file);
    expect(db.prepare('SELECT count(*) AS n FROM tenants').get()).toEqual({ n: 3 });
    db.close();
  });

  it('6 brings entries redacted before it to the corrected section 7 form and erases their intents', () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    const file = join(t.path, 'svc.db');
    const raw = new Database(file);
    for (const m of MIGRATIONS.slice(0, 5)) raw.exec(m);
    raw.pragma('user_version = 5');
    const tombstone = JSON.stringify({
      authorised_by: 'alice',
      from_sequence: 1,
      reason: 'erasure',
      record_count: 1,
      removed_at: '2026-02-01T00:00:00.000Z',
      to_sequence: 1,
    });
    const journal = raw.prepare(
      `INSERT INTO journal (tenant_id, sequence, kind, receipt_id, task_id, record, record_hash, intent_id, actor_id,
         capability, tier, allowed, grant_id, amount_micros, occurred_at, linked_at, tombstone, leaf, chain_hash)
       VALUES ('acme', ?, ?, ?, NULL, '{}', ?, ?, ?, ?, 0, ?, '', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', ?, ?, ?)`,
    );
    const hash = 'ab'.repeat(32);
    // the old form: blanked, but record hash and times kept
    journal.run(1, 'decision', 'rcp_1', hash, '', '', '', 0, tombstone, hash, hash);
    journal.run(2, 'decision', 'rcp_2', hash, 'int_2', 'bot', 'crm.read', 1, null, hash, hash);
    journal.run(
      3,
      'redaction',
      'rcp_3',
      hash,
      'int_3',
      'alice',
      'svc.journal.redact',
      1,
      tombstone,
      hash,
      hash,
    );
    const intent = raw.prepare(
      `INSERT INTO intents (tenant_id, id, task_id, step, actor_id, capability, action, route, request_digest, request,
         outcome, code, reason, amount_micros, grant_id, approval_id, receipt_id, created_at, updated_at)
       VALUES ('acme', ?, 't1', ?, 'bot', 'crm.read', 'read', 'action', ?, '{"x":1}', 'refused', 'denied', 'secret reason', 0, NULL, NULL, ?, 'x', 'x')`,
    );
    intent.run('int_1', 's1', hash, 'rcp_1');
    intent.run('int_2', 's2', hash, 'rcp_2');
    raw.close();

    const db = openDatabase(file);
    const rows = db
      .prepare('SELECT sequence, record_hash, occurred_at, linked_at FROM journal ORDER BY sequence')
      .all();
    expect(rows).toEqual([
      {
        sequence: 1,
        record_hash: '0'.repeat(64),
        occurred_at: '2026-02-01T00:00:00.000Z',
        linked_at: '2026-02-01T00:00:00.000Z',
      },
      {
        sequence: 2,
        record_hash: hash,
        occurred_at: '2026-01-01T00:00:00.000Z',
        linked_at: '2026-01-01T00:00:00.000Z',
      },
      {
        sequence: 3,
        record_hash: hash,
        occurred_at: '2026-01-01T00:00:00.000Z',
        linked_at: '2026-01-01T00:00:00.000Z',
      },
    ]);
    expect(db.prepare('SELECT id, request_digest, request, reason FROM intents ORDER BY id').all()).toEqual([
      { id: 'int_1', request_digest: '', request: '{}', reason: null },
      { id: 'int_2', request_digest: hash, request: '{"x":1}', reason: 'secret reason' },
    ]);
    db.close();
  });

  it('journal_activity counts the journal a data dir already holds, and every append after', () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    const file = join(t.path, 'svc.db');
    // a data dir as the version before journal activity left it
    const activityMigration = MIGRATIONS.findIndex((m) => m.includes('CREATE TABLE journal_activity'));
    expect(activityMigration).toBeGreaterThan(0);
    const raw = new Database(file);
    // what openDatabase gives the migrations that hash stored policies
    raw.function('svc_sha256_hex', { deterministic: true }, (text) => policyHash(String(text)));
    for (const m of MIGRATIONS.slice(0, activityMigration)) raw.exec(m);
    raw.pragma(`user_version = ${activityMigration}`);
    raw.prepare("INSERT INTO tenants (id, created_at) VALUES ('acme', 'x')").run();
    const journal = raw.prepare(
      `INSERT INTO journal (tenant_id, sequence, kind, receipt_id, task_id, record, record_hash, intent_id, actor_id,
         capability, tier, allowed, grant_id, amount_micros, occurred_at, linked_at, tombstone, leaf, chain_hash)
       VALUES ('acme', ?, 'decision', ?, NULL, ?, 'h', 'i', 'bot', 'crm.read', 0, 0, '', 0, ?, ?, NULL, 'l', 'c')`,
    );
    const at = (h: string) => `2026-01-01T${h}:15:00.000Z`;
    journal.run(1, 'rcp_1', '{"outcome":"refused","code":"not_permitted"}', at('09'), at('09'));
    journal.run(2, 'rcp_2', '{"outcome":"refused","code":"not_permitted"}', at('09'), at('09'));
    journal.run(3, 'rcp_3', '{"outcome":"allowed","code":null}', at('10'), at('10'));
    raw.close();

    const db = openDatabase(file);
    const activity = db.prepare(
      'SELECT tenant_id AS tenant, hour, kind, outcome, code, n FROM journal_activity ORDER BY tenant, hour, outcome, code',
    );
    const counted = [
      {
        tenant: 'acme',
        hour: '2026-01-01T09',
        kind: 'decision',
        outcome: 'refused',
        code: 'not_permitted',
        n: 2,
      },
      { tenant: 'acme', hour: '2026-01-01T10', kind: 'decision', outcome: 'allowed', code: '', n: 1 },
    ];
    expect(activity.all()).toEqual(counted);
    // No trigger counts any more: the journal's writer does, in the append's transaction.
    expect(
      db
        .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'journal'")
        .pluck()
        .get(),
    ).toBe(0);
    // appended by the writer to a tenant of its own: the rows above have no log state
    db.prepare("INSERT INTO tenants (id, created_at) VALUES ('beta', 'x')").run();
    const writer = new JournalWriter(db);
    /** one append in its own transaction, which fails after it when `fail` is set */
    const append = (record: Record<string, unknown>, hour = '10', fail = false) =>
      db.transaction(() => {
        writer.append(
          {
            tenantId: 'beta',
            kind: 'decision',
            receiptId: `rcp_${Math.random()}`,
            taskId: null,
            intentId: 'i',
            actorId: 'bot',
            capability: 'crm.read',
            tier: 0,
            allowed: record.outcome === 'allowed',
            grantId: '',
            amountMicros: 0n,
            occurredAt: at(hour),
            record,
          },
          at(hour),
        );
        if (fail) throw new Error('the state change failed');
      })();
    append({ outcome: 'allowed', code: null });
    append({ outcome: 'allowed' });
    append({ outcome: 'refused', code: 'over_budget', reason: 'x' });
    // not plain strings: counted as SQLite reads them from the stored record
    append({ outcome: 'refused', code: 7 });
    append({ outcome: true, code: 'x' });
    const beta = (outcome: string, code: string, n: number) => ({
      tenant: 'beta',
      hour: '2026-01-01T10',
      kind: 'decision',
      outcome,
      code,
      n,
    });
    expect(activity.all()).toEqual([
      ...counted,
      beta('1', 'x', 1),
      beta('allowed', '', 2),
      beta('refused', '7', 1),
      beta('refused', 'over_budget', 1),
    ]);
    // a rolled-back append counts nothing
    expect(() => append({ outcome: 'allowed' }, '11', true)).toThrow('the state change failed');
    expect(activity.all()).not.toContainEqual(expect.objectContaining({ hour: '2026-01-01T11' }));
    db.close();
  });
});
