import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookKey } from '../../src/notify/webhook-secret.js';
import { runJson, runSvc } from '../helpers/cli.js';
import { leakScan } from '../helpers/leak-scan.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * `svc notify add | list | remove` over the built binary and a real data dir: the secret is
 * shown once and sealed, never listed; every bad input is a coded error naming its field,
 * and a refused command writes nothing.
 */
describe('svc notify (built binary)', () => {
  const tmp = tmpDir('svc-e2e-notify-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  const add = (id: string, ...more: string[]) =>
    runSvc(
      [
        'notify',
        'add',
        id,
        ...t,
        '--kind',
        'webhook',
        '--url',
        'https://hooks.example.org/svc',
        ...more,
        '--json',
      ],
      env,
    );
  const refusal = async (args: string[]) => {
    const r = await runSvc([...args, '--json'], env);
    expect(r.code, r.stdout + r.stderr).not.toBe(0);
    return (JSON.parse(r.stdout || r.stderr) as { error: Record<string, unknown> }).error;
  };
  const listed = async () =>
    (await runJson<{ items: Record<string, unknown>[] }>(['notify', 'list', ...t], env)).items;

  beforeAll(async () => {
    await runJson(['init', '--tenant', 'acme'], env);
  });
  afterAll(() => tmp.cleanup());

  let secret = '';
  it('adds a webhook destination and shows its secret once, sealed in the secret store', async () => {
    const r = await add('ops-hook', '--events', 'approval.*', '--events', 'access_request.created');
    expect(r.code, r.stderr).toBe(0);
    const added = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(added).toMatchObject({
      destination_id: 'ops-hook',
      tenant_id: 'acme',
      kind: 'webhook',
      url: 'https://hooks.example.org/svc',
      events: ['approval.*', 'access_request.created'],
      enabled: true,
      disabled_reason: null,
    });
    secret = added.secret as string;
    expect(webhookKey(secret)).toHaveLength(24);
    leakScan.remember(secret, 'the webhook secret');
    const secrets = await runJson<{ items: { name: string }[] }>(['secret', 'list', ...t], env);
    expect(secrets.items.map((s) => s.name)).toEqual(['notify.ops-hook']);
    expect(readFileSync(join(env.SVC_HOME, 'svc.db')).includes(Buffer.from(secret.slice(6)))).toBe(false);
  });

  it('lists destinations without their secret', async () => {
    expect(await listed()).toEqual([
      {
        destination_id: 'ops-hook',
        tenant_id: 'acme',
        kind: 'webhook',
        url: 'https://hooks.example.org/svc',
        events: ['approval.*', 'access_request.created'],
        settings: {},
        remind_after_seconds: null,
        escalate_to: null,
        enabled: true,
        disabled_reason: null,
        created_at: expect.any(String),
      },
    ]);
    const human = await runSvc(['notify', 'list', ...t], env);
    expect(human.stdout).toContain('ops-hook');
    expect(human.stdout + human.stderr).not.toContain(secret.slice(6));
  });

  it('refuses bad input with a coded error naming the field, and writes nothing', async () => {
    const base = ['notify', 'add', 'x', ...t, '--kind', 'webhook', '--events', '*'];
    expect(await refusal([...base, '--url', 'http://hooks.example.org/'])).toMatchObject({
      code: 'invalid_request',
      field: 'url',
    });
    expect(await refusal([...base, '--url', 'https://user:pw@hooks.example.org/'])).toMatchObject({
      field: 'url',
    });
    expect(
      await refusal([
        'notify',
        'add',
        'x',
        ...t,
        '--kind',
        'chat',
        '--url',
        'https://a.example/',
        '--events',
        '*',
      ]),
    ).toMatchObject({ code: 'invalid_request', field: 'channel' });
    const chat = ['notify', 'add', 'x', ...t, '--kind', 'chat', '--channel', 'C0123', '--events', '*'];
    expect(await refusal(chat)).toMatchObject({ code: 'invalid_request', field: 'secret-file' });
    expect(await refusal([...chat, '--from', 'a@example.org'])).toMatchObject({ field: 'from' });
    expect(
      await refusal([...base, '--url', 'https://hooks.example.org/', '--escalate-to', 'ops-hook']),
    ).toMatchObject({ field: 'escalate-to' });
    expect(
      await refusal([
        ...base.slice(0, -2),
        '--events',
        'budget.threshold',
        '--url',
        'https://hooks.example.org/',
        '--remind-after',
        '30m',
      ]),
    ).toMatchObject({ field: 'remind-after' });
    expect(
      await refusal([
        'notify',
        'add',
        'x',
        ...t,
        '--kind',
        'pager',
        '--url',
        'https://a.example/',
        '--events',
        '*',
      ]),
    ).toMatchObject({ code: 'invalid_request', field: 'kind' });
    expect(
      await refusal([
        'notify',
        'add',
        'x',
        ...t,
        '--kind',
        'webhook',
        '--url',
        'https://a.example/',
        '--events',
        'approvals.*',
      ]),
    ).toMatchObject({ code: 'invalid_request', field: 'events' });
    expect(
      await refusal([
        'notify',
        'add',
        'Not_A_Slug',
        ...t,
        '--kind',
        'webhook',
        '--url',
        'https://a.example/',
        '--events',
        '*',
      ]),
    ).toMatchObject({ code: 'invalid_request', field: 'id' });
    expect(
      await refusal([
        'notify',
        'add',
        'x',
        '--tenant',
        'nope',
        '--kind',
        'webhook',
        '--url',
        'https://a.example/',
        '--events',
        '*',
      ]),
    ).toMatchObject({ code: 'not_found' });
    expect(
      await refusal([
        'notify',
        'add',
        'ops-hook',
        ...t,
        '--kind',
        'webhook',
        '--url',
        'https://b.example/',
        '--events',
        '*',
      ]),
    ).toMatchObject({
      code: 'already_exists',
    });
    expect((await listed()).map((d) => [d.destination_id, d.url])).toEqual([
      ['ops-hook', 'https://hooks.example.org/svc'],
    ]);
    const secrets = await runJson<{ items: { name: string }[] }>(['secret', 'list', ...t], env);
    expect(secrets.items.map((s) => s.name)).toEqual(['notify.ops-hook']);
  });

  it('removes a destination with its secret; removing it again is not_found', async () => {
    expect(await runJson(['notify', 'remove', 'ops-hook', ...t], env)).toEqual({
      tenant_id: 'acme',
      destination_id: 'ops-hook',
      removed: true,
    });
    expect(await listed()).toEqual([]);
    expect((await runJson<{ items: unknown[] }>(['secret', 'list', ...t], env)).items).toEqual([]);
    expect(await refusal(['notify', 'remove', 'ops-hook', ...t])).toMatchObject({ code: 'not_found' });
  });
});
