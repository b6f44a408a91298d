import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { Seed } from '../helpers/seed.js';
import { tmpDir } from '../helpers/tmp.js';

/** One list shape and one error shape across the CLI: the built binary, a real TLS daemon. */
describe('every list is {items, next_cursor}; every error is {code, reason, remedy}', () => {
  const tmp = tmpDir('svc-e2e-lists-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  let daemon: DaemonProcess;
  let viaDaemon: Record<string, string>;

  beforeAll(async () => {
    const init = await runJson<Record<string, string>>(['init', '--tenant', 'acme', '--admin', 'alice'], env);
    const store = SqliteStore.open(join(home, 'svc.db'));
    const seed = new Seed(store.db, () => new Date());
    seed.capability('acme', 'crm.read');
    seed.task('acme', 'launch', { sponsor: 'alice', status: 'active' });
    for (let i = 0; i < 3; i++) {
      seed.decision('acme', {
        taskId: 'launch',
        actorId: 'alice',
        capability: 'crm.read',
        outcome: 'allowed',
      });
    }
    await store.close();
    daemon = await startDaemonProcess([], env);
    viaDaemon = {
      ...env,
      SVC_ENDPOINT: daemon.url,
      SVC_CA_CERT: init.ca_cert as string,
      SVC_TOKEN: init.admin_token as string,
    };
  });
  afterAll(async () => {
    await daemon?.stop();
    tmp.cleanup();
  });

  const lists: [string[], 'dir' | 'daemon'][] = [
    [['tenant', 'list'], 'dir'],
    [['actor', 'list', '--tenant', 'acme'], 'dir'],
    [['token', 'list', '--tenant', 'acme'], 'dir'],
    [['capability', 'list', '--tenant', 'acme'], 'dir'],
    [['permission', 'list', '--tenant', 'acme'], 'dir'],
    [['task', 'list', '--tenant', 'acme', '--all'], 'dir'],
    [['channel', 'list'], 'dir'],
    [['secret', 'list', '--tenant', 'acme'], 'dir'],
    [['approvals', 'list'], 'daemon'],
    [['receipts', 'list', '--task', 'launch', '--all'], 'daemon'],
    [['entitlements', 'list'], 'daemon'],
    [['cards', 'list'], 'daemon'],
  ];

  it.each(lists)('svc %s --json', async (args, where) => {
    const r = await runSvc([...args, '--json'], where === 'dir' ? env : viaDaemon);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['items', 'next_cursor']);
    expect(Array.isArray(doc.items)).toBe(true);
    expect(doc.next_cursor).toBeNull();
    expect(r.stderr).toBe('');
  });

  it('a page with more behind it carries its cursor, and the cursor continues it', async () => {
    const first = await runJson<{ items: { sequence: number }[]; next_cursor: string }>(
      ['receipts', 'list', '--task', 'launch', '--limit', '2'],
      viaDaemon,
    );
    expect(first.items).toHaveLength(2);
    const [rest, table] = await Promise.all([
      runJson<{ items: { sequence: number }[]; next_cursor: string | null }>(
        ['receipts', 'list', '--task', 'launch', '--cursor', first.next_cursor],
        viaDaemon,
      ),
      runSvc(['receipts', 'list', '--task', 'launch', '--limit', '2'], viaDaemon),
    ]);
    expect(rest).toEqual({ items: [expect.objectContaining({ sequence: 3 })], next_cursor: null });
    expect(table.stdout.split('\n')[0]).toMatch(/^seq +receipt +kind/);
    expect(table.stderr).toContain(`More: --cursor ${first.next_cursor} (or --all)`);
  });

  it('errors, from the data dir, from oclif and from the daemon, all carry code, reason and remedy', async () => {
    const cases: [string[], Record<string, string>, number, string][] = [
      [['task', 'show', '--tenant', 'acme', '--id', 'nope'], env, 3, 'not_found'],
      [['task', 'list', '--tenant', 'acme', '--bogus'], env, 2, 'usage'],
      [['task', 'list', '--tenant', 'acme', '--limit', '0'], env, 2, 'invalid_request'],
      [['receipts', 'list', '--task', 'nope'], viaDaemon, 3, 'not_found'],
      [['receipts', 'list'], { ...viaDaemon, SVC_TOKEN: 'svct_0000000000000000_x' }, 5, 'unauthenticated'],
      [['approvals', 'show', 'apr_nope'], viaDaemon, 3, 'not_found'],
    ];
    // Side by side: each is its own process, and in a row they took most of a minute on a loaded host.
    const results = await Promise.all(cases.map(([args, e]) => runSvc([...args, '--json'], e)));
    for (const [i, [args, , code, errorCode]] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, args.join(' ')).toBe(code);
      const body = (JSON.parse(r.stdout) as { error: Record<string, unknown> }).error;
      expect(body, args.join(' ')).toMatchObject({
        code: errorCode,
        reason: expect.any(String),
        remedy: expect.any(String),
      });
      expect(body.remedy as string, args.join(' ')).not.toMatch(/\b(GET|POST) \/v1\//);
      // A refused token is fixed in the shell, not with HTTP headers.
      if (errorCode === 'unauthenticated') {
        expect(body.remedy as string).toMatch(/^export SVC_TOKEN=<token> with a live token/);
        expect(body.remedy as string).not.toMatch(/Authorization|Bearer|header/i);
      }
    }
  });
});
