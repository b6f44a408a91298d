import { readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleProcess, type ConsoleProcess } from '../helpers/browser.js';
import { runJson } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';

const OPEN = 'permit (principal, action, resource);\n';
const TIGHT = '@id("reads-only")\npermit (principal, action == Action::"read", resource);\n';
const CANDIDATE = '@id("nothing")\nforbid (principal, action, resource);\n';

type Row = Record<string, unknown>;

/**
 * What the tenant's store holds that an administrative action may change: the journal (the
 * evidence: every receipt is a journal record), the outbox, and the rows each action writes.
 * Times, generated ids and the author (the OS account for the CLI, the console user for the
 * console, by design) are left out here and compared apart.
 */
type Table = 'journal' | 'events' | 'tasks' | 'policy' | 'versions' | 'shadows' | 'destinations' | 'secrets';

function state(home: string): Record<Table, Row[]> {
  const db = new Database(join(home, 'svc.db'), { readonly: true, fileMustExist: true });
  try {
    const all = (sql: string) => db.prepare(sql).all() as Row[];
    return {
      journal: all(
        `SELECT sequence, kind, task_id, actor_id, capability, tier, allowed, amount_micros FROM journal
         WHERE tenant_id = 'acme' ORDER BY sequence`,
      ),
      events: all(`SELECT type FROM notify_events WHERE tenant_id = 'acme' ORDER BY type`),
      tasks: all(
        `SELECT id, status, budget_micros, reserved_micros, closed_at IS NOT NULL AS closed FROM tasks
         WHERE tenant_id = 'acme' ORDER BY id`,
      ),
      policy: all(`SELECT version, text FROM policies WHERE tenant_id = 'acme'`),
      versions: all(
        `SELECT version, sha256, message FROM policy_versions WHERE tenant_id = 'acme' ORDER BY version`,
      ),
      shadows: all(`SELECT text FROM policy_shadows WHERE tenant_id = 'acme'`),
      destinations: all(
        `SELECT id, kind, url, events, secret_name, enabled, settings FROM notify_destinations
         WHERE tenant_id = 'acme' ORDER BY id`,
      ),
      secrets: all(`SELECT name FROM secrets WHERE tenant_id = 'acme' ORDER BY name`),
    };
  } finally {
    db.close();
  }
}

/** An answer with what differs by design (times, generated ids, the author, a secret's value) masked. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Row).map(([k, v]) => [
      k,
      /(_at|_until|^secret|^candidate_id|^source)$/.test(k) && v !== null ? `<${k}>` : shape(v),
    ]),
  );
}

/**
 * Every administrative action of the console's task, notification and policy pages leaves the
 * same journal records, outbox events and stored rows as the CLI command it stands for: two
 * data dirs provisioned alike, the CLI acting on one, the console (the built binary, over TLS)
 * on the other, compared after each action.
 */
describe('console administration leaves what the CLI leaves (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-console-parity-');
  const cliHome = join(tmp.path, 'cli');
  const consoleHome = join(tmp.path, 'console');
  const t = ['--tenant', 'acme'];
  const file = (name: string, text: string) => {
    const path = join(tmp.path, name);
    writeFileSync(path, text);
    return path;
  };
  const cli = <T = Row>(args: string[]) => runJson<T>(args, { SVC_HOME: cliHome });
  let consoleProc: ConsoleProcess;
  let ca: Buffer;
  let session: { cookie: string; csrf: string };
  const action = async (url: string, body: unknown = {}): Promise<Row> => {
    const r = await call(`${consoleProc.url}${url}`, {
      ca,
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
      body,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };

  beforeAll(async () => {
    let token = '';
    for (const home of [cliHome, consoleHome]) {
      const env = { SVC_HOME: home };
      const init = await runJson<{ admin_token: string; ca_cert: string }>(
        ['init', ...t, '--admin', 'alice'],
        env,
      );
      await runJson(
        ['capability', 'register', ...t, '--name', 'crm.read', '--actions', 'read', '--tier', '1'],
        env,
      );
      await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
      await runJson(['policy', 'set', ...t, '--file', file('open.cedar', OPEN)], env);
      await runJson(['task', 'create', ...t, '--id', 't1', '--sponsor', 'alice', '--budget-usd', '50'], env);
      token = init.admin_token;
      ca = readFileSync(init.ca_cert);
    }
    consoleProc = await startConsoleProcess([], { SVC_HOME: consoleHome });
    const signIn = await call(`${consoleProc.url}/api/session`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: {},
    });
    expect(signIn.status).toBe(200);
    session = {
      cookie: String(signIn.headers['set-cookie']).split(';')[0] as string,
      csrf: signIn.body.csrf_token as string,
    };
    expect(state(consoleHome)).toEqual(state(cliHome));
  });

  afterAll(async () => {
    await consoleProc?.stop();
    tmp.cleanup();
  });

  const same = () => expect(state(consoleHome)).toEqual(state(cliHome));

  it('changes a task budget as svc task budget does', async () => {
    const byCli = await cli(['task', 'budget', ...t, '--id', 't1', '--set', '75.5']);
    const byConsole = await action('/api/tasks/t1/budget', { budget_usd: 75.5 });
    expect(shape(byConsole)).toEqual(shape(byCli));
    same();
    expect(state(cliHome).tasks[0]!).toMatchObject({ budget_micros: 75_500_000 });
  });

  it('closes a task as svc task close does', async () => {
    const byCli = await cli(['task', 'close', ...t, '--id', 't1']);
    const byConsole = await action('/api/tasks/t1/close');
    expect(shape(byConsole)).toEqual(shape(byCli));
    same();
    expect(state(consoleHome).tasks[0]!).toMatchObject({ status: 'closed', closed: 1 });
  });

  it('adds, rotates and removes a notification destination as svc notify add, rotate and remove do', async () => {
    const byCli = await cli([
      'notify',
      'add',
      'ops-hook',
      ...t,
      '--kind',
      'webhook',
      '--url',
      'https://hooks.example.org/svc',
      '--events',
      'approval.*',
    ]);
    const byConsole = await action('/api/notifications/destinations', {
      destination_id: 'ops-hook',
      kind: 'webhook',
      url: 'https://hooks.example.org/svc',
      events: ['approval.*'],
    });
    // Both show the webhook's new signing secret once; the console's answer omits the tenant (the page's own).
    expect(byCli.secret).toMatch(/^whsec_/);
    expect(byConsole.secret).toMatch(/^whsec_/);
    const { tenant_id: _tenant, ...cliView } = byCli;
    expect(shape(byConsole)).toEqual(shape(cliView));
    same();
    expect(state(consoleHome).secrets).toEqual([{ name: 'notify.ops-hook' }]);
    const rotatedByCli = await cli(['notify', 'rotate', 'ops-hook', ...t]);
    const rotatedByConsole = await action('/api/notifications/destinations/ops-hook/rotate');
    expect(shape(rotatedByConsole)).toEqual(shape(rotatedByCli));
    same();
    const removedByCli = await cli(['notify', 'remove', 'ops-hook', ...t]);
    const removedByConsole = await action('/api/notifications/destinations/ops-hook/remove');
    expect(removedByConsole).toEqual(removedByCli);
    same();
  });

  it('installs a policy as svc policy set does, the console user named as its author', async () => {
    const byCli = await cli([
      'policy',
      'set',
      ...t,
      '--file',
      file('tight.cedar', TIGHT),
      '--message',
      'reads only',
    ]);
    const byConsole = await action('/api/policies', { text: TIGHT, message: 'reads only' });
    expect(shape(byConsole)).toEqual(shape(byCli));
    same();
    const author = (home: string) => {
      const db = new Database(join(home, 'svc.db'), { readonly: true });
      try {
        return db.prepare(`SELECT set_by FROM policy_versions WHERE version = 2`).pluck().get();
      } finally {
        db.close();
      }
    };
    expect(author(cliHome)).toBe(userInfo().username);
    expect(author(consoleHome)).toBe('console:alice');
  });

  it('sets and promotes a shadow as svc policy shadow set and promote do', async () => {
    const setByCli = await cli([
      'policy',
      'shadow',
      'set',
      ...t,
      '--file',
      file('candidate.cedar', CANDIDATE),
    ]);
    const setByConsole = await action('/api/policies/shadow', { text: CANDIDATE });
    expect(shape(setByConsole)).toEqual(shape(setByCli));
    same();
    const byCli = await cli(['policy', 'shadow', 'promote', ...t, '--message', 'after review']);
    const byConsole = await action('/api/policies/shadow/promote', {
      candidate_id: setByConsole.candidate_id,
      message: 'after review',
    });
    expect(shape(byConsole)).toEqual(shape(byCli));
    same();
    expect(state(consoleHome).versions.map((v) => v.version)).toEqual([1, 2, 3]);
    expect(state(consoleHome).shadows).toEqual([]);
  });
});
