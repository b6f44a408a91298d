import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { runJson, runSvc } from '../helpers/cli.js';
import { Seed } from '../helpers/seed.js';
import { tmpDir } from '../helpers/tmp.js';

/** What a new user's slips get back from the built binary: a real next step, nothing left behind. */
describe('the first hour: mistakes answered with a remedy', () => {
  const tmp = tmpDir('svc-e2e-first-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  beforeAll(async () => {
    await runJson(['init', '--tenant', 'acme', '--admin', 'alice'], env);
  });
  afterAll(() => tmp.cleanup());

  it('a mistyped command answers "did you mean" in the form users type, with a remedy line', async () => {
    const [typo, json, nothingNear] = await Promise.all([
      runSvc(['aprovals', 'list'], env),
      runSvc(['tasks', 'lst', '--json'], env),
      runSvc(['frobnicate'], env),
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Error: `svc aprovals list` is not an svc command');
    expect(typo.stderr).toContain('Remedy: did you mean `svc approvals list`?');
    expect(typo.stderr).not.toMatch(/aprovals:list/);
    expect(json.code).toBe(2);
    expect((JSON.parse(json.stdout) as { error: Record<string, string> }).error).toMatchObject({
      code: 'usage',
      remedy: expect.stringContaining('did you mean `svc task list`?'),
    });
    expect(nothingNear.code).toBe(2);
    expect(nothingNear.stderr).toContain('Remedy: run `svc --help` for the list of commands');
  });

  it('a failed export --out leaves no FILE.partial-<pid>, and its remedy is a command that runs', async () => {
    const out = join(tmp.path, 'out');
    mkdirSync(out);
    const r = await runSvc(['export', '--tenant', 'nosuch', '--out', join(out, 'evidence.jsonl')], env);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('Remedy: check the id and the tenant: `svc tenant list` shows what exists');
    expect(r.stderr).not.toContain('…');
    expect(readdirSync(out)).toEqual([]);
  });

  it('counts in CLI text take the noun in their number', async () => {
    const store = SqliteStore.open(join(home, 'svc.db'));
    const seed = new Seed(store.db, () => new Date());
    seed.capability('acme', 'crm.read');
    seed.task('acme', 'launch', { sponsor: 'alice', status: 'active' });
    seed.decision('acme', { taskId: 'launch', actorId: 'alice', capability: 'crm.read', outcome: 'allowed' });
    await store.close();
    const r = await runSvc(['export', '--tenant', 'acme', '--out', join(tmp.path, 'acme.jsonl')], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /Exported (1 entry|\d+ entries) of tenant acme, (no anchors yet|1 anchor|\d+ anchors)/,
    );
    expect(r.stderr).not.toMatch(/\b1 (entries|anchors)\b/);
  });
});
