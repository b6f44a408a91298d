import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc } from '../helpers/cli.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { realExport, type RealExport } from '../helpers/real-export.js';

const server = await pgAvailable();

/** The server's URL with a password in it: the test server trusts loopback, so it is never checked, only hidden. */
function withPassword(url: string, password: string): string {
  const u = new URL(url);
  u.password = password;
  return u.toString();
}

describe.skipIf('skip' in server)('svc store migrate (built binary, real PostgreSQL)', () => {
  const password = 'pw-never-printed-7c1e';
  let real: RealExport;
  let target: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    // A data dir with two tenants and a real log: decisions through the daemon, anchors, a key rotation, a redaction.
    real = await realExport();
    // A second policy version with its author and message: the history is copied row by row too.
    await real.f.store.policies.set(
      'acme',
      'permit (principal, action, resource);\n// v2\n',
      '2026-03-01T00:00:00.000Z',
      {
        setBy: 'alice',
        message: 'the history travels',
      },
    );
    target = await freshDatabase();
  });
  afterAll(async () => {
    await target?.drop();
    await real?.f.close();
  });

  it('copies the data dir and proves every tenant; a second run refuses the non-empty target', async () => {
    const to = withPassword(target.url, password);
    const first = await runSvc(['store', 'migrate', '--data-dir', real.f.dir.root, '--to', to, '--json']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const result = JSON.parse(first.stdout) as {
      target: string;
      tables: { table: string; rows: number }[];
      tenants: { tenant_id: string; entries: number; export_lines: number; proof: string }[];
    };
    const journal = Number(real.f.store.db.prepare('SELECT count(*) FROM journal').pluck().get());
    expect(result.target).toContain(':***@');
    expect(result.tables.find((t) => t.table === 'journal')?.rows).toBe(journal);
    const versions = Number(real.f.store.db.prepare('SELECT count(*) FROM policy_versions').pluck().get());
    expect(versions).toBeGreaterThan(2);
    expect(result.tables.find((t) => t.table === 'policy_versions')?.rows).toBe(versions);
    expect(result.tenants.map((t) => [t.tenant_id, t.proof])).toEqual([
      ['acme', 'ok'],
      ['other', 'ok'],
    ]);
    expect(result.tenants.reduce((n, t) => n + t.entries, 0)).toBe(journal);
    expect(result.tenants[0]!.export_lines).toBeGreaterThan(result.tenants[0]!.entries);

    // The migrated deployment serves evidence from PostgreSQL that an auditor's verifier accepts.
    const file = join(real.f.dir.root, 'acme-from-postgres.jsonl');
    const exported = await runSvc([
      'export',
      '--tenant',
      'acme',
      '--out',
      file,
      '--data-dir',
      real.f.dir.root,
      '--store',
      target.url,
      '--json',
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({
      tenant_id: 'acme',
      entry_count: result.tenants[0]!.entries,
    });
    const keys = real.keys.flatMap((k) => ['--public-key', Buffer.from(k).toString('base64')]);
    const verdict = await runSvc(['verify', file, ...keys, '--json']);
    expect(verdict.code, verdict.stdout).toBe(0);
    expect(JSON.parse(verdict.stdout).result).toMatch(/^pass/);

    const second = await runSvc(['store', 'migrate', '--data-dir', real.f.dir.root, '--to', to]);
    expect(second.code).toBe(4);
    expect(second.stderr).toContain('the target database is not empty: it holds tenants acme, other');
    expect(second.stderr).toContain('Remedy: migrate into a new, empty database');
    for (const out of [first.stdout, first.stderr, second.stdout, second.stderr])
      expect(out).not.toContain(password);
  });

  it('prints each tenant as it proves it, and refuses a URL that is not PostgreSQL', async () => {
    const other = await freshDatabase();
    try {
      const run = await runSvc(['store', 'migrate', '--data-dir', real.f.dir.root, '--to', other.url]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(
        /^Copied \d+ tables \(\d+ rows\) into postgresql:\/\/.* and compared every row\.$/m,
      );
      expect(run.stdout).toMatch(
        /^tenant acme: \d+ entries copied, proof OK \(export identical: \d+ lines after the header\)$/m,
      );
      expect(run.stderr).toContain('copied journal:');
    } finally {
      await other.drop();
    }
    const wrong = await runSvc([
      'store',
      'migrate',
      '--data-dir',
      real.f.dir.root,
      '--to',
      `mysql://root:${password}@127.0.0.1/svc`,
    ]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      '--to must be a postgres:// or postgresql:// URL, got mysql://root:***@127.0.0.1/svc',
    );
    expect(wrong.stderr).not.toContain(password);
  });
});
