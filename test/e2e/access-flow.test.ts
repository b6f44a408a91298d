import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';

interface Step {
  access_request: {
    access_request_id: string;
    status: string;
    cards: { card_id: string; recipient_id: string }[];
  };
  receipt: { receipt_id: string };
}

/**
 * The access flow over the built binary and real TLS, through the CLI commands that talk
 * to the daemon: catalogue → request → manager card → decide → entitlement → allowed
 * decision → revoke → refused.
 */
describe('access requests end to end (built binary, TLS, CLI through the daemon)', () => {
  const tmp = tmpDir('svc-e2e-access-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  let ca: Buffer;
  let daemon: DaemonProcess;
  const tokens: Record<string, string> = {};
  const t = ['--tenant', 'acme'];
  const as = (who: string) => ({
    ...env,
    SVC_ENDPOINT: daemon.url,
    SVC_CA_CERT: join(env.SVC_HOME, 'tls/deployment-cert.pem'),
    SVC_TOKEN: tokens[who],
  });
  const act = (step: string) =>
    call(`${daemon.url}/v1/action`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.bot}` },
      body: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'crm.write',
        action: 'write',
        task_id: 't1',
        effect_key_step: step,
      },
    });

  beforeAll(async () => {
    const init = await runJson<{ admin_token: string; ca_cert: string }>(
      ['init', '--tenant', 'acme', '--admin', 'alice'],
      env,
    );
    ca = readFileSync(init.ca_cert);
    tokens.alice = init.admin_token;
    const svc = (args: string[]) => runJson(args, env);
    await svc(['actor', 'add', ...t, '--id', 'carol', '--kind', 'human', '--role', 'manager']);
    await svc(['actor', 'add', ...t, '--id', 'olive', '--kind', 'human']);
    await svc(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'carol']);
    await svc([
      'capability',
      'register',
      ...t,
      '--name',
      'crm.write',
      '--actions',
      'write',
      '--tier',
      '1',
      '--cost-usd',
      '0.5',
      '--requestable',
      '--owner',
      'olive',
    ]);
    const policy = join(tmp.path, 'policy.cedar');
    writeFileSync(policy, 'permit (principal, action, resource);\n');
    await svc(['policy', 'set', ...t, '--file', policy]);
    await svc([
      'task',
      'create',
      ...t,
      '--id',
      't1',
      '--sponsor',
      'carol',
      '--budget-usd',
      '100',
      '--actor',
      'bot',
    ]);
    for (const who of ['bot', 'carol', 'olive']) {
      tokens[who] = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', who], env)).token;
    }
    daemon = await startDaemonProcess([], env);
  });
  afterAll(async () => {
    await daemon?.stop();
    tmp.cleanup();
  });

  it('catalogue → request → card → decide → entitlement → allowed → revoke → refused', async () => {
    const catalogue = await call(`${daemon.url}/v1/catalogue`, {
      ca,
      headers: { authorization: `Bearer ${tokens.bot}` },
    });
    expect((catalogue.body as unknown as { name: string }[]).map((c) => c.name)).toEqual(['crm.write']);
    expect((await act('w0')).body.code).toBe('not_permitted');

    const requested = await runJson<Step>(
      ['access', 'request', 'crm.write', '--reason', 'Q3 cleanup', '--duration', '2h'],
      as('bot'),
    );
    const id = requested.access_request.access_request_id;
    expect(requested.access_request.status).toBe('pending');
    expect(requested.access_request.cards.map((c) => c.recipient_id)).toEqual(['carol', 'olive']);

    const cards = (
      await runJson<{ items: { card_id: string; access_request_id: string; role: string }[] }>(
        ['cards', 'list'],
        as('carol'),
      )
    ).items;
    expect(cards).toEqual([expect.objectContaining({ access_request_id: id, role: 'manager' })]);
    const agent = await runSvc(
      ['cards', 'decide', cards[0]!.card_id, '--decision', 'approve', '--json'],
      as('bot'),
    );
    expect(agent.code).toBe(5);
    expect(JSON.parse(agent.stdout).error.code).toBe('not_a_decider');
    const tooLong = await runSvc(
      ['cards', 'decide', cards[0]!.card_id, '--decision', 'approve', '--duration', '3h', '--json'],
      as('carol'),
    );
    expect(tooLong.code).toBe(2);

    const decided = await runJson<{
      entitlement: { entitlement_id: string; expires_at: string; status: string };
    }>(
      [
        'cards',
        'decide',
        cards[0]!.card_id,
        '--decision',
        'approve',
        '--duration',
        '1h',
        '--note',
        'cleanup only',
      ],
      as('carol'),
    );
    expect(decided.entitlement.status).toBe('active');
    const closed = (
      await runJson<{ items: { card_id: string; status: string }[] }>(
        ['cards', 'list', '--status', 'closed'],
        as('olive'),
      )
    ).items;
    expect(closed).toHaveLength(1);
    const late = await runSvc(
      ['cards', 'decide', closed[0]!.card_id, '--decision', 'deny', '--json'],
      as('olive'),
    );
    expect(late.code).toBe(4);

    const entitlements = await runJson<{ items: { entitlement_id: string; status: string }[] }>(
      ['entitlements', 'list', '--status', 'active'],
      as('carol'),
    );
    expect(entitlements.items.map((e) => e.entitlement_id)).toEqual([decided.entitlement.entitlement_id]);

    const allowed = await act('w1');
    expect(allowed.status).toBe(200);
    expect(allowed.body.decision).toBe('allowed');

    const revoked = await runJson<Step>(['access', 'revoke', id, '--note', 'cleanup done'], as('carol'));
    expect(revoked.access_request.status).toBe('revoked');
    const refused = await act('w2');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('not_permitted');
    const shown = await runJson<{ status: string; revoked_by: string }>(['access', 'show', id], as('bot'));
    expect(shown).toMatchObject({ status: 'revoked', revoked_by: 'carol' });
    expect((await runSvc(['access', 'show', id, '--json'], as('olive'))).code).toBe(0);

    // The same again, ended by revoking the entitlement rather than the request.
    const again = await runJson<Step>(
      ['access', 'request', 'crm.write', '--reason', 'one more pass', '--duration', '30m'],
      as('bot'),
    );
    const ownerCard = (
      await runJson<{ items: { card_id: string; access_request_id: string }[] }>(
        ['cards', 'list'],
        as('olive'),
      )
    ).items.find((c) => c.access_request_id === again.access_request.access_request_id)!;
    const granted = await runJson<{ entitlement: { entitlement_id: string } }>(
      ['cards', 'decide', ownerCard.card_id, '--decision', 'approve'],
      as('olive'),
    );
    expect((await act('w3')).status).toBe(200);
    await runJson(['entitlements', 'revoke', granted.entitlement.entitlement_id], as('bot'));
    expect((await act('w4')).body.code).toBe('not_permitted');

    const receipts = await runJson<{ items: { kind: string; outcome: string }[] }>(
      ['receipts', 'list', '--all'],
      as('alice'),
    );
    expect(receipts.items.filter((r) => r.kind === 'access').map((r) => r.outcome)).toEqual([
      'requested',
      'approved',
      'revoked',
      'requested',
      'approved',
      'entitlement_revoked',
    ]);
  });
});
