import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { newEvent } from '../../src/core/notify/outbox.js';
import { MAX_ATTEMPTS } from '../../src/core/notify/retry-schedule.js';
import { CredentialResolver } from '../../src/integration/credentials.js';
import { SecretBox } from '../../src/integration/secret-box.js';
import { DeliveryLoop, type DeliveryObserver } from '../../src/notify/delivery-loop.js';
import { DESTINATION_SENDERS, destinationSecrets } from '../../src/notify/destination-senders.js';
import { DEFAULT_OUTBOUND_POLICY } from '../../src/notify/outbound-policy.js';
import { newWebhookSecret } from '../../src/notify/webhook-secret.js';
import { setSecret } from '../../src/provisioning/secret.js';
import { sqliteOutbox } from '../../src/store/sqlite/outbox.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { until } from '../helpers/until.js';

/** A webhook receiver on loopback: records every request, answers as `answer` says. */
interface Receiver {
  url: string;
  got: { headers: IncomingMessage['headers']; body: string }[];
  answer: (res: ServerResponse) => void;
  close: () => Promise<void>;
}

async function receiver(port = 0): Promise<Receiver> {
  const r: Receiver = {
    url: '',
    got: [],
    answer: (res) => res.writeHead(204).end(),
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      r.got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      r.answer(res);
    });
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  r.close = () =>
    new Promise((ok) => {
      server.closeAllConnections();
      server.close(() => ok());
    });
  return r;
}

let f: Fixture;
let rx: Receiver;
let loops: DeliveryLoop[];
const seen: { kind: string; outcome: string; error: string | null }[] = [];
const observer: DeliveryObserver = {
  attempted: (kind, outcome, error) => seen.push({ kind, outcome, error }),
};
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

beforeEach(async () => {
  f = await fixture();
  rx = await receiver();
  loops = [];
  seen.length = 0;
});

afterEach(async () => {
  for (const l of loops) await l.close();
  await rx.close();
  await f.close();
});

async function addHook(id: string, url: string, events = ['approval.*']): Promise<string> {
  const secret = newWebhookSecret();
  await setSecret(f.dir, f.store, {
    tenantId: 'acme',
    name: `notify.${id}`,
    value: secret,
    now: f.now.value,
  });
  await f.store.notify.addDestination({
    tenantId: 'acme',
    id,
    kind: 'webhook',
    url,
    events,
    secretName: `notify.${id}`,
    enabled: true,
    disabledReason: null,
    settings: {},
    remindAfterSeconds: null,
    escalateTo: null,
    createdAt: f.now.value.toISOString(),
  });
  return secret;
}

/** An event in the outbox for `to`, written through the adapter's own outbox operation. */
function enqueue(to: string[]) {
  const event = newEvent('acme', 'approval.requested', new Date().toISOString(), { approval_id: 'apr_1' });
  f.store.db.transaction(() => sqliteOutbox(f.store.db).writeEvent(event, to))();
  return event;
}

function loop(
  opts: { speedup?: number; timeoutMs?: number; owner?: string; busy?: () => boolean } = {},
): DeliveryLoop {
  const l = new DeliveryLoop(
    {
      repo: f.store.notify,
      secrets: destinationSecrets(
        new CredentialResolver(f.store.secrets, () => SecretBox.open(f.dir.root, { create: false })),
      ),
      senders: DESTINATION_SENDERS,
      policy: { ...DEFAULT_OUTBOUND_POLICY, allowLoopbackHttp: true, timeoutMs: opts.timeoutMs ?? 5000 },
      clock: () => new Date(),
      random: Math.random,
      log: quiet,
      observer,
      ...(opts.busy ? { busy: opts.busy } : {}),
    },
    { pollMs: 50, speedup: opts.speedup ?? 1_000_000, ...(opts.owner ? { owner: opts.owner } : {}) },
  );
  loops.push(l);
  return l;
}

const delivery = async (eventId: string, dest = 'hook') =>
  (await f.store.notify.deliveries('acme', { limit: 50, destinationId: dest })).find(
    (d) => d.eventId === eventId,
  );

describe('the delivery loop, against a real SQLite outbox and a real receiver', () => {
  it('sends one at a time while the daemon is answering requests, and all at once when it is not', async () => {
    await addHook('hook', rx.url);
    let open = 0;
    let most = 0;
    const held: (() => void)[] = [];
    rx.answer = (res) => {
      open += 1;
      most = Math.max(most, open);
      held.push(() => {
        open -= 1;
        res.writeHead(204).end();
      });
    };
    const release = setInterval(() => held.splice(0).forEach((answer) => answer()), 30);
    try {
      let busy = true;
      const l = loop({ busy: () => busy });
      const first = [enqueue(['hook']), enqueue(['hook']), enqueue(['hook']), enqueue(['hook'])];
      l.start();
      await until('the first four delivered', async () => {
        for (const e of first) if ((await delivery(e.id))?.state !== 'delivered') return undefined;
        return true;
      });
      expect(most).toBe(1);
      busy = false;
      most = 0;
      const later = [enqueue(['hook']), enqueue(['hook']), enqueue(['hook']), enqueue(['hook'])];
      void l.wake();
      await until('the next four delivered', async () => {
        for (const e of later) if ((await delivery(e.id))?.state !== 'delivered') return undefined;
        return true;
      });
      expect(most).toBeGreaterThan(1);
    } finally {
      clearInterval(release);
    }
  });

  it('delivers a signed event that the standardwebhooks package verifies, and records it delivered', async () => {
    const secret = await addHook('hook', rx.url);
    const event = enqueue(['hook']);
    loop().start();
    await until('the delivery recorded', async () =>
      (await delivery(event.id))?.state === 'delivered' ? true : undefined,
    );
    expect(rx.got).toHaveLength(1);
    const got = rx.got[0]!;
    expect(got.headers['webhook-id']).toBe(event.id);
    const verified = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as {
      type: string;
      data: { tenant_id: string; approval_id: string };
    };
    expect(verified.type).toBe('approval.requested');
    expect(verified.data).toMatchObject({ tenant_id: 'acme', approval_id: 'apr_1' });
    expect(() =>
      new Webhook(secret).verify(got.body.replace('apr_1', 'apr_2'), got.headers as Record<string, string>),
    ).toThrow();
    expect(seen).toEqual([{ kind: 'webhook', outcome: 'delivered', error: null }]);
    expect((await f.store.notify.counts()).pending).toBe(0);
  });

  it('claims and sends nothing until the commits so far are durable (Store.durable)', async () => {
    await addHook('hook', rx.url);
    const event = enqueue(['hook']);
    let asked = 0;
    let release: () => void = () => undefined;
    const synced = new Promise<void>((ok) => (release = ok));
    const l = new DeliveryLoop(
      {
        repo: f.store.notify,
        durable: () => {
          asked += 1;
          return synced;
        },
        secrets: destinationSecrets(
          new CredentialResolver(f.store.secrets, () => SecretBox.open(f.dir.root, { create: false })),
        ),
        senders: DESTINATION_SENDERS,
        policy: { ...DEFAULT_OUTBOUND_POLICY, allowLoopbackHttp: true },
        clock: () => new Date(),
        random: Math.random,
        log: quiet,
      },
      { pollMs: 20 },
    );
    loops.push(l);
    l.start();
    try {
      // The first look waits on the fsync; the polls meanwhile join it (ten of them here).
      await until('a look waiting on durability', () => (asked >= 1 ? true : undefined));
      await new Promise((r) => setTimeout(r, 200));
      expect(rx.got).toHaveLength(0);
      expect((await delivery(event.id))?.attempts).toBe(0);
    } finally {
      release();
    }
    await until('the delivery once durable', async () =>
      (await delivery(event.id))?.state === 'delivered' ? true : undefined,
    );
    expect(rx.got).toHaveLength(1);
  });

  it('retries an always-500 receiver on the schedule with the same event id, then dead-letters it; redeliver sends it again', async () => {
    await addHook('hook', rx.url);
    rx.answer = (res) => res.writeHead(500).end('internal detail that must not be kept');
    const event = enqueue(['hook']);
    const l = loop();
    l.start();
    const dead = await until('the dead letter', async () => {
      const d = await delivery(event.id);
      return d?.state === 'dead' ? d : undefined;
    });
    expect(dead.attempts).toBe(MAX_ATTEMPTS);
    expect(dead.lastStatus).toBe(500);
    expect(dead.lastError).toBe('status_500');
    expect(rx.got).toHaveLength(MAX_ATTEMPTS);
    expect(new Set(rx.got.map((g) => g.headers['webhook-id']))).toEqual(new Set([event.id]));
    expect(seen.filter((s) => s.outcome === 'retry')).toHaveLength(MAX_ATTEMPTS - 1);
    expect(seen.at(-1)).toEqual({ kind: 'webhook', outcome: 'dead', error: 'status_500' });
    expect(await f.store.notify.counts()).toMatchObject({ pending: 0, dead: 1 });

    rx.answer = (res) => res.writeHead(200).end();
    expect(await f.store.notify.redeliver('acme', event.id, 'hook', new Date().toISOString())).toBe(true);
    await until('the redelivery', async () =>
      (await delivery(event.id))?.state === 'delivered' ? true : undefined,
    );
    expect(rx.got).toHaveLength(MAX_ATTEMPTS + 1);
    expect(rx.got.at(-1)!.headers['webhook-id']).toBe(event.id);
  });

  it('a receiver down for a while gets the event once it is back', async () => {
    await addHook('hook', rx.url);
    const port = new URL(rx.url).port;
    await rx.close();
    const event = enqueue(['hook']);
    // Slow enough that the early attempts fail against the closed port before it reopens.
    loop({ speedup: 20_000 }).start();
    await until('two failed attempts', async () =>
      (await delivery(event.id))!.attempts >= 2 ? true : undefined,
    );
    expect((await delivery(event.id))!.lastError).toBe('connect');
    const again = await receiver(Number(port));
    try {
      await until('the delivery after recovery', async () =>
        (await delivery(event.id))?.state === 'delivered' ? true : undefined,
      );
      expect(again.got.map((g) => g.headers['webhook-id'])).toEqual([event.id]);
    } finally {
      await again.close();
    }
  });

  it('410 Gone disables the destination and is recorded as gone, not retried', async () => {
    await addHook('hook', rx.url);
    rx.answer = (res) => res.writeHead(410).end();
    const first = enqueue(['hook']);
    loop().start();
    await until('the 410', async () => ((await delivery(first.id))?.state !== 'pending' ? true : undefined));
    const dest = await f.store.notify.destination('acme', 'hook');
    expect(dest?.enabled).toBe(false);
    expect(dest?.disabledReason).toMatch(/410/);
    expect(seen).toEqual([{ kind: 'webhook', outcome: 'gone', error: 'gone' }]);
    expect((await f.store.notify.counts()).disabled).toBe(1);
  });

  it('a receiver that never answers is cut at the time-out and retried', async () => {
    await addHook('hook', rx.url);
    rx.answer = () => undefined;
    const event = enqueue(['hook']);
    loop({ timeoutMs: 1000, speedup: 1 }).start();
    const d = await until('the timed-out attempt', async () => {
      const r = await delivery(event.id);
      return r && r.attempts === 1 ? r : undefined;
    });
    expect(d.state).toBe('pending');
    expect(d.lastError).toBe('timeout');
    expect(d.lastStatus).toBeNull();
  });

  it('close waits for the send in flight and records it; a second owner cannot claim it meanwhile', async () => {
    await addHook('hook', rx.url);
    let release: () => void = () => undefined;
    rx.answer = (res) => (release = () => res.writeHead(200).end());
    const event = enqueue(['hook']);
    const a = loop({ owner: 'daemon-a' });
    a.start();
    await until('the request in flight', () => (rx.got.length === 1 ? true : undefined));
    // Another daemon looks while the lease is held: it gets nothing.
    const b = loop({ owner: 'daemon-b' });
    await b.wake();
    expect(b.sending).toBe(0);
    const closed = a.close();
    expect(a.sending).toBe(1);
    release();
    await closed;
    expect((await delivery(event.id))?.state).toBe('delivered');
    expect(rx.got).toHaveLength(1);
  });

  it('a lost lease drops the outcome instead of overwriting the new owner’s record', async () => {
    await addHook('hook', rx.url);
    let release: () => void = () => undefined;
    rx.answer = (res) => (release = () => res.writeHead(200).end());
    const event = enqueue(['hook']);
    const a = loop({ owner: 'daemon-a' });
    await a.wake();
    await until('the request in flight', () => (rx.got.length === 1 ? true : undefined));
    // The lease runs out (as if daemon-a stalled past it): daemon-b claims and records a retry.
    const later = new Date(Date.now() + a.leaseMs + 1000).toISOString();
    const claimed = await f.store.notify.claimDue(
      later,
      'daemon-b',
      new Date(Date.now() + 10 * a.leaseMs).toISOString(),
      5,
    );
    expect(claimed.map((c) => c.event.id)).toEqual([event.id]);
    expect(
      await f.store.notify.recordAttempt({
        tenantId: 'acme',
        eventId: event.id,
        destinationId: 'hook',
        owner: 'daemon-b',
        at: later,
        outcome: 'retry',
        status: 503,
        error: 'status_503',
        nextAttemptAt: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    ).toBe(true);
    release();
    await a.close();
    const d = await delivery(event.id);
    expect(d).toMatchObject({ state: 'pending', lastError: 'status_503', attempts: 1 });
    expect(seen).toEqual([]);
  });

  it('a destination whose secret cannot be opened is retried as secret_unavailable, and nothing unsigned is sent', async () => {
    await addHook('hook', rx.url);
    expect(await f.store.secrets.delete('acme', 'notify.hook')).toBe(true);
    const event = enqueue(['hook']);
    loop({ speedup: 1 }).start();
    const d = await until('the failed attempt', async () => {
      const r = await delivery(event.id);
      return r && r.attempts === 1 ? r : undefined;
    });
    expect(d).toMatchObject({ state: 'pending', lastError: 'secret_unavailable', lastStatus: null });
    expect(rx.got).toHaveLength(0);
  });
});
