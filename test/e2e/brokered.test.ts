import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { downstream, type Downstream } from '../helpers/downstream.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

const TOKEN = 'crm-e2e-token-3b7d0f';
const NEXT = 'crm-e2e-next-a81c44';

/** `svc …` with `input` on stdin, as an operator pipes a secret in. */
function svcWithInput(args: string[], input: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/**
 * Brokered execution with the built binary over TLS: the integration-operations document,
 * secrets set from the CLI, the integration-ops commands through the daemon, and a daemon
 * killed with SIGKILL while the provider holds a call open.
 */
describe('brokered execution end to end (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-brk-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const ops = join(tmp.path, 'ops.yaml');
  let ds: Downstream;
  let ca: Buffer;
  let daemon: DaemonProcess;
  let alice: string;
  let bot: string;
  let publicKey: string;
  const t = ['--tenant', 'acme'];
  const viaDaemon = (token: string) => ({
    ...env,
    SVC_ENDPOINT: daemon.url,
    SVC_CA_CERT: join(env.SVC_HOME, 'tls/deployment-cert.pem'),
    SVC_TOKEN: token,
  });
  const broker = (step: string) =>
    call(`${daemon.url}/v1/brokered`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${bot}` },
      body: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'crm.contacts.create',
        action: 'write',
        task_id: 't1',
        effect_key_step: step,
        params: { team: 'sales', name: 'Ada' },
      },
    });

  beforeAll(async () => {
    ds = await downstream();
    const init = await runJson<{ admin_token: string; ca_cert: string }>(
      ['init', '--tenant', 'acme', '--admin', 'alice'],
      env,
    );
    alice = init.admin_token;
    ca = readFileSync(init.ca_cert);
    publicKey = (await runJson<{ public_key: string }>(['key', 'show', ...t], env)).public_key;
    await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
    await runJson(
      [
        'capability',
        'register',
        ...t,
        '--name',
        'crm.contacts.create',
        '--actions',
        'write',
        '--tier',
        '1',
        '--custody',
        'brokered',
        '--surface',
        'crm',
        '--operation',
        'contacts.create',
      ],
      env,
    );
    await runJson(
      ['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'crm.contacts.create'],
      env,
    );
    await runJson(
      [
        'capability',
        'register',
        ...t,
        '--name',
        'pay.refund',
        '--actions',
        'write',
        '--tier',
        '4',
        '--irreversible',
        '--custody',
        'brokered',
        '--surface',
        'crm',
        '--operation',
        'refunds.create',
      ],
      env,
    );
    await runJson(['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'pay.refund'], env);
    const policy = join(tmp.path, 'policy.cedar');
    writeFileSync(policy, 'permit (principal, action, resource);\n');
    await runJson(['policy', 'set', ...t, '--file', policy], env);
    await runJson(
      ['task', 'create', ...t, '--id', 't1', '--sponsor', 'alice', '--budget-usd', '100', '--actor', 'bot'],
      env,
    );
    await runJson(
      [
        'task',
        'create',
        ...t,
        '--id',
        'refunds',
        '--sponsor',
        'alice',
        '--budget-usd',
        '100',
        '--actor',
        'bot',
      ],
      env,
    );
    bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
    const set = await svcWithInput(
      ['secret', 'set', ...t, '--name', 'crm-token', '--json'],
      `${TOKEN}\n`,
      env,
    );
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      name: 'crm-token',
      result: 'created',
      reference: 'secret:crm-token',
    });
    expect(set.stdout + set.stderr).not.toContain(TOKEN);
    writeFileSync(
      ops,
      `surfaces:
  - id: crm
    adapter: http
    base_url: ${ds.url}
    credential_ref: secret:crm-token
    auth: { type: bearer }
    timeout_ms: 60000
    check: { method: GET, path: /health }
    operations:
      contacts.create:
        method: POST
        path: /contacts/{team}
        effect_id: /id
      refunds.create: { method: POST, path: /refunds }
`,
    );
    daemon = await startDaemonProcess(['--integration-ops', ops], env);
  });
  afterAll(async () => {
    await daemon?.stop();
    await ds.close();
    tmp.cleanup();
  });

  it('refuses to start with an invalid document, naming the line', async () => {
    const bad = join(tmp.path, 'bad.yaml');
    writeFileSync(bad, 'surfaces:\n  - id: crm\n    adapter: ftp\n');
    const r = await runSvc(['daemon', 'start', '--listen', '127.0.0.1:0', '--integration-ops', bad], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml:3:14: surfaces\[0\]\.adapter/);
  });

  it('secret list never shows a value; the integration-ops commands work through the daemon', async () => {
    const listed = await runJson<{ items: { name: string; reference: string }[] }>(
      ['secret', 'list', ...t],
      env,
    );
    expect(listed.items).toEqual([
      expect.objectContaining({ name: 'crm-token', reference: 'secret:crm-token' }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(TOKEN);

    const surfaces = await runJson<{ items: { surface_id: string; status: string }[] }>(
      ['integration-ops', 'surfaces'],
      viaDaemon(alice),
    );
    expect(Object.keys(surfaces)).toEqual(['items', 'next_cursor']);
    expect(surfaces.items).toEqual([expect.objectContaining({ surface_id: 'crm', status: 'active' })]);

    ds.handle((c, res) => res.writeHead(c.headers.authorization === `Bearer ${TOKEN}` ? 200 : 401).end('{}'));
    const check = await runJson<{ answer: string; live_vendor_verification: boolean }>(
      ['integration-ops', 'check', '--surface', 'crm'],
      viaDaemon(alice),
    );
    expect(check).toMatchObject({ answer: 'reachable', live_vendor_verification: false });
    expect(ds.calls.at(-1)).toMatchObject({ method: 'GET', url: '/health' });

    const agentTries = await runSvc(
      ['integration-ops', 'revoke', '--surface', 'crm', '--json'],
      viaDaemon(bot),
    );
    expect(agentTries.code).toBe(5);

    const revoked = await runJson<{ status: string }>(
      ['integration-ops', 'revoke', '--surface', 'crm'],
      viaDaemon(alice),
    );
    expect(revoked.status).toBe('revoked');
    const refused = await broker('while-revoked');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'surface_unavailable' });

    const next = await svcWithInput(['secret', 'set', ...t, '--name', 'crm-next'], NEXT, env);
    expect(next.code, next.stderr).toBe(0);
    const rotated = await runJson<{ status: string }>(
      ['integration-ops', 'rotate', '--surface', 'crm', '--credential-ref', 'secret:crm-next'],
      viaDaemon(alice),
    );
    expect(rotated.status).toBe('active');
    ds.handle((c, res) =>
      res.writeHead(201).end(JSON.stringify({ id: 'c-77', auth: c.headers.authorization })),
    );
    const ok = await broker('after-rotation');
    expect(ok.body).toMatchObject({
      decision: 'allowed',
      provider: { outcome: 'succeeded', status: 201, effect_id: 'c-77' },
    });
    expect(ds.calls.at(-1)!.headers.authorization).toBe(`Bearer ${NEXT}`);
    expect(JSON.stringify(ok.body)).not.toContain(NEXT);

    const deleted = await runJson(['secret', 'delete', ...t, '--name', 'crm-token'], env);
    expect(deleted).toMatchObject({ deleted: true });
    expect((await runSvc(['secret', 'delete', ...t, '--name', 'crm-token', '--json'], env)).code).toBe(3);
  });

  it('an approver sees the params a brokered refund hides behind its intent, in JSON and as text', async () => {
    const deferred = await call(`${daemon.url}/v1/brokered`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${bot}` },
      body: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'pay.refund',
        action: 'write',
        task_id: 'refunds',
        effect_key_step: 'refund-42',
        amount_usd: 0.01,
        intent: 'refund 1 cent to customer 42',
        params: { amount_cents: 99999999, destination: 'acct-mallory' },
      },
    });
    expect(deferred.status).toBe(202);
    const id = (deferred.body.approval as { approval_id: string }).approval_id;
    const calls = ds.calls.length;

    const json = await runJson<Record<string, unknown>>(['approvals', 'show', id], viaDaemon(alice));
    expect(json).toMatchObject({
      amount_usd: 0.01,
      amount_source: 'requester_estimate',
      params: { amount_cents: 99999999, destination: 'acct-mallory' },
      provider_request: {
        method: 'POST',
        url: `${ds.url}/refunds`,
        body: '{"amount_cents":99999999,"destination":"acct-mallory"}',
      },
    });
    const text = await runSvc(['approvals', 'show', id], viaDaemon(alice));
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/amount \(requester's estimate\)\s+0\.01 USD/);
    expect(text.stdout).toMatch(/params\s+\{"amount_cents":99999999,"destination":"acct-mallory"\}/);
    expect(text.stdout).toMatch(new RegExp(`provider request\\s+POST ${ds.url}/refunds`));
    const list = await runSvc(['approvals', 'list', '--status', 'pending'], viaDaemon(alice));
    expect(list.stdout).toContain('acct-mallory');
    expect(list.stdout).toContain("0.01 (requester's estimate)");
    for (const out of [JSON.stringify(json), text.stdout, list.stdout]) expect(out).not.toContain(TOKEN);

    const denied = await runSvc(['approvals', 'deny', id], viaDaemon(alice));
    expect(denied.code, denied.stderr).toBe(0);
    expect(denied.stdout).toContain('acct-mallory');
    expect(ds.calls.length).toBe(calls);
  });

  it('a daemon killed mid-call: after restart the intent reads as outcome unknown, never re-sent, and the export verifies', async () => {
    const arrived = new Promise<void>((resolve) => ds.handle(() => resolve()));
    const before = ds.calls.length;
    const inflight = broker('crash-1').catch((err: Error) => err);
    await arrived;
    daemon.child.kill('SIGKILL');
    expect(await inflight).toBeInstanceOf(Error);

    daemon = await startDaemonProcess(['--integration-ops', ops], env);
    // The log is on stdout and "listening on" on stderr: two pipes, no order between them.
    const warned = /interrupted brokered executions recorded as outcome unknown/;
    await until(
      'the interrupted-executions warning',
      () => (warned.test(daemon.stdout()) ? true : undefined),
      () => daemon.stdout(),
    );
    const receipts = await call(`${daemon.url}/v1/receipts?task_id=t1`, {
      ca,
      headers: { authorization: `Bearer ${bot}` },
    });
    const items = receipts.body.items as {
      kind: string;
      intent_id: string;
      outcome: string;
      effect: Record<string, unknown> | null;
      reason: string;
    }[];
    const decision = items.filter((r) => r.kind === 'decision').at(-1)!;
    expect(decision.outcome).toBe('allowed');
    const execution = items.find((r) => r.kind === 'execution' && r.intent_id === decision.intent_id)!;
    expect(execution).toMatchObject({
      outcome: 'unknown',
      effect: expect.objectContaining({ error: 'interrupted' }),
    });
    expect(execution.reason).toMatch(/not sent again/);
    await new Promise((r) => setTimeout(r, 300));
    expect(ds.calls.length - before).toBe(1);
    // the same key stays claimed: a retry is a conflict, not a second call
    expect((await broker('crash-1')).status).toBe(409);
    expect(ds.calls.length - before).toBe(1);

    const file = join(tmp.path, 'acme.jsonl');
    await runJson(['export', ...t, '--out', file], env);
    const verdict = await runSvc(['verify', file, '--public-key', publicKey, '--json'], env);
    expect(verdict.code, verdict.stdout).toBe(0);
    expect(JSON.parse(verdict.stdout).result).toBe('pass');
    expect(readFileSync(file, 'utf8')).not.toContain(NEXT);
  });
});
