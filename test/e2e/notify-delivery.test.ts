import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';
import { provisionRefunds } from '../helpers/refund-tenant.js';

interface Received {
  path: string;
  id: string;
  headers: Record<string, string>;
  body: string;
}

type Event = { type: string; timestamp: string; data: Record<string, unknown> };

/**
 * Notification delivery over the built binary: the daemon over TLS, webhook receivers on
 * loopback, destinations provisioned with the CLI. A deferred refund reaches the receiver as
 * `approval.requested` (verified with the independent standardwebhooks package), the approval
 * as `approval.decided`; a SIGKILL mid-delivery loses nothing and the event keeps its id; an
 * always-500 receiver ends in a dead letter that `svc notify redeliver` sends again.
 */
describe('notification delivery end to end (built binary, TLS, loopback receivers)', () => {
  const tmp = tmpDir('svc-e2e-notify-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  let daemon: DaemonProcess | undefined;
  let ca: Buffer;
  let bot: string;
  let bob: string;
  const got: Received[] = [];
  /** how each path answers; a path not listed answers 204 */
  const answers = new Map<string, (res: ServerResponse) => void>();
  let base: string;
  const secrets: Record<string, string> = {};
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      got.push({
        path,
        id: String(req.headers['webhook-id']),
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      (answers.get(path) ?? ((r: ServerResponse) => r.writeHead(204).end()))(res);
    });
  });
  const svc = <T = Record<string, unknown>>(args: string[]) => runJson<T>(args, env);
  const startDaemon = async () => {
    daemon = await startDaemonProcess(
      ['--notify-allow-loopback-http', '--notify-timeout', '1s', '--notify-retry-speedup', '100000'],
      env,
    );
  };
  const refund = (step: string, route = '/v1/action') =>
    call(`${daemon!.url}${route}`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${bot}` },
      body: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'refunds.issue',
        action: 'write',
        task_id: 't1',
        effect_key_step: step,
        amount_usd: 40,
        intent: `refund order ${step}`,
      },
    });
  const verified = (r: Received): Event =>
    new Webhook(secrets[r.path.slice(1)]!).verify(r.body, r.headers) as Event;
  const arrived = (path: string, type: string, approvalId: string) =>
    until(
      `${type} for ${approvalId} at ${path}`,
      () =>
        got.find((r) => {
          if (r.path !== path) return false;
          const e = JSON.parse(r.body) as Event;
          return e.type === type && e.data.approval_id === approvalId;
        }),
      () => daemon?.stderr() ?? '',
    );
  const addHook = async (id: string, events: string) => {
    const r = await svc<{ secret: string }>([
      'notify',
      'add',
      id,
      ...t,
      '--kind',
      'webhook',
      '--url',
      `${base}/${id}`,
      '--events',
      events,
    ]);
    secrets[id] = r.secret;
  };

  beforeAll(async () => {
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const init = await runJson<{ ca_cert: string }>(['init', ...t, '--admin', 'alice'], env);
    ca = readFileSync(init.ca_cert);
    await svc(['actor', 'add', ...t, '--id', 'bob', '--kind', 'human', '--role', 'approver']);
    bot = await provisionRefunds(env, { tenant: 'acme', sponsor: 'alice', dir: tmp.path });
    bob = (await svc<{ token: string }>(['token', 'issue', ...t, '--actor', 'bob'])).token;
    await addHook('hook', 'approval.*');
    await startDaemon();
  });

  afterAll(async () => {
    await daemon?.stop();
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
    tmp.cleanup();
  });

  it('a deferred refund reaches the receiver signed; approving it sends approval.decided; the resume is allowed', async () => {
    const deferred = await refund('rt-1');
    expect(deferred.status).toBe(202);
    const approvalId = (deferred.body.approval as { approval_id: string }).approval_id;
    const requested = await arrived('/hook', 'approval.requested', approvalId);
    const e = verified(requested);
    expect(e.data).toMatchObject({ tenant_id: 'acme', approval_id: approvalId });
    expect(requested.id).toMatch(/^evt_/);
    // One byte changed and the independent verifier refuses it.
    expect(() =>
      new Webhook(secrets.hook!).verify(requested.body.replace('acme', 'acmf'), requested.headers),
    ).toThrow();

    const approved = await runSvc(['approvals', 'approve', approvalId, '--json'], { ...env, SVC_TOKEN: bob });
    expect(approved.code).toBe(0);
    const decided = await arrived('/hook', 'approval.decided', approvalId);
    expect(verified(decided).data).toMatchObject({ approval_id: approvalId, decided_by: 'bob' });
    expect(decided.id).not.toBe(requested.id);

    const resumed = await refund('rt-1', '/v1/action/resume');
    expect(resumed.status).toBe(200);
    expect(resumed.body.decision).toBe('allowed');
  });

  it('SIGKILL while the receiver holds the request: after a restart the event arrives again with the same id', async () => {
    let held = 0;
    answers.set('/hook', () => void held++); // never answers
    const deferred = await refund('kill-1');
    expect(deferred.status).toBe(202);
    const approvalId = (deferred.body.approval as { approval_id: string }).approval_id;
    const first = await arrived('/hook', 'approval.requested', approvalId);
    daemon!.child.kill('SIGKILL');
    await new Promise((ok) => daemon!.child.once('close', ok));
    answers.delete('/hook');
    const before = got.length;
    await startDaemon();
    const again = await until(
      'the redelivery after restart',
      () => got.slice(before).find((r) => r.id === first.id),
      () => daemon?.stderr() ?? '',
    );
    expect(verified(again).data).toMatchObject({ approval_id: approvalId });
    await until('the delivery recorded', async () => {
      const l = await svc<{ items: { event_id: string; state: string }[] }>([
        'notify',
        'deliveries',
        ...t,
        '--destination',
        'hook',
      ]);
      return l.items.find((d) => d.event_id === first.id)?.state === 'delivered' ? true : undefined;
    });
  });

  it('an always-500 receiver ends in a dead letter; svc notify redeliver sends it again with the same id', async () => {
    await addHook('down', 'approval.requested');
    answers.set('/down', (res) => res.writeHead(500).end('stack trace the daemon must not keep'));
    const deferred = await refund('dead-1');
    const approvalId = (deferred.body.approval as { approval_id: string }).approval_id;
    const first = await arrived('/down', 'approval.requested', approvalId);
    const dead = await until('the dead letter', async () => {
      const l = await svc<{
        items: { event_id: string; state: string; attempts: number; last_error: string }[];
      }>(['notify', 'deliveries', ...t, '--state', 'dead', '--destination', 'down']);
      return l.items.find((d) => d.event_id === first.id);
    });
    expect(dead).toMatchObject({ attempts: 8, last_error: 'status_500' });
    expect(got.filter((r) => r.path === '/down' && r.id === first.id)).toHaveLength(8);
    const table = await runSvc(['notify', 'deliveries', ...t, '--state', 'dead'], env);
    expect(table.stdout).not.toContain('stack trace');

    answers.delete('/down');
    const r = await svc(['notify', 'redeliver', first.id, '--destination', 'down', ...t]);
    expect(r).toMatchObject({ event_id: first.id, destination_id: 'down', state: 'pending' });
    await until('the redelivery', () =>
      got.filter((g) => g.path === '/down' && g.id === first.id).length === 9 ? true : undefined,
    );
    const missing = await runSvc(
      ['notify', 'redeliver', 'evt_nope', '--destination', 'down', ...t, '--json'],
      env,
    );
    expect(missing.code).toBe(3);
  });

  it('svc notify test sends one signed test event straight from the CLI, and honours the outbound rules', async () => {
    const refused = await runSvc(['notify', 'test', 'hook', ...t, '--json'], env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ outcome: 'refused' });
    const before = got.length;
    const ok = await runJson<{ outcome: string; status: number; event_id: string; event_type: string }>(
      ['notify', 'test', 'hook', ...t, '--notify-allow-loopback-http'],
      env,
    );
    expect(ok).toMatchObject({ outcome: 'delivered', status: 204, event_type: 'approval.requested' });
    const sent = got.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.id).toBe(ok.event_id);
    expect(verified(sent[0]!).data).toEqual({ tenant_id: 'acme', test: true, destination_id: 'hook' });
  });
});
