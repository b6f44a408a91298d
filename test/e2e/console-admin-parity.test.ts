import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDir } from '../../src/store/data-dir.js';
import { startConsoleProcess, type ConsoleProcess } from '../helpers/browser.js';
import { runJson } from '../helpers/cli.js';
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
      .replace(/\b[0-9a-f]{16}\b/g, '<token-id>');
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
 * journal (these provisioning writes journal nothing, from either side: the test fails if one
 * side starts to). Two data dirs, the same steps: one through the built CLI, one through the
 * console's routes over real TLS with a session and its CSRF token.
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

  beforeAll(async () => {
    await runJson(['init', ...t, '--admin', 'alice'], cliEnv);
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
    await consoleProc.stop();
  });

  afterAll(async () => {
    await consoleProc?.stop();
    tmp.cleanup();
  });

  it('answers each action as the CLI command does (its --json result), ids and times aside', () => {
    expect(pairs.map((p) => p.what)).toHaveLength(9);
    for (const p of pairs)
      expect({ what: p.what, answer: normal(p.console) }).toEqual({ what: p.what, answer: normal(p.cli) });
    // The edit is an edit on both sides, and the secret is a real one on both.
    expect(pairs[4]!.console).toMatchObject({ result: 'updated', changed: ['tier', 'actions'] });
    expect(String(pairs[6]!.console.token)).toMatch(/^svct_[0-9a-f]{16}_/);
  });

  it('leaves the same journal records and receipts, and the same actors, capabilities, permissions and tokens', async () => {
    const after = { cli: await stateOf(cliEnv.SVC_HOME), console: await stateOf(consoleEnv.SVC_HOME) };
    expect(after.console).toEqual(after.cli);
    expect(before.console).toEqual(before.cli);
    const a = after.console as { journal: unknown[]; actors: unknown[]; tokens: unknown[] };
    expect((before.console as { journal: unknown[] }).journal).toEqual(a.journal);
    expect(a.actors).toHaveLength(4);
    expect(a.tokens).toContainEqual({ actorId: 'crm-bot', label: 'ci', revokedAt: '<time>' });
  });
});
