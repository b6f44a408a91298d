import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { Seed } from '../helpers/seed.js';
import { tmpDir } from '../helpers/tmp.js';

/** approvals, receipts and constraints commands: the built binary against a real daemon over TLS. */
describe('svc approvals | receipts | constraints (built binary, real TLS daemon)', () => {
  const tmp = tmpDir('svc-e2e-oversight-');
  const home = join(tmp.path, 'home');
  let daemon: DaemonProcess;
  let base: Record<string, string>;
  const tokens: Record<string, string> = {};
  let pending: string;
  let launchReceipts: string[];

  const as = (who: string) => ({ ...base, SVC_TOKEN: tokens[who] });

  beforeAll(async () => {
    const env = { SVC_HOME: home };
    const init = await runJson<Record<string, string>>(['init', '--tenant', 'acme', '--admin', 'alice'], env);
    tokens.alice = init.admin_token as string;
    await runJson(
      ['actor', 'add', '--tenant', 'acme', '--id', 'bob', '--kind', 'human', '--role', 'approver'],
      env,
    );
    await runJson(['actor', 'add', '--tenant', 'acme', '--id', 'carol', '--kind', 'human'], env);
    await runJson(
      ['actor', 'add', '--tenant', 'acme', '--id', 'bot', '--kind', 'agent', '--manager', 'carol'],
      env,
    );
    for (const who of ['bob', 'carol', 'bot']) {
      tokens[who] = (
        await runJson<{ token: string }>(['token', 'issue', '--tenant', 'acme', '--actor', who], env)
      ).token;
    }
    // Rows the decision pipeline would write (see test/helpers/seed.ts).
    const store = SqliteStore.open(join(home, 'svc.db'));
    const seed = new Seed(store.db, () => new Date());
    seed.capability('acme', 'crm.read');
    seed.capability('acme', 'pay.send', { irreversible: true });
    seed.task('acme', 'launch', { sponsor: 'carol', status: 'active', actors: ['bot'] });
    seed.task('acme', 'next', { sponsor: 'carol', actors: ['bot'] });
    launchReceipts = [1, 2, 3].map(
      () =>
        seed.decision('acme', {
          taskId: 'launch',
          actorId: 'bot',
          capability: 'crm.read',
          outcome: 'allowed',
        }).receiptId,
    );
    const deferred = seed.decision('acme', {
      taskId: 'launch',
      actorId: 'bot',
      capability: 'pay.send',
      outcome: 'deferred',
      intent: 'pay invoice 12',
    });
    pending = deferred.approvalId!;
    launchReceipts.push(deferred.receiptId);
    await store.close();

    daemon = await startDaemonProcess([], env);
    base = { SVC_HOME: home, SVC_ENDPOINT: daemon.url, SVC_CA_CERT: init.ca_cert as string };
  });
  afterAll(async () => {
    await daemon?.stop();
    tmp.cleanup();
  });

  it('lists and shows approvals, as JSON and as a table', async () => {
    const list = await runJson<{ items: { approval_id: string; status: string }[]; next_cursor: null }>(
      ['approvals', 'list', '--status', 'pending'],
      as('bob'),
    );
    expect(list).toEqual({
      items: [expect.objectContaining({ approval_id: pending, status: 'pending' })],
      next_cursor: null,
    });
    const table = await runSvc(['approvals', 'list'], as('bob'));
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(pending);
    expect(table.stdout).toContain('pay.send');
    const one = await runJson<Record<string, unknown>>(['approvals', 'show', pending], as('bot'));
    expect(one).toMatchObject({ approval_id: pending, intent: 'pay invoice 12', requester_id: 'bot' });
    expect((await runSvc(['approvals', 'show', 'apr_missing'], as('bob'))).code).toBe(3);
  });

  it('approves once; the requester cannot; a second decision is a conflict', async () => {
    const self = await runSvc(['approvals', 'approve', pending, '--json'], as('bot'));
    expect(self.code).toBe(5);
    expect(JSON.parse(self.stdout).error).toMatchObject({ code: 'self_approval' });

    const ok = await runJson<{ approval: Record<string, unknown>; receipt_id: string }>(
      ['approvals', 'approve', pending, '--note', 'invoice checked'],
      as('bob'),
    );
    expect(ok.approval).toMatchObject({
      status: 'approved',
      decided_by: 'bob',
      channel: 'api',
      note: 'invoice checked',
    });
    // the decision is a receipt of the task too
    launchReceipts.push(ok.receipt_id);

    const again = await runSvc(['approvals', 'deny', pending], as('bob'));
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/already approved by bob/);

    const receipt = await runJson<Record<string, unknown>>(['receipts', 'show', ok.receipt_id], as('bob'));
    expect(receipt).toMatchObject({ kind: 'approval', outcome: 'approved', approval_id: pending });
  });

  it('lists receipts of a task page by page, or all of them', async () => {
    const first = await runJson<{ items: { receipt_id: string }[]; next_cursor: string }>(
      ['receipts', 'list', '--task', 'launch', '--limit', '2'],
      as('carol'),
    );
    expect(first.items.map((r) => r.receipt_id)).toEqual(launchReceipts.slice(0, 2));
    const second = await runJson<{ items: { receipt_id: string }[] }>(
      ['receipts', 'list', '--task', 'launch', '--limit', '2', '--cursor', first.next_cursor],
      as('carol'),
    );
    expect(second.items.map((r) => r.receipt_id)).toEqual(launchReceipts.slice(2, 4));
    const all = await runJson<{ items: { receipt_id: string }[]; next_cursor: null }>(
      ['receipts', 'list', '--task', 'launch', '--limit', '1', '--all'],
      as('carol'),
    );
    expect(all.items.map((r) => r.receipt_id)).toEqual(launchReceipts);
    expect(all.next_cursor).toBeNull();
    const text = JSON.stringify(all);
    expect(text).not.toContain('correlation_id');
    expect((await runSvc(['receipts', 'list', '--task', 'nothing'], as('carol'))).code).toBe(3);
    expect((await runSvc(['receipts', 'list', '--limit', '201'], as('carol'))).code).toBe(2);
  });

  it('installs a plan once, as the sponsor, and shows it', async () => {
    const planFile = join(tmp.path, 'plan.json');
    writeFileSync(
      planFile,
      JSON.stringify({ capabilities: ['crm.read'], max_total_usd: 25, max_actions: 10 }),
    );
    const notSponsor = await runSvc(['constraints', 'install', 'next', '--plan', planFile], as('alice'));
    expect(notSponsor.code).toBe(5);
    const installed = await runJson<Record<string, unknown>>(
      ['constraints', 'install', 'next', '--plan', planFile],
      as('carol'),
    );
    expect(installed).toMatchObject({
      task_id: 'next',
      installed: true,
      installed_by: 'carol',
      plan: { max_total_usd: 25 },
    });
    const twice = await runSvc(['constraints', 'install', 'next', '--plan', planFile, '--json'], as('carol'));
    expect(twice.code).toBe(4);
    expect(JSON.parse(twice.stdout).error.code).toBe('constraints_installed');
    const shown = await runJson<Record<string, unknown>>(['constraints', 'show', 'next'], as('bot'));
    expect(shown).toMatchObject({ installed: true, ledger: { visibility: 'own', reservation_ids: [] } });
    const human = await runSvc(['constraints', 'show', 'next'], as('carol'));
    expect(human.stdout).toMatch(/installed .* by carol/);

    writeFileSync(planFile, '{ not json');
    expect((await runSvc(['constraints', 'install', 'launch', '--plan', planFile], as('carol'))).code).toBe(
      2,
    );
  });

  it('fails loudly without trust, without a token, or without a daemon', async () => {
    // Next to its data dir the CLI trusts the certificate the daemon recorded for its own address;
    // from anywhere else, nothing but SVC_CA_CERT.
    const local = await runSvc(['approvals', 'list', '--json'], { ...as('bob'), SVC_CA_CERT: '' });
    expect(local.code).toBe(0);
    const untrusted = await runSvc(['approvals', 'list', '--json'], {
      ...as('bob'),
      SVC_CA_CERT: '',
      SVC_HOME: '/nonexistent/svc-home',
    });
    expect(untrusted.code).toBe(6);
    expect(JSON.parse(untrusted.stdout).error).toMatchObject({
      code: 'unreachable',
      reason: expect.stringContaining(`not reachable at ${daemon.url}`),
      remedy: expect.stringMatching(/SVC_CA_CERT/),
    });
    const tokenless = await runSvc(['receipts', 'list'], { ...base, SVC_TOKEN: '' });
    expect(tokenless.code).toBe(2);
    expect(tokenless.stderr).toMatch(/SVC_TOKEN is not set/);
    const wrongToken = await runSvc(['receipts', 'list'], {
      ...base,
      SVC_TOKEN: 'svct_0000000000000000_' + 'A'.repeat(43),
    });
    expect(wrongToken.code).toBe(5);
    const nowhere = await runSvc(['receipts', 'list'], { ...as('bob'), SVC_ENDPOINT: 'https://127.0.0.1:1' });
    expect(nowhere.code).toBe(6);
    expect(nowhere.stderr).toMatch(/not reachable at https:\/\/127\.0\.0\.1:1/);
  });
});
