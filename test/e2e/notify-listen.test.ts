import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../src/notify/webhook-signature.js';
import { newWebhookSecret } from '../../src/notify/webhook-secret.js';
import { runJson, runSvc, startNotifyListenProcess, type DaemonProcess } from '../helpers/cli.js';
import { freePort } from '../helpers/free-port.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

/**
 * `svc notify listen` over the built binary: a real signed delivery (`svc notify test`) is
 * verified, answered 204 and printed as one line; a forged, an unsigned or a replayed one is
 * answered 401 and printed nowhere. After `svc notify rotate`, a receiver still holding the
 * old secret verifies during the overlap, and one holding only the new one verifies too.
 */
describe('svc notify listen and rotate (built binary)', () => {
  const tmp = tmpDir('svc-e2e-listen-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  let port = 0;
  let oldSecret = '';
  const running: DaemonProcess[] = [];
  const listen = async (secretText: string, name: string) => {
    const file = join(tmp.path, name);
    writeFileSync(file, secretText);
    const p = await startNotifyListenProcess(['--listen', `127.0.0.1:${port}`, '--secret-file', file], env);
    running.push(p);
    return p;
  };
  const sendTest = async () => {
    const r = await runJson<Record<string, unknown>>(
      ['notify', 'test', 'hook', ...t, '--notify-allow-loopback-http'],
      env,
    );
    return r;
  };

  beforeAll(async () => {
    await runJson(['init', '--tenant', 'acme'], env);
    port = await freePort();
    const added = await runJson<{ secret: string }>(
      [
        'notify',
        'add',
        'hook',
        ...t,
        '--kind',
        'webhook',
        '--url',
        `http://127.0.0.1:${port}/hook`,
        '--events',
        'approval.*',
      ],
      env,
    );
    oldSecret = added.secret;
  });
  afterEach(async () => {
    while (running.length > 0) await running.pop()!.stop();
  });
  afterAll(() => tmp.cleanup());

  it('verifies a real delivery and prints it once; refuses a forged, an unsigned and a replayed one with 401', async () => {
    const l = await listen(`${oldSecret}\n`, 'old.secret');
    expect(l.url).toBe(`http://127.0.0.1:${port}`);
    const sent = await sendTest();
    expect(sent).toMatchObject({ outcome: 'delivered', status: 204, event_type: 'approval.requested' });
    const line = await until('the printed event', () =>
      l.stdout().includes('approval.requested') ? l.stdout().trim() : undefined,
    );
    expect(line).toMatch(/^approval\.requested evt_\S+ tenant=acme test=true$/);

    const body = JSON.stringify({
      type: 'approval.requested',
      timestamp: new Date().toISOString(),
      data: { tenant_id: 'acme' },
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${l.url}/hook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const now = Math.floor(Date.now() / 1000);
    // Signed with another secret: forged.
    expect((await post({ ...signWebhook([newWebhookSecret()], 'evt_forged', now, body) })).status).toBe(401);
    // No signature at all.
    expect((await post({})).status).toBe(401);
    // The right secret, ten minutes old: a replay.
    expect((await post({ ...signWebhook([oldSecret], 'evt_old', now - 600, body) })).status).toBe(401);
    // The right secret, now: accepted, and the same id again is not printed twice.
    const signed = signWebhook([oldSecret], 'evt_local', now, body);
    expect((await post({ ...signed })).status).toBe(204);
    expect((await post({ ...signed })).status).toBe(204);
    expect((await fetch(`${l.url}/hook`)).status).toBe(405);
    await until('the second line', () => (l.stdout().includes('evt_local') ? true : undefined));
    const lines = l.stdout().trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('approval.requested evt_local tenant=acme');
    expect(l.stdout()).not.toContain('evt_forged');
    expect(l.stdout()).not.toContain('evt_old');
    expect(l.stderr()).toContain('refused a delivery: bad_signature');
    expect(l.stderr()).toContain('refused a delivery: missing_signature');
    expect(l.stderr()).toContain('refused a delivery: bad_timestamp');
  });

  it('after svc notify rotate, both the old and the new secret verify the deliveries (the overlap)', async () => {
    const rotated = await runJson<{ secret: string; previous_valid_until: string }>(
      ['notify', 'rotate', 'hook', ...t],
      env,
    );
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(oldSecret);
    expect(Date.parse(rotated.previous_valid_until) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    for (const [secret, name] of [
      [oldSecret, 'still-old.secret'],
      [rotated.secret, 'new.secret'],
    ] as const) {
      const l = await listen(secret, name);
      expect(await sendTest()).toMatchObject({ outcome: 'delivered', status: 204 });
      await until(`a line verified with ${name}`, () =>
        l.stdout().includes('approval.requested') ? true : undefined,
      );
      await l.stop();
      running.pop();
    }
    // A receiver whose secret is neither refuses: the command says what the receiver answered.
    const l = await listen(newWebhookSecret(), 'other.secret');
    const r = await runSvc(['notify', 'test', 'hook', ...t, '--notify-allow-loopback-http', '--json'], env);
    expect(r.code).not.toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 401 });
    expect(l.stdout()).toBe('');
  });

  it('refuses a listen address off loopback and a secret file that holds no webhook secret', async () => {
    const file = join(tmp.path, 'not-a-secret');
    writeFileSync(file, 'hunter2\n');
    const bad = await runSvc(['notify', 'listen', '--listen', '127.0.0.1:0', '--secret-file', file], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/secret-file: expected one or more webhook secrets/);
    expect(bad.stderr).not.toContain('hunter2');
    writeFileSync(file, oldSecret);
    const off = await runSvc(['notify', 'listen', '--listen', '0.0.0.0:0', '--secret-file', file], env);
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(/listen: expected a loopback address/);
  });
});
