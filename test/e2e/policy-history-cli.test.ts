import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

interface Version {
  version: number;
  sha256: string;
  set_by: string;
  set_at: string;
  message: string | null;
  current: boolean;
}

const REFUNDS = 'permit (principal, action == Action::"refund", resource);\n';
const READS =
  '// read-only while refunds are audited\npermit (principal, action == Action::"read", resource);\n';
const sha256 = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

/** svc policy history, show --version, diff and rollback over a real data dir, through the built binary. */
describe('svc policy history, diff and rollback', () => {
  const tmp = tmpDir('svc-policy-history-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  const file = (name: string, text: string) => {
    const path = join(tmp.path, name);
    writeFileSync(path, text);
    return path;
  };
  const history = async () =>
    (await runJson<{ items: Version[] }>(['policy', 'history', ...t, '--all'], env)).items;
  const register = (actions: string) =>
    runJson(['capability', 'register', ...t, '--name', 'payments', '--tier', '2', '--actions', actions], env);

  beforeAll(async () => {
    await runJson(['init', ...t, '--admin', 'alice', '--yes'], env);
    await register('read,refund');
  });
  afterAll(() => tmp.cleanup());

  it('keeps each version with its hash, the OS user who set it, when, and the message', async () => {
    const refunds = file('refunds.cedar', REFUNDS);
    const reads = file('reads.cedar', READS);
    await runJson(['policy', 'set', ...t, '--file', refunds, '--message', 'refunds for agents'], env);
    await runJson(['policy', 'set', ...t, '--file', reads], env);
    // The same text again is no new version.
    expect(await runJson(['policy', 'set', ...t, '--file', reads, '-m', 'again'], env)).toMatchObject({
      version: 2,
      changed: false,
    });
    const me = userInfo().username;
    const [v2, v1] = await history();
    expect([v2, v1]).toEqual([
      {
        version: 2,
        sha256: sha256(READS),
        set_by: me,
        set_at: expect.any(String),
        message: null,
        current: true,
      },
      {
        version: 1,
        sha256: sha256(REFUNDS),
        set_by: me,
        set_at: expect.any(String),
        message: 'refunds for agents',
        current: false,
      },
    ]);
    expect(Date.parse(v2!.set_at)).toBeGreaterThanOrEqual(Date.parse(v1!.set_at));

    // A page at a time, newest first.
    const first = await runJson<{ items: Version[]; next_cursor: string | null }>(
      ['policy', 'history', ...t, '--limit', '1'],
      env,
    );
    expect(first).toMatchObject({ items: [{ version: 2 }], next_cursor: '2' });
    expect(
      await runJson(['policy', 'history', ...t, '--limit', '1', '--cursor', first.next_cursor!], env),
    ).toMatchObject({ items: [{ version: 1 }], next_cursor: null });
    const table = await runSvc(['policy', 'history', ...t], env);
    expect(table.stdout).toMatch(/^version\s+set at\s+set by\s+sha256\s+message\n/);
    expect(table.stdout).toContain(`1            ${v1!.set_at}  ${me}`);
    expect(table.stdout).toMatch(
      new RegExp(`2 \\(current\\)\\s+\\S+\\s+${me}\\s+${sha256(READS).slice(0, 12)}`),
    );

    // An earlier version's text, as it was stored.
    const shown = await runSvc(['policy', 'show', ...t, '--version', '1'], env);
    expect(shown.stdout).toBe(REFUNDS);
    expect(shown.stderr).toContain('Policy version 1 (not current) of tenant acme');
    expect(shown.stderr).toContain(`by ${me}: refunds for agents`);
  });

  it('diffs any two versions as a unified diff', async () => {
    const [v2, v1] = await history();
    const diff = await runSvc(['policy', 'diff', ...t, '1', '2'], env);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toBe(
      [
        `--- v1\t${v1!.set_at} sha256:${v1!.sha256}`,
        `+++ v2\t${v2!.set_at} sha256:${v2!.sha256}`,
        '@@ -1,1 +1,2 @@',
        '-permit (principal, action == Action::"refund", resource);',
        '+// read-only while refunds are audited',
        '+permit (principal, action == Action::"read", resource);',
        '',
      ].join('\n'),
    );
    const json = await runJson<{ from: Version; to: Version; diff: string }>(
      ['policy', 'diff', ...t, '2', '1'],
      env,
    );
    expect(json).toMatchObject({ from: { version: 2, current: true }, to: { version: 1, current: false } });
    expect(json.diff).toContain('\n+permit (principal, action == Action::"refund", resource);\n');
    const same = await runSvc(['policy', 'diff', ...t, '2', '2'], env);
    expect(same).toMatchObject({ code: 0, stdout: '' });
    expect(same.stderr).toContain('Versions 2 and 2 have the same text.');
    const missing = await runSvc(['policy', 'diff', ...t, '1', '7'], env);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('to: tenant acme has no policy version 7; its versions are 1 to 2');
    expect((await runSvc(['policy', 'diff', ...t, '1', 'two'], env)).code).toBe(2);
  });

  it('rolls back by storing the old text as a new version, and says so in its message', async () => {
    const rolled = await runJson(
      ['policy', 'rollback', ...t, '--to', '1', '-m', 'reads-only stopped refunds'],
      env,
    );
    expect(rolled).toEqual({
      tenant_id: 'acme',
      to: 1,
      version: 3,
      changed: true,
      sha256: sha256(REFUNDS),
      message: 'rollback to version 1: reads-only stopped refunds',
    });
    expect((await runSvc(['policy', 'show', ...t], env)).stdout).toBe(REFUNDS);
    // Rolling back to the text already installed stores nothing.
    expect(await runJson(['policy', 'rollback', ...t, '--to', '1'], env)).toMatchObject({
      version: 3,
      changed: false,
    });
    expect((await history()).map((v) => [v.version, v.message])).toEqual([
      [3, 'rollback to version 1: reads-only stopped refunds'],
      [2, null],
      [1, 'refunds for agents'],
    ]);
  });

  it('refuses a rollback to a text that no longer validates against today’s capabilities, storing nothing', async () => {
    await runJson(['policy', 'set', ...t, '--file', file('reads2.cedar', READS)], env);
    // The refund verb goes: the current policy (reads only) allows that.
    await register('read');
    const refused = await runSvc(['policy', 'rollback', ...t, '--to', '1'], env);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(
      "version 1 of the policy of tenant acme no longer validates against the tenant's capabilities (actions: read, write), 1 error:",
    );
    expect(refused.stderr).toMatch(/version 1:1:\d+: .*`Action::"refund"`/);
    expect(refused.stderr).toContain('nothing was stored');
    expect((await history()).map((v) => v.version)).toEqual([4, 3, 2, 1]);
    const missing = await runSvc(['policy', 'rollback', ...t, '--to', '9'], env);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('to: tenant acme has no policy version 9; its versions are 1 to 4');
  });

  it('refuses a message that is too long, naming the field, before anything is written', async () => {
    const r = await runSvc(
      ['policy', 'rollback', ...t, '--to', '2', '--message', 'x'.repeat(501), '--json'],
      env,
    );
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({
      error: {
        code: 'invalid_request',
        field: 'message',
        reason: 'message: expected at most 500 characters of well-formed text',
      },
    });
    expect((await history()).map((v) => v.version)).toEqual([4, 3, 2, 1]);
  });
});
