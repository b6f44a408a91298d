import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newEvent } from '../../src/core/notify/outbox.js';
import { startDaemon, type RunningDaemon } from '../../src/daemon/server.js';
import { newWebhookSecret } from '../../src/notify/webhook-secret.js';
import { setSecret } from '../../src/provisioning/secret.js';
import { sqliteOutbox } from '../../src/store/sqlite/outbox.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { webhookConformance } from '../helpers/openapi-conformance.js';
import { until } from '../helpers/until.js';
import { Seed } from '../helpers/seed.js';

/**
 * The daemon runs the delivery loop with its flags, counts it in /readyz and /metrics
 * (counts only: never a URL or a tenant), and waits for a send in flight when it stops.
 */
let f: Fixture;
let daemon: RunningDaemon | undefined;
let server: ReturnType<typeof createServer>;
let url: string;
let answer: (res: ServerResponse) => void;
const ids: string[] = [];

beforeEach(async () => {
  f = await fixture();
  ids.length = 0;
  answer = (res) => res.writeHead(500).end();
  server = createServer((req, res) => {
    ids.push(String(req.headers['webhook-id']));
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/private-receiver-path`;
  for (const id of ['dead-hook', 'gone-hook']) {
    await setSecret(f.dir, f.store, {
      tenantId: 'acme',
      name: `notify.${id}`,
      value: newWebhookSecret(),
      now: f.now.value,
    });
    await f.store.notify.addDestination({
      tenantId: 'acme',
      id,
      kind: 'webhook',
      url: id === 'gone-hook' ? `${url}/gone` : url,
      events: ['*'],
      secretName: `notify.${id}`,
      enabled: true,
      disabledReason: null,
      settings: {},
      remindAfterSeconds: null,
      escalateTo: null,
      createdAt: f.now.value.toISOString(),
    });
  }
});

afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
  await f.close();
});

function enqueue(to: string[]): string {
  const event = newEvent('acme', 'approval.requested', new Date().toISOString(), { approval_id: 'apr_1' });
  f.store.db.transaction(() => sqliteOutbox(f.store.db).writeEvent(event, to))();
  return event.id;
}

const start = (notify: Parameters<typeof startDaemon>[0]['notify']) =>
  startDaemon({
    dataDir: f.dir.root,
    listen: '127.0.0.1:0',
    allowInsecureHttp: true,
    logger: false,
    metrics: { listen: '127.0.0.1:0' },
    notify,
  });

describe('notifications in the daemon', () => {
  it('refuses http to loopback unless --notify-allow-loopback-http: the delivery is retried as refused', async () => {
    const id = enqueue(['dead-hook']);
    daemon = await start({ retrySpeedup: 1 });
    const d = await until('the refused attempt', async () => {
      const [r] = await f.store.notify.deliveries('acme', { limit: 5 });
      return r && r.attempts > 0 ? r : undefined;
    });
    expect(d).toMatchObject({ eventId: id, state: 'pending', lastStatus: null });
    expect(d.lastError).toBeTruthy();
    expect(ids).toEqual([]);
    const metrics = await (await fetch(daemon.metricsUrl!)).text();
    expect(metrics).toMatch(/svc_notify_deliveries_total\{kind="webhook",outcome="refused"\} 1/);
  });

  it('counts pending, dead and disabled in /readyz and /metrics, without URLs or tenants', async () => {
    answer = (res) => res.writeHead(500).end();
    const dead = enqueue(['dead-hook']);
    daemon = await start({ allowLoopbackHttp: true, retrySpeedup: 1_000_000 });
    await until('the dead letter', async () =>
      (await f.store.notify.counts()).dead === 1 ? true : undefined,
    );
    expect(ids.every((i) => i === dead)).toBe(true);
    answer = (res) => res.writeHead(410).end();
    enqueue(['gone-hook']);
    await until('the 410', async () => ((await f.store.notify.counts()).disabled === 1 ? true : undefined));
    const ready = await fetch(`${daemon.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { details: { notifications: unknown } };
    expect(body.details.notifications).toEqual({ pending: 0, dead: 1, disabled_destinations: 1 });
    const text = JSON.stringify(body);
    for (const never of ['private-receiver-path', '127.0.0.1', 'acme', 'hook'])
      expect(text).not.toContain(never);

    const metrics = await (await fetch(daemon.metricsUrl!)).text();
    expect(metrics).toMatch(/^svc_notify_backlog 0$/m);
    expect(metrics).toMatch(/^svc_notify_dead_letters 1$/m);
    expect(metrics).toMatch(/svc_notify_deliveries_total\{kind="webhook",outcome="retry"\} 7/);
    expect(metrics).toMatch(/svc_notify_deliveries_total\{kind="webhook",outcome="dead"\} 1/);
    expect(metrics).toMatch(/svc_notify_deliveries_total\{kind="webhook",outcome="gone"\} 1/);
    expect(metrics).toMatch(/svc_notify_failures_total\{kind="webhook",error="status_500"\} 8/);
    expect(metrics).not.toContain('private-receiver-path');
  });

  it('wakes its loop when it commits an event: a refused decision is delivered long before the next poll', async () => {
    answer = (res) => res.writeHead(204).end();
    // The fixture's clock is months behind the daemon's: a token that outlives both.
    const bot = await f.token('acme', 'bot', 3 * 365 * 86_400_000);
    // An hour between polls: only the wake-up after the decision's commit can send it now.
    daemon = await start({ allowLoopbackHttp: true, pollMs: 3_600_000 });
    const res = await fetch(`${daemon.url}/v1/action`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'crm.write',
        action: 'write',
        task_id: 't1',
        effect_key_step: 'wake-1',
      }),
    });
    expect(res.status).toBe(403);
    await until('the refusal at the receiver', () => (ids.length >= 2 ? true : undefined), undefined, 20_000);
    const delivered = await f.store.notify.deliveries('acme', { limit: 5 });
    expect(delivered.map((d) => [d.eventType, d.state])).toEqual([
      ['decision.refused', 'delivered'],
      ['decision.refused', 'delivered'],
    ]);
    expect(new Set(ids)).toEqual(new Set([delivered[0]!.eventId]));
  });

  it('a pending delivery counts in the backlog; stopping waits for the send in flight and records it', async () => {
    let release: () => void = () => undefined;
    answer = (res) => (release = () => res.writeHead(200).end());
    const id = enqueue(['dead-hook']);
    daemon = await start({ allowLoopbackHttp: true, timeoutMs: 10_000 });
    await until('the send in flight', () => (ids.length === 1 ? true : undefined));
    const metrics = await (await fetch(daemon.metricsUrl!)).text();
    expect(metrics).toMatch(/^svc_notify_backlog 1$/m);
    const stopped = daemon.close();
    daemon = undefined;
    let done = false;
    void stopped.then(() => (done = true));
    // The store stays open until the answer arrives and is recorded.
    await new Promise((r) => setTimeout(r, 300));
    expect(done).toBe(false);
    release();
    await stopped;
    const [d] = await f.store.notify.deliveries('acme', { limit: 5 });
    expect(d).toMatchObject({ eventId: id, state: 'delivered', attempts: 1 });
  });

  it('announces an approval that expired pending (approval.expired) and an anchor the timestamp authority did not attest (attestation.failed)', async () => {
    const bodies: { id: string; type: string; data: Record<string, unknown> }[] = [];
    // Every destination here points at this receiver: it records what arrives, by event id.
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c.toString()));
      req.on('end', () => {
        const e = JSON.parse(b) as { type: string; data: Record<string, unknown> };
        bodies.push({ id: String(req.headers['webhook-id']), ...e });
        res.writeHead(204).end();
      });
    });
    await setSecret(f.dir, f.store, {
      tenantId: 'acme',
      name: 'notify.ops',
      value: newWebhookSecret(),
      now: f.now.value,
    });
    await f.store.notify.addDestination({
      tenantId: 'acme',
      id: 'ops',
      kind: 'webhook',
      url,
      events: ['approval.expired', 'attestation.failed'],
      secretName: 'notify.ops',
      enabled: true,
      disabledReason: null,
      settings: {},
      remindAfterSeconds: null,
      escalateTo: null,
      createdAt: f.now.value.toISOString(),
    });
    // A deferral an hour ago whose approval lived one second: expired, never announced.
    const seed = new Seed(f.store.db, () => new Date(Date.now() - 3_600_000));
    seed.capability('acme', 'pay.send', { irreversible: true });
    seed.task('acme', 't1', { sponsor: 'alice', status: 'active', actors: ['bot'] });
    const { approvalId } = seed.decision('acme', {
      taskId: 't1',
      actorId: 'bot',
      capability: 'pay.send',
      outcome: 'deferred',
      approvalTtlMs: 1000,
    });
    // Nothing listens there: the timestamp of the first anchor fails.
    const closed = createServer();
    await new Promise<void>((ok) => closed.listen(0, '127.0.0.1', ok));
    const tsaUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/tsa`;
    await new Promise((ok) => closed.close(ok));
    daemon = await startDaemon({
      dataDir: f.dir.root,
      listen: '127.0.0.1:0',
      allowInsecureHttp: true,
      logger: false,
      anchorEntries: 1,
      tsaUrl,
      notify: { allowLoopbackHttp: true, retrySpeedup: 1000 },
    });
    await until('both events', () =>
      bodies.some((b) => b.type === 'approval.expired') && bodies.some((b) => b.type === 'attestation.failed')
        ? true
        : undefined,
    );
    expect(bodies.find((b) => b.type === 'approval.expired')!.data).toMatchObject({
      tenant_id: 'acme',
      approval_id: approvalId,
    });
    const failed = bodies.find((b) => b.type === 'attestation.failed')!;
    expect(failed.data).toEqual({
      tenant_id: 'acme',
      tree_size: 1,
      attestation: 'timestamp',
      witness_id: null,
      reason: 'unreachable',
    });
    // The payload names no URL or error text.
    expect(JSON.stringify(failed)).not.toContain('127.0.0.1');
    // What arrived is what the OpenAPI document's `webhooks` entries describe.
    const documented = await webhookConformance();
    for (const { id: _id, ...envelope } of bodies) expect(documented.checkWebhook(envelope)).toBeUndefined();
    // Announced once, however many sweeps ran.
    expect(new Set(bodies.filter((b) => b.type === 'approval.expired').map((b) => b.id)).size).toBe(1);
  });
});
