import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDir } from '../../src/store/data-dir.js';
import { startConsoleProcess, type ConsoleProcess } from '../helpers/browser.js';
import { runJson, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';

type Json = Record<string, unknown>;

/**
 * Ids and times differ between two runs; everything else must not. Timestamps, token ids and
 * token secrets become placeholders, so what is left is the shape and every other value.
 */
function normal(v: unknown): unknown {
  if (typeof v === 'string') {
    return v
      .replace(/svct_[0-9a-f]{16}_[A-Za-z0-9_-]+/g, '<secret>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/\b[0-9a-f]{16}\b/g, '<token-id>')
      .replace(/\b[a-z]{2,5}_[0-9a-f]{16,64}\b/g, '<id>')
      .replace(/\b[0-9a-f]{64}\b/g, '<hash>');
  }
  if (Array.isArray(v)) return v.map(normal);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Json).map(([k, x]) => [k, normal(x)]));
  }
  return v;
}

/** Everything the tenant's store holds that these actions touch, plus its whole journal. */
async function stateOf(home: string) {
  const store = await new DataDir(home).openStore();
  try {
    const snap = await store.journalExports.snapshot('acme');
    const journal: unknown[] = [];
    for await (const page of snap.records(snap.size))
      for (const r of page) journal.push(JSON.parse(r.record));
    await snap.close();
    const byId = <T extends { id?: string; name?: string }>(xs: T[]) =>
      [...xs].sort((a, b) => String(a.id ?? a.name).localeCompare(String(b.id ?? b.name)));
    return normal({
      journal,
      actors: byId(await store.actors.list('acme')),
      capabilities: byId(await store.capabilities.list('acme')).map((c) => ({
        ...c,
        costMicros: String(c.costMicros),
      })),
      permissions: await store.permissions.list('acme'),
      tokens: (await store.tokens.list('acme')).map(({ actorId, label, revokedAt }) => ({
        actorId,
        label,
        revokedAt,
      })),
    });
  } finally {
    await store.close();
  }
}

/**
 * Every people-administration action from the console leaves what the CLI command for it
 * leaves: the same answer (the command's `--json` result), the same stored rows and the same
 * journal. Two data dirs, the same steps: one through the built CLI, one through the
 * console's routes over real TLS with a session and its CSRF token. The provisioning writes
 * journal nothing from either side (the test fails if one side starts to); an entitlement's
 * revocation journals one record, the same on both.
 */
describe('console administration leaves what the CLI leaves (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-admin-parity-');
  const cliEnv = { SVC_HOME: join(tmp.path, 'cli') };
  const consoleEnv = { SVC_HOME: join(tmp.path, 'console') };
  const t = ['--tenant', 'acme'];
  let consoleProc: ConsoleProcess;
  let ca: Buffer;
  let session: { cookie: string; csrf: string };
  const viaConsole = async (url: string, body: unknown): Promise<Json> => {
    const r = await call(`${consoleProc.url}${url}`, {
      ca,
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
      body,
    });
    expect([url, r.status, r.body]).toEqual([url, 200, expect.anything()]);
    return r.body;
  };
  const viaCli = (args: string[]) => runJson<Json>(args, cliEnv);
  const pairs: { what: string; cli: Json; console: Json }[] = [];
  const both = async (what: string, cli: string[], url: string, body: unknown) => {
    const c = await viaCli(cli);
    pairs.push({ what, cli: c, console: await viaConsole(url, body) });
    return pairs.at(-1)!;
  };
  let before: { cli: unknown; console: unknown };
  let cliAdminToken: string;
  const daemons: DaemonProcess[] = [];
  const entitlements: { cli?: Json; console?: Json } = {};

  // About twenty CLI runs and three listeners, one after another: longer than the default hook.
  beforeAll(async () => {
    cliAdminToken = (await runJson<{ admin_token: string }>(['init', ...t, '--admin', 'alice'], cliEnv))
      .admin_token;
    const init = await runJson<{ ca_cert: string; admin_token: string }>(
      ['init', ...t, '--admin', 'alice'],
      consoleEnv,
    );
    ca = readFileSync(init.ca_cert);
    before = { cli: await stateOf(cliEnv.SVC_HOME), console: await stateOf(consoleEnv.SVC_HOME) };
    consoleProc = await startConsoleProcess([], consoleEnv);
    const r = await call(`${consoleProc.url}/api/session`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${init.admin_token}` },
      body: {},
    });
    expect(r.status).toBe(200);
    session = { cookie: String(r.headers['set-cookie']).split(';')[0]!, csrf: String(r.body.csrf_token) };

    await both(
      'actor add (human)',
      [
        'actor',
        'add',
        ...t,
        '--id',
        'dana',
        '--kind',
        'human',
        '--role',
        'approver',
        '--role',
        'manager',
        '--display-name',
        'Dana K.',
      ],
      '/api/actors',
      { actor_id: 'dana', kind: 'human', roles: ['approver', 'manager'], display_name: 'Dana K.' },
    );
    await both(
      'actor add (agent)',
      ['actor', 'add', ...t, '--id', 'crm-bot', '--kind', 'agent', '--manager', 'dana'],
      '/api/actors',
      { actor_id: 'crm-bot', kind: 'agent', manager: 'dana' },
    );
    await both(
      'actor add (service)',
      ['actor', 'add', ...t, '--id', 'billing', '--kind', 'service'],
      '/api/actors',
      {
        actor_id: 'billing',
        kind: 'service',
      },
    );
    const registration = (tier: number, actions: string[]) => ({
      cli: [
        'capability',
        'register',
        ...t,
        '--name',
        'payments.refund',
        '--tier',
        String(tier),
        '--irreversible',
        '--actions',
        actions.join(','),
        '--cost-usd',
        '25.5',
        '--approver',
        'dana',
        '--owner',
        'dana',
        '--requestable',
      ],
      body: {
        name: 'payments.refund',
        tier,
        actions,
        irreversible: true,
        cost_usd: 25.5,
        approvers: ['dana'],
        owners: ['dana'],
        requestable: true,
      },
    });
    const created = registration(4, ['write']);
    await both('capability register', created.cli, '/api/capabilities', created.body);
    const edited = registration(5, ['write', 'read']);
    await both('capability register (edit)', edited.cli, '/api/capabilities', edited.body);
    await both(
      'permission grant',
      ['permission', 'grant', ...t, '--actor', 'crm-bot', '--capability', 'payments.refund'],
      '/api/permissions',
      { actor_id: 'crm-bot', capability: 'payments.refund' },
    );
    const issued = await both(
      'token issue',
      ['token', 'issue', ...t, '--actor', 'crm-bot', '--ttl', '12h', '--label', 'ci'],
      '/api/tokens',
      { actor_id: 'crm-bot', ttl: '12h', label: 'ci' },
    );
    pairs.push({
      what: 'token revoke',
      cli: await viaCli(['token', 'revoke', ...t, '--id', String(issued.cli.token_id)]),
      console: await viaConsole(`/api/tokens/${String(issued.console.token_id)}/revoke`, {}),
    });
    await both(
      'permission revoke',
      ['permission', 'revoke', ...t, '--actor', 'crm-bot', '--capability', 'payments.refund'],
      '/api/permissions/revoke',
      { actor_id: 'crm-bot', capability: 'payments.refund' },
    );
    // An entitlement, made the same way on both sides through each one's daemon (an access
    // request of crm-bot, approved by its manager dana), then revoked: by the CLI through the
    // daemon, and from the console.
    for (const [side, env] of [
      ['cli', cliEnv],
      ['console', consoleEnv],
    ] as const) {
      const daemon = await startDaemonProcess([], env);
      daemons.push(daemon);
      const token = async (actor: string) =>
        (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', actor], env)).token;
      const [bot, dana] = [await token('crm-bot'), await token('dana')];
      const daemonCa = readFileSync(join(env.SVC_HOME, 'tls', 'deployment-cert.pem'));
      const asked = await call(`${daemon.url}/v1/access-requests`, {
        ca: daemonCa,
        method: 'POST',
        headers: { authorization: `Bearer ${bot}` },
        body: { capability: 'payments.refund', reason: 'refund backlog', duration_seconds: 3600 },
      });
      expect(asked.status).toBe(201);
      const cards = await call(`${daemon.url}/v1/manager-cards`, {
        ca: daemonCa,
        headers: { authorization: `Bearer ${dana}` },
      });
      const card = (cards.body as unknown as { card_id: string }[])[0]!.card_id;
      const decided = await call(`${daemon.url}/v1/manager-cards/decide`, {
        ca: daemonCa,
        method: 'POST',
        headers: { authorization: `Bearer ${dana}` },
        body: { card_id: card, decision: 'approve' },
      });
      const id = String((decided.body.entitlement as { entitlement_id: string }).entitlement_id);
      entitlements[side] =
        side === 'cli'
          ? await runJson<Json>(['entitlements', 'revoke', id], {
              ...env,
              SVC_ENDPOINT: daemon.url,
              SVC_CA_CERT: join(env.SVC_HOME, 'tls', 'deployment-cert.pem'),
              SVC_TOKEN: cliAdminToken,
            })
          : await viaConsole(`/api/entitlements/${id}/revoke`, {});
      await daemon.stop();
    }
    pairs.push({ what: 'entitlements revoke', cli: entitlements.cli!, console: entitlements.console! });
    await consoleProc.stop();
  }, 240_000);

  afterAll(async () => {
    await consoleProc?.stop();
    for (const d of daemons) await d.stop();
    tmp.cleanup();
  });

  it('answers each action as the CLI command does (its --json result), ids and times aside', () => {
    expect(pairs.map((p) => p.what)).toHaveLength(10);
    for (const p of pairs)
      expect({ what: p.what, answer: normal(p.console) }).toEqual({ what: p.what, answer: normal(p.cli) });
    // The edit is an edit on both sides, and the secret is a real one on both.
    expect(pairs[4]!.console).toMatchObject({ result: 'updated', changed: ['tier', 'actions'] });
    expect(String(pairs[6]!.console.token)).toMatch(/^svct_[0-9a-f]{16}_/);
  });

  it('leaves the same journal records (and so receipts), and the same actors, capabilities, permissions and tokens', async () => {
    const after = { cli: await stateOf(cliEnv.SVC_HOME), console: await stateOf(consoleEnv.SVC_HOME) };
    expect(after.console).toEqual(after.cli);
    expect(before.console).toEqual(before.cli);
    const a = after.console as { journal: Json[]; actors: unknown[]; tokens: unknown[] };
    // The provisioning writes journal nothing (on either side); the access request, its
    // approval and the revocation journal one record each, the revocation by alice on both.
    expect((before.console as { journal: unknown[] }).journal).toEqual([]);
    expect(a.journal.map((r) => [r.kind, r.action, r.actor_id, r.outcome])).toEqual([
      ['access', 'request', 'crm-bot', 'requested'],
      ['access', 'approve', 'dana', 'approved'],
      ['access', 'revoke', 'alice', 'entitlement_revoked'],
    ]);
    expect(a.actors).toHaveLength(4);
    expect(a.tokens).toContainEqual({ actorId: 'crm-bot', label: 'ci', revokedAt: '<time>' });
  });
});
