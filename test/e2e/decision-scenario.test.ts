import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The whole decision path over real TLS with the built binary: register with the CLI,
 * decide, defer, approve with the CLI as the human approver, resume, observe, and list the
 * task's receipts; CLI changes take effect on the running daemon's next decision.
 */
describe('decisions end to end (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-dec-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  let ca: Buffer;
  let daemon: DaemonProcess;
  let bot: string;
  let bob: string;
  let alice: string;
  const svc = (args: string[]) => runJson(args, env);
  const act = (url: string, over: Record<string, unknown>) =>
    call(`${daemon.url}${url}`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${bot}` },
      body: { tenant_id: 'acme', actor_id: 'bot', task_id: 't1', action: 'read', ...over },
    });
  const viaDaemon = (token: string) => ({
    ...env,
    SVC_ENDPOINT: daemon.url,
    SVC_CA_CERT: join(env.SVC_HOME, 'tls/deployment-cert.pem'),
    SVC_TOKEN: token,
  });

  beforeAll(async () => {
    const init = await runJson<{ admin_token: string; ca_cert: string }>(
      ['init', '--tenant', 'acme', '--admin', 'alice'],
      env,
    );
    alice = init.admin_token;
    ca = readFileSync(init.ca_cert);
    const t = ['--tenant', 'acme'];
    await svc(['actor', 'add', ...t, '--id', 'bob', '--kind', 'human', '--role', 'approver']);
    await svc(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice']);
    await svc([
      'capability',
      'register',
      ...t,
      '--name',
      'crm.read',
      '--actions',
      'read',
      '--tier',
      '1',
      '--cost-usd',
      '1.5',
    ]);
    await svc([
      'capability',
      'register',
      ...t,
      '--name',
      'payments.send',
      '--actions',
      'write',
      '--tier',
      '3',
      '--irreversible',
      '--cost-usd',
      '10',
    ]);
    await svc([
      'capability',
      'register',
      ...t,
      '--name',
      'notes.write',
      '--actions',
      'write',
      '--tier',
      '0',
      '--custody',
      'pass_through',
    ]);
    for (const c of ['crm.read', 'payments.send', 'notes.write'])
      await svc(['permission', 'grant', ...t, '--actor', 'bot', '--capability', c]);
    const policy = join(tmp.path, 'policy.cedar');
    writeFileSync(policy, 'permit (principal, action, resource);\n');
    await svc(['policy', 'set', ...t, '--file', policy]);
    const task = await runJson<{ task_id: string; status: string; budget_usd: number }>(
      ['task', 'create', ...t, '--id', 't1', '--sponsor', 'alice', '--budget-usd', '100', '--actor', 'bot'],
      env,
    );
    expect(task).toMatchObject({ task_id: 't1', status: 'active', budget_usd: 100 });
    bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
    bob = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bob'], env)).token;
    daemon = await startDaemonProcess([], env);
  });
  afterAll(async () => {
    await daemon?.stop();
    tmp.cleanup();
  });

  it('register, decide, defer, approve by CLI, resume, observe, list receipts by task', async () => {
    const read = await act('/v1/action', { capability: 'crm.read', effect_key_step: 'r1' });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ decision: 'allowed', amount_usd: 1.5 });

    const pay = { capability: 'payments.send', action: 'write', effect_key_step: 'p1', amount_usd: 20 };
    const deferred = await act('/v1/action', pay);
    expect(deferred.status).toBe(202);
    const approvalId = (deferred.body.approval as { approval_id: string }).approval_id;

    const pending = await runJson<{ items: { approval_id: string; status: string }[] }>(
      ['approvals', 'list'],
      viaDaemon(bob),
    );
    expect(pending.items.find((a) => a.approval_id === approvalId)?.status).toBe('pending');
    const selfish = await runSvc(['approvals', 'approve', approvalId], viaDaemon(bot));
    expect(selfish.code).toBe(5);
    const approved = await runSvc(
      ['approvals', 'approve', approvalId, '--note', 'invoice checked', '--json'],
      viaDaemon(bob),
    );
    expect(approved.code, approved.stderr).toBe(0);

    const resumed = await act('/v1/action/resume', pay);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({
      decision: 'allowed',
      intent_id: deferred.body.intent_id,
      amount_usd: 20,
    });

    const note = await act('/v1/action', {
      capability: 'notes.write',
      action: 'write',
      effect_key_step: 'n1',
      amount_usd: 0,
    });
    expect(note.status).toBe(200);
    const observed = await call(`${daemon.url}/v1/observe`, {
      ca,
      method: 'POST',
      headers: { 'x-svc-token': bot },
      body: { intent_id: note.body.intent_id, status: 'succeeded', effect_id: 'note-1' },
    });
    expect(observed.status).toBe(200);

    const receipts = await runJson<{ items: { kind: string; outcome: string; intent_id: string }[] }>(
      ['receipts', 'list', '--task', 't1', '--all'],
      viaDaemon(alice),
    );
    expect(receipts.items.map((r) => `${r.kind}:${r.outcome}`)).toEqual([
      'decision:allowed',
      'decision:deferred',
      'approval:approved',
      'decision:allowed',
      'decision:allowed',
      'observation:succeeded',
    ]);
    expect(JSON.stringify(receipts)).not.toMatch(/correlation_id|request_digest/);
  });

  it('a CLI change on the data dir applies to the running daemon’s next decision', async () => {
    expect((await act('/v1/action', { capability: 'crm.read', effect_key_step: 'c1' })).status).toBe(200);
    await svc(['permission', 'revoke', '--tenant', 'acme', '--actor', 'bot', '--capability', 'crm.read']);
    const revoked = await act('/v1/action', { capability: 'crm.read', effect_key_step: 'c2' });
    expect(revoked.status).toBe(403);
    expect(revoked.body.code).toBe('not_permitted');

    const policy = join(tmp.path, 'forbid.cedar');
    writeFileSync(
      policy,
      'permit (principal, action, resource);\n@reason("notes are frozen")\nforbid (principal, action, resource == Capability::"notes.write");\n',
    );
    await svc(['policy', 'set', '--tenant', 'acme', '--file', policy]);
    const frozen = await act('/v1/action', {
      capability: 'notes.write',
      action: 'write',
      effect_key_step: 'n2',
      amount_usd: 0,
    });
    expect(frozen.status).toBe(403);
    expect(frozen.body).toMatchObject({ code: 'policy_denied', reason: 'notes are frozen' });
  });

  it('--max-open-approvals-per-task bounds the approvals a task may hold open', async () => {
    // a second daemon on the same data dir, with a bound of one
    const bounded = await startDaemonProcess(['--max-open-approvals-per-task', '1'], env);
    try {
      const pay = (step: string) =>
        call(`${bounded.url}/v1/action`, {
          ca,
          method: 'POST',
          headers: { authorization: `Bearer ${bot}` },
          body: {
            tenant_id: 'acme',
            actor_id: 'bot',
            task_id: 't1',
            capability: 'payments.send',
            action: 'write',
            effect_key_step: step,
            amount_usd: 20,
          },
        });
      expect((await pay('b1')).status).toBe(202);
      const refused = await pay('b2');
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ decision: 'refused', code: 'open_approvals_limit' });
      expect(refused.body.reason).toMatch(/at most 1 per task/);
    } finally {
      await bounded.stop();
    }
    const zero = await runSvc(['daemon', 'start', '--max-open-approvals-per-task', '0'], env);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/max-open-approvals-per-task/);
  });
});
