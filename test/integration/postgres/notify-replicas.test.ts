import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEvent } from '../../../src/core/notify/outbox.js';
import { CredentialResolver } from '../../../src/integration/credentials.js';
import { SecretBox } from '../../../src/integration/secret-box.js';
import { DeliveryLoop } from '../../../src/notify/delivery-loop.js';
import { DESTINATION_SENDERS, destinationSecrets } from '../../../src/notify/destination-senders.js';
import { DEFAULT_OUTBOUND_POLICY } from '../../../src/notify/outbound-policy.js';
import { newWebhookSecret } from '../../../src/notify/webhook-secret.js';
import { setSecret } from '../../../src/provisioning/secret.js';
import { createTenant } from '../../../src/provisioning/tenant.js';
import { DataDir } from '../../../src/store/data-dir.js';
import { pgOutbox } from '../../../src/store/postgres/outbox.js';
import { preparedTransaction } from '../../../src/store/postgres/prepared.js';
import { PgStore } from '../../../src/store/postgres/store.js';
import { freshDatabase, pgAvailable } from '../../helpers/postgres.js';
import { tmpDir } from '../../helpers/tmp.js';
import { until } from '../../helpers/until.js';

const server = await pgAvailable();

const EVENTS = 60;

/**
 * Two daemons' delivery loops, each on its own connection pool to one real PostgreSQL
 * database, claiming from one outbox at the same moments: every event reaches the receiver
 * exactly once (the lease, FOR UPDATE SKIP LOCKED), and both take part.
 */
describe.skipIf('skip' in server)('notification delivery from two PostgreSQL replicas', () => {
  const tmp = tmpDir('svc-pg-notify-');
  const now = new Date();
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  const stores: PgStore[] = [];
  let receiver: Server;
  let url: string;
  const got: string[] = [];

  beforeAll(async () => {
    fresh = await freshDatabase();
    const dir = new DataDir(tmp.path);
    stores.push(
      await PgStore.open(fresh.url, { poolSize: 3 }),
      await PgStore.open(fresh.url, { poolSize: 3 }),
    );
    const [a] = stores as [PgStore, PgStore];
    await createTenant(dir, a, { tenantId: 'acme', adminId: 'alice', now });
    // Each answer waits a little, so both loops hold leases at the same time.
    receiver = createServer((req, res) => {
      got.push(String(req.headers['webhook-id']));
      req.resume();
      req.on('end', () => setTimeout(() => res.writeHead(204).end(), 20));
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await setSecret(dir, a, { tenantId: 'acme', name: 'notify.hook', value: newWebhookSecret(), now });
    await a.notify.addDestination({
      tenantId: 'acme',
      id: 'hook',
      kind: 'webhook',
      url,
      events: ['*'],
      secretName: 'notify.hook',
      enabled: true,
      disabledReason: null,
      settings: {},
      remindAfterSeconds: null,
      escalateTo: null,
      createdAt: now.toISOString(),
    });
  });

  afterAll(async () => {
    for (const s of stores) await s.close();
    receiver?.closeAllConnections();
    await new Promise((ok) => receiver?.close(ok));
    await fresh?.drop();
    tmp.cleanup();
  });

  it('delivers each event once, shared between the replicas', async () => {
    const [a] = stores as [PgStore, PgStore];
    const ids: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const e = newEvent('acme', 'approval.requested', new Date().toISOString(), { approval_id: `apr_${i}` });
      ids.push(e.id);
      await a.db.tx((tx) => pgOutbox(tx).writeEvent(e, ['hook']));
    }
    const sent = new Map<string, number>();
    const loops = stores.map(
      (s, i) =>
        new DeliveryLoop(
          {
            repo: s.notify,
            secrets: destinationSecrets(
              new CredentialResolver(s.secrets, () => SecretBox.open(tmp.path, { create: false })),
            ),
            senders: DESTINATION_SENDERS,
            policy: { ...DEFAULT_OUTBOUND_POLICY, allowLoopbackHttp: true },
            clock: () => new Date(),
            random: Math.random,
            log: { info: () => undefined, warn: () => undefined, error: () => undefined },
            observer: {
              attempted: (_k, outcome) => sent.set(`${i}:${outcome}`, (sent.get(`${i}:${outcome}`) ?? 0) + 1),
            },
          },
          { pollMs: 20, concurrency: 4, owner: `replica-${i}` },
        ),
    );
    for (const l of loops) l.start();
    try {
      await until('every event delivered', async () =>
        (await a.notify.counts()).pending === 0 ? true : undefined,
      );
    } finally {
      for (const l of loops) await l.close();
    }
    expect(got.length).toBe(EVENTS);
    expect([...got].sort()).toEqual([...ids].sort());
    // Both replicas delivered some: the outbox was shared, not taken whole by one.
    expect(sent.get('0:delivered') ?? 0).toBeGreaterThan(0);
    expect(sent.get('1:delivered') ?? 0).toBeGreaterThan(0);
    expect((sent.get('0:delivered') ?? 0) + (sent.get('1:delivered') ?? 0)).toBe(EVENTS);
  });

  it('tells the committing replica, once its transaction has committed, that it wrote an event; not a rollback, not the other replica', async () => {
    const [a, b] = stores as [PgStore, PgStore];
    const told = { a: [] as number[], b: 0 };
    const visible = async () => (await b.notify.deliveries('acme', { limit: 200 })).length;
    // What the other replica already sees when the committing one is told: the commit landed.
    const offA = a.notify.onEventsCommitted(() => void visible().then((n) => told.a.push(n)));
    const offB = b.notify.onEventsCommitted(() => (told.b += 1));
    try {
      const before = await visible();
      const one = newEvent('acme', 'approval.requested', new Date().toISOString(), { approval_id: 'apr_x' });
      await a.db.tx((tx) => pgOutbox(tx).writeEvent(one, ['hook']));
      await until('the first signal', () => (told.a.length === 1 ? true : undefined));
      expect(told.a).toEqual([before + 1]);
      // The decisions' path: a prepared transaction of the commit queue.
      const two = newEvent('acme', 'approval.requested', new Date().toISOString(), { approval_id: 'apr_y' });
      await preparedTransaction(a.db.pool, (tx) => pgOutbox(tx).writeEvent(two, ['hook']), a.db.outbox);
      await until('the second signal', () => (told.a.length === 2 ? true : undefined));
      expect(told.a).toEqual([before + 1, before + 2]);
      // Rolled back: nothing committed, nobody told (a write that follows is, once).
      const three = newEvent('acme', 'approval.requested', new Date().toISOString(), {
        approval_id: 'apr_z',
      });
      await expect(
        a.db.tx(async (tx) => {
          await pgOutbox(tx).writeEvent(three, ['hook']);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await a.db.tx((tx) =>
        pgOutbox(tx).writeEvent(
          newEvent('acme', 'approval.requested', new Date().toISOString(), { approval_id: 'apr_w' }),
          ['hook'],
        ),
      );
      await until('the third signal', () => (told.a.length === 3 ? true : undefined));
      expect(told.a).toEqual([before + 1, before + 2, before + 3]);
      expect(told.b).toBe(0);
    } finally {
      offA();
      offB();
    }
  });
});
