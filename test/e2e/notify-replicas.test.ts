import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

const server = await pgAvailable();
if ('skip' in server) console.warn(`notify replicas e2e skipped: ${server.skip}`);

const DECISIONS = 40;
const APPROVALS = 12;

/**
 * Two built daemons on one PostgreSQL database, one webhook destination subscribed to
 * `decision.refused`: refusals made through both replicas reach the receiver once each (the
 * lease, FOR UPDATE SKIP LOCKED), and the outbox drains.
 */
describe.skipIf('skip' in server)('notification delivery from two daemon replicas on PostgreSQL', () => {
  const tmp = tmpDir('svc-e2e-notify-replicas-');
  const t = ['--tenant', 'acme'];
  const daemons: DaemonProcess[] = [];
  let env: Record<string, string>;
  let database: { url: string; drop(): Promise<void> };
  let ca: Buffer;
  let bot: string;
  const ids: string[] = [];
  /** `approval.reminder` events received: [path, approval id, webhook id] */
  const reminders: [string, string, string][] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const e = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        type: string;
        data: { approval_id?: string };
      };
      if (e.type === 'approval.reminder') {
        reminders.push([req.url ?? '', String(e.data.approval_id), String(req.headers['webhook-id'])]);
      } else ids.push(String(req.headers['webhook-id']));
      res.writeHead(204).end();
    });
  });

  beforeAll(async () => {
    database = await freshDatabase();
    env = { SVC_HOME: join(tmp.path, 'home'), SVC_STORE: database.url };
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    const init = await runJson<{ ca_cert: string }>(['init', ...t, '--admin', 'alice'], env);
    ca = readFileSync(init.ca_cert);
    await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
    await runJson(
      ['capability', 'register', ...t, '--name', 'crm.notes', '--actions', 'write', '--tier', '1'],
      env,
    );
    await runJson(
      [
        'capability',
        'register',
        ...t,
        '--name',
        'payments.send',
        '--actions',
        'write',
        '--tier',
        '4',
        '--irreversible',
        '--cost-usd',
        '1',
      ],
      env,
    );
    await runJson(['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'payments.send'], env);
    const policy = join(tmp.path, 'policy.cedar');
    writeFileSync(policy, 'permit (principal, action, resource);\n');
    await runJson(['policy', 'set', ...t, '--file', policy], env);
    await runJson(
      ['task', 'create', ...t, '--id', 't1', '--sponsor', 'alice', '--budget-usd', '10', '--actor', 'bot'],
      env,
    );
    bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/refusals`;
    await runJson(
      ['notify', 'add', 'refusals', ...t, '--kind', 'webhook', '--url', hook, '--events', 'decision.refused'],
      env,
    );
    const base = hook.replace(/\/refusals$/, '');
    await runJson(
      [
        'notify',
        'add',
        'oncall',
        ...t,
        '--kind',
        'webhook',
        '--url',
        `${base}/oncall`,
        '--events',
        'budget.threshold',
      ],
      env,
    );
    await runJson(
      [
        'notify',
        'add',
        'remind',
        ...t,
        '--kind',
        'webhook',
        '--url',
        `${base}/remind`,
        '--events',
        'approval.requested',
        '--remind-after',
        '5s',
        '--escalate-to',
        'oncall',
      ],
      env,
    );
    for (let i = 0; i < 2; i++) {
      daemons.push(
        await startDaemonProcess(['--notify-allow-loopback-http', '--metrics-listen', '127.0.0.1:0'], {
          ...env,
          SVC_REPLICA_ID: `replica-${i}`,
        }),
      );
    }
  });

  afterAll(async () => {
    for (const d of daemons) await d.stop();
    receiver.closeAllConnections();
    await new Promise((ok) => receiver.close(ok));
    await database?.drop();
    tmp.cleanup();
  });

  it('each refusal is delivered once, whichever replica made it and whichever delivered it', async () => {
    // bot holds no permission for crm.notes: every decision is refused, on both replicas.
    const answers = await Promise.all(
      Array.from({ length: DECISIONS }, (_, i) =>
        call(`${daemons[i % 2]!.url}/v1/action`, {
          ca,
          method: 'POST',
          headers: { authorization: `Bearer ${bot}` },
          body: {
            tenant_id: 'acme',
            actor_id: 'bot',
            capability: 'crm.notes',
            action: 'write',
            task_id: 't1',
            effect_key_step: `step-${i}`,
          },
        }),
      ),
    );
    expect(answers.map((a) => a.body.decision)).toEqual(Array(DECISIONS).fill('refused'));
    await until('every refusal delivered', () => (ids.length >= DECISIONS ? true : undefined));
    // The outbox is drained on both replicas' view, and nothing more arrives.
    const metricsOf = async (d: DaemonProcess) => {
      const url = /metrics on (\S+)/.exec(d.stderr())![1]!;
      return (await fetch(url)).text();
    };
    await until('an empty backlog', async () =>
      /^svc_notify_backlog 0$/m.test(await metricsOf(daemons[0]!)) ? true : undefined,
    );
    expect(ids).toHaveLength(DECISIONS);
    expect(new Set(ids).size).toBe(DECISIONS);
    const delivered = await Promise.all(
      daemons.map(async (d) => {
        const m = /svc_notify_deliveries_total\{kind="webhook",outcome="delivered"\} (\d+)/.exec(
          await metricsOf(d),
        );
        return Number(m?.[1] ?? 0);
      }),
    );
    expect(delivered[0]! + delivered[1]!).toBe(DECISIONS);
  });

  it('each pending approval is reminded once, and escalated once, though both replicas sweep', async () => {
    const deferred = await Promise.all(
      Array.from({ length: APPROVALS }, (_, i) =>
        call(`${daemons[i % 2]!.url}/v1/action`, {
          ca,
          method: 'POST',
          headers: { authorization: `Bearer ${bot}` },
          body: {
            tenant_id: 'acme',
            actor_id: 'bot',
            capability: 'payments.send',
            action: 'write',
            task_id: 't1',
            effect_key_step: `pay-${i}`,
            amount_usd: 0.1,
          },
        }),
      ),
    );
    expect(deferred.map((d) => d.status)).toEqual(Array(APPROVALS).fill(202));
    const approvals = deferred.map((d) => (d.body.approval as { approval_id: string }).approval_id).sort();
    const at = (path: string) =>
      reminders
        .filter((r) => r[0] === path)
        .map((r) => r[1])
        .sort();
    await until('every reminder and escalation delivered', () =>
      at('/remind').length >= APPROVALS && at('/oncall').length >= APPROVALS ? true : undefined,
    );
    // Drained: nothing pending in the outbox, which holds one reminder per (approval, destination).
    await until('an empty outbox', async () => {
      const p = await runJson<{ items: unknown[] }>(
        ['notify', 'deliveries', ...t, '--state', 'pending'],
        env,
      );
      return p.items.length === 0 ? true : undefined;
    });
    expect(at('/remind')).toEqual(approvals);
    expect(at('/oncall')).toEqual(approvals);
    const all = await runJson<{ items: { event_type: string }[] }>(
      ['notify', 'deliveries', ...t, '--limit', '200'],
      env,
    );
    expect(all.items.filter((d) => d.event_type === 'approval.reminder')).toHaveLength(2 * APPROVALS);
  });
});
