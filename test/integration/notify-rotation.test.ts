import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newEvent } from '../../src/core/notify/outbox.js';
import { CredentialResolver } from '../../src/integration/credentials.js';
import { SecretBox } from '../../src/integration/secret-box.js';
import { destinationSecrets } from '../../src/notify/destination-senders.js';
import { DEFAULT_OUTBOUND_POLICY } from '../../src/notify/outbound-policy.js';
import { sendWebhook } from '../../src/notify/webhook-sender.js';
import { addDestination } from '../../src/provisioning/notify.js';
import { rotateDestinationSecret } from '../../src/provisioning/notify-rotation.js';
import { fixture, type Fixture } from '../helpers/fixture.js';

/**
 * A webhook secret rotated: for 24 hours every delivery is signed with the new and the old
 * secret, so a receiver (the standardwebhooks package) verifying with either passes; after
 * that only the new one verifies. The clock that opens the secrets is the test's.
 */
const HOUR = 3_600_000;
let f: Fixture;
let server: ReturnType<typeof createServer>;
let url: string;
const got: { headers: IncomingMessage['headers']; body: string }[] = [];

beforeEach(async () => {
  f = await fixture();
  got.length = 0;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
  await f.close();
});

describe('svc notify rotate', () => {
  it('signs with the old and the new webhook secret for 24 hours, then with the new one only', async () => {
    const t0 = new Date('2026-11-27T00:00:00.000Z');
    const added = await addDestination(f.dir, f.store, {
      tenantId: 'acme',
      id: 'hook',
      kind: 'webhook',
      url,
      events: ['*'],
      now: t0,
    });
    const old = added.secret!;
    const rotatedAt = new Date(t0.getTime() + HOUR);
    const rotated = await rotateDestinationSecret(f.dir, f.store, {
      tenantId: 'acme',
      id: 'hook',
      now: rotatedAt,
    });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(old);
    expect(rotated.previous_valid_until).toBe(new Date(rotatedAt.getTime() + 24 * HOUR).toISOString());

    const clock = { now: rotatedAt };
    const open = destinationSecrets(
      new CredentialResolver(f.store.secrets, () => SecretBox.open(f.dir.root, { create: false })),
      () => clock.now,
    );
    const dest = (await f.store.notify.destination('acme', 'hook'))!;
    const deliver = async () => {
      const e = newEvent('acme', 'approval.requested', new Date().toISOString(), { approval_id: 'apr_1' });
      // Signed now (the receiver's tolerance is real time); the secrets are those of the test's clock.
      const out = await sendWebhook(
        { url, secrets: await open(dest) },
        e,
        { ...DEFAULT_OUTBOUND_POLICY, allowLoopbackHttp: true },
        new Date(),
      );
      expect(out).toMatchObject({ kind: 'delivered', status: 204 });
      const r = got.at(-1)!;
      const headers = r.headers as Record<string, string>;
      const verifies = (secret: string) => {
        try {
          new Webhook(secret).verify(r.body, headers);
          return true;
        } catch {
          return false;
        }
      };
      return { old: verifies(old), new: verifies(rotated.secret!) };
    };

    expect(await deliver()).toEqual({ old: true, new: true });
    clock.now = new Date(rotatedAt.getTime() + 24 * HOUR - 1000);
    expect(await deliver()).toEqual({ old: true, new: true });
    clock.now = new Date(rotatedAt.getTime() + 24 * HOUR);
    expect(await deliver()).toEqual({ old: false, new: true });
    clock.now = new Date(rotatedAt.getTime() + 30 * 24 * HOUR);
    expect(await deliver()).toEqual({ old: false, new: true });
  });

  it('a second rotation within the day keeps the first secret to its own end; chat secrets are replaced at once', async () => {
    const t0 = new Date('2026-11-27T00:00:00.000Z');
    const first = (
      await addDestination(f.dir, f.store, {
        tenantId: 'acme',
        id: 'hook',
        kind: 'webhook',
        url,
        events: ['*'],
        now: t0,
      })
    ).secret!;
    const second = (await rotateDestinationSecret(f.dir, f.store, { tenantId: 'acme', id: 'hook', now: t0 }))
      .secret!;
    const t1 = new Date(t0.getTime() + 2 * HOUR);
    const third = (await rotateDestinationSecret(f.dir, f.store, { tenantId: 'acme', id: 'hook', now: t1 }))
      .secret!;
    const credentials = new CredentialResolver(f.store.secrets, () =>
      SecretBox.open(f.dir.root, { create: false }),
    );
    const dest = (await f.store.notify.destination('acme', 'hook'))!;
    const at = (ms: number) => destinationSecrets(credentials, () => new Date(ms))(dest);
    expect(await at(t1.getTime())).toEqual([third, second, first]);
    expect(await at(t0.getTime() + 24 * HOUR)).toEqual([third, second]);
    expect(await at(t1.getTime() + 24 * HOUR)).toEqual([third]);

    // A webhook secret is made by svc: one given is refused, and nothing changes.
    await expect(
      rotateDestinationSecret(f.dir, f.store, { tenantId: 'acme', id: 'hook', secret: 'whsec_x', now: t1 }),
    ).rejects.toMatchObject({ field: 'secret-file' });
    expect(await at(t1.getTime())).toEqual([third, second, first]);

    await addDestination(f.dir, f.store, {
      tenantId: 'acme',
      id: 'chat',
      kind: 'chat',
      events: ['approval.*'],
      options: { channel: 'C0123ABCD' },
      secret: 'xoxb-old-token',
      now: t0,
    });
    const chat = (await f.store.notify.destination('acme', 'chat'))!;
    await expect(
      rotateDestinationSecret(f.dir, f.store, { tenantId: 'acme', id: 'chat', now: t1 }),
    ).rejects.toMatchObject({ field: 'secret-file' });
    const r = await rotateDestinationSecret(f.dir, f.store, {
      tenantId: 'acme',
      id: 'chat',
      secret: 'xoxb-new-token\n',
      now: t1,
    });
    expect(r).toMatchObject({ kind: 'chat', secret: null, previous_valid_until: null });
    expect(await destinationSecrets(credentials)(chat)).toEqual(['xoxb-new-token']);
    await expect(
      rotateDestinationSecret(f.dir, f.store, { tenantId: 'acme', id: 'ghost', now: t1 }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
