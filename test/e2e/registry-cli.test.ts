import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_POLICY } from '../../src/policy/example-policy.js';
import { runJson, runSvc } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

/** The operator's registration commands over a real data dir, through the built binary. */
describe('svc capability, permission, policy, task and apply', () => {
  const tmp = tmpDir('svc-registry-cli-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  const file = (name: string, text: string) => {
    const path = join(tmp.path, name);
    writeFileSync(path, text);
    return path;
  };
  const expectFailure = async (args: string[], code: number, message: RegExp) => {
    const r = await runSvc(args, env);
    expect(r.code, args.join(' ')).toBe(code);
    expect(r.stderr, args.join(' ')).toMatch(message);
    return r;
  };

  beforeAll(async () => {
    await runJson(['init', '--tenant', 'acme', '--admin', 'alice', '--yes'], env);
    await runJson(
      ['actor', 'add', '--tenant', 'acme', '--id', 'bob', '--kind', 'human', '--role', 'approver'],
      env,
    );
    await runJson(
      ['actor', 'add', '--tenant', 'acme', '--id', 'bot', '--kind', 'agent', '--manager', 'bob'],
      env,
    );
  });
  afterAll(() => tmp.cleanup());

  it('capability register and list', async () => {
    const reg = ['capability', 'register', '--tenant', 'acme'];
    const created = await runJson(
      [
        ...reg,
        '--name',
        'crm.contacts',
        '--tier',
        '1',
        '--actions',
        'read,write',
        '--actions',
        'export',
        '--cost-usd',
        '0.01',
        '--requestable',
      ],
      env,
    );
    expect(created).toMatchObject({
      result: 'created',
      name: 'crm.contacts',
      actions: ['export', 'read', 'write'],
      cost_usd: 0.01,
      custody: 'grant',
      requestable: true,
    });
    const refund = [
      ...reg,
      '--name',
      'payments.refund',
      '--tier',
      '4',
      '--irreversible',
      '--actions',
      'refund',
    ];
    const brokered = [
      ...refund,
      '--custody',
      'brokered',
      '--surface',
      'stripe',
      '--operation',
      'refunds.create',
    ];
    const human = await runSvc([...brokered, '--approver', 'bob', '--owner', 'bob', '--cost-usd', '25'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/Registered capability payments\.refund in tenant acme/);
    const again = await runJson(
      [...brokered, '--approver', 'bob', '--owner', 'bob', '--cost-usd', '25'],
      env,
    );
    expect(again).toMatchObject({ result: 'unchanged', changed: [] });
    const updated = await runJson(
      [...brokered, '--approver', 'bob', '--owner', 'bob', '--cost-usd', '30'],
      env,
    );
    expect(updated).toMatchObject({
      result: 'updated',
      changed: ['cost_usd'],
    });

    await expectFailure(
      [...reg, '--name', 'Bad Name', '--tier', '1', '--actions', 'read'],
      2,
      /name: expected a capability name/,
    );
    await expectFailure(
      [...reg, '--name', 'x', '--tier', '12', '--actions', 'read'],
      2,
      /tier: expected an integer from 0 to 9/,
    );
    await expectFailure([...reg, '--name', 'x', '--tier', 'high', '--actions', 'read'], 2, /tier/);
    await expectFailure(
      [...reg, '--name', 'x', '--tier', '1', '--actions', 'Read'],
      2,
      /actions: expected verbs of lowercase letters \(got "Read"\)/,
    );
    await expectFailure(
      [...reg, '--name', 'x', '--tier', '1', '--actions', 'read', '--custody', 'escrow'],
      2,
      /Expected --custody=escrow to be one of/,
    );
    await expectFailure(
      refund.concat('--custody', 'brokered'),
      2,
      /surface: a brokered capability names a surface and an operation/,
    );
    await expectFailure(
      [...reg, '--name', 'x', '--tier', '1', '--actions', 'read', '--cost-usd', '1.0000001'],
      2,
      /cost-usd: expected USD .* at most 6 decimal places/,
    );
    await expectFailure(
      [...reg, '--name', 'x', '--tier', '1', '--actions', 'read', '--approver', 'bot'],
      2,
      /approver: bot is an agent, not a human in tenant acme/,
    );
    await expectFailure([...reg, '--name', 'x', '--tier', '1'], 2, /Missing required flag[\s\S]*actions/);
    await expectFailure(
      ['capability', 'register', '--tenant', 'nope', '--name', 'x', '--tier', '1', '--actions', 'read'],
      3,
      /tenant nope does not exist/,
    );

    const list = await runJson<{ items: { name: string; cost_usd: number }[] }>(
      ['capability', 'list', '--tenant', 'acme'],
      env,
    );
    expect(list.items.map((c) => [c.name, c.cost_usd])).toEqual([
      ['crm.contacts', 0.01],
      ['payments.refund', 30],
    ]);
    const table = await runSvc(['capability', 'list', '--tenant', 'acme'], env);
    expect(table.stdout).toMatch(/payments\.refund .*brokered \(stripe\/refunds\.create\)/);
  });

  it('permission grant, list and revoke', async () => {
    const p = ['--tenant', 'acme', '--actor', 'bot', '--capability', 'crm.contacts'];
    expect(await runJson(['permission', 'grant', ...p], env)).toMatchObject({
      result: 'created',
      actor_id: 'bot',
      capability: 'crm.contacts',
    });
    expect(await runJson(['permission', 'grant', ...p], env)).toMatchObject({ result: 'unchanged' });
    const list = await runJson<{ items: { actor_id: string; capability: string }[] }>(
      ['permission', 'list', '--tenant', 'acme', '--actor', 'bot'],
      env,
    );
    expect(list.items).toEqual([expect.objectContaining({ actor_id: 'bot', capability: 'crm.contacts' })]);
    await expectFailure(
      ['permission', 'grant', '--tenant', 'acme', '--actor', 'ghost', '--capability', 'crm.contacts'],
      3,
      /actor ghost does not exist in tenant acme/,
    );
    await expectFailure(
      ['permission', 'grant', '--tenant', 'acme', '--actor', 'bot', '--capability', 'crm.deals'],
      3,
      /capability crm\.deals is not registered in tenant acme/,
    );
    await expectFailure(
      ['permission', 'list', '--tenant', 'acme', '--actor', 'ghost'],
      3,
      /actor ghost does not exist/,
    );
    expect(await runJson(['permission', 'revoke', ...p], env)).toMatchObject({ revoked: true });
    await expectFailure(
      ['permission', 'revoke', ...p],
      3,
      /bot holds no standing permission on crm\.contacts/,
    );
    expect(
      (await runJson<{ items: unknown[] }>(['permission', 'list', '--tenant', 'acme'], env)).items,
    ).toEqual([]);
  });

  it('policy example, validate, set and show', async () => {
    const example = await runSvc(['policy', 'example'], env);
    expect(example.stdout).toBe(EXAMPLE_POLICY);
    const good = file('good.cedar', example.stdout);
    const bad = file(
      'bad.cedar',
      'permit (principal, action == Action::"refund", resource)\nwhen { context.tier < 3 ;\n',
    );
    const typo = file(
      'typo.cedar',
      'permit (principal, action, resource)\nwhen { principal.knd == "agent" };\n',
    );

    await expectFailure(
      ['policy', 'show', '--tenant', 'acme'],
      3,
      /tenant acme has no policy set[\s\S]*svc policy set --tenant acme/,
    );
    const valid = await runJson(['policy', 'validate', '--file', good], {
      SVC_HOME: join(tmp.path, 'nowhere'),
    });
    expect(valid).toMatchObject({ valid: true, tenant_id: null, verbs: ['read', 'write'] });
    const r = await expectFailure(
      ['policy', 'validate', '--file', typo, '--tenant', 'acme'],
      2,
      /typo\.cedar:2:8: .*attribute `knd`.*did you mean `kind`/,
    );
    expect(r.stderr).toMatch(/actions: export, read, refund, write/);

    const set = await runJson(['policy', 'set', '--tenant', 'acme', '--file', good], env);
    expect(set).toMatchObject({
      tenant_id: 'acme',
      version: 1,
      changed: true,
      verbs: ['export', 'read', 'refund', 'write'],
    });
    expect(await runJson(['policy', 'set', '--tenant', 'acme', '-f', good], env)).toMatchObject({
      version: 1,
      changed: false,
    });

    // Every error of an invalid text, each at its line and column, and the stored policy stays.
    const refused = await runSvc(['policy', 'set', '--tenant', 'acme', '--file', typo, '--json'], env);
    expect(refused.code).toBe(2);
    const body = JSON.parse(refused.stdout) as { error: { code: string; reason: string; field: string } };
    expect(body.error).toMatchObject({ code: 'invalid_request', field: 'policy' });
    expect(body.error.reason).toMatch(/typo\.cedar:2:8: /);
    await expectFailure(
      ['policy', 'set', '--tenant', 'acme', '--file', bad],
      2,
      /bad\.cedar:2:\d+: .*unexpected token/,
    );
    await expectFailure(
      ['policy', 'set', '--tenant', 'acme', '--file', join(tmp.path, 'none.cedar')],
      3,
      /none\.cedar does not exist/,
    );

    const shown = await runSvc(['policy', 'show', '--tenant', 'acme'], env);
    expect(shown.stdout).toBe(EXAMPLE_POLICY);
    expect(shown.stderr).toMatch(/Policy version 1 of tenant acme/);
    expect(await runJson(['policy', 'show', '--tenant', 'acme'], env)).toMatchObject({
      version: 1,
      text: EXAMPLE_POLICY,
    });
  });

  it('task create, list, show, budget and close', async () => {
    const created = await runJson<Record<string, unknown>>(
      [
        'task',
        'create',
        '--tenant',
        'acme',
        '--sponsor',
        'bob',
        '--budget-usd',
        '250.50',
        '--title',
        'Q3',
        '--actor',
        'bot',
      ],
      env,
    );
    expect(created).toMatchObject({ status: 'active', budget_usd: 250.5, sponsor: 'bob', actors: ['bot'] });
    expect(created.task_id).toMatch(/^task_[0-9a-f]{32}$/);
    const plain = await runSvc(
      ['task', 'create', '--tenant', 'acme', '--id', 'q3', '--sponsor', 'bob', '--budget-usd', '100'],
      env,
    );
    expect(plain.code).toBe(0);
    expect(plain.stdout.trim()).toBe('q3');
    const child = await runJson(
      [
        'task',
        'create',
        '--tenant',
        'acme',
        '--id',
        'q3-eu',
        '--parent',
        'q3',
        '--sponsor',
        'bob',
        '--budget-usd',
        '40',
        '--draft',
      ],
      env,
    );
    expect(child).toMatchObject({
      task_id: 'q3-eu',
      status: 'draft',
      parent_id: 'q3',
      root_id: 'q3',
      budget_usd: 40,
    });

    const create = ['task', 'create', '--tenant', 'acme', '--budget-usd', '1'];
    await expectFailure(
      [...create, '--id', 'q3', '--sponsor', 'bob'],
      4,
      /task q3 already exists in tenant acme/,
    );
    await expectFailure(
      [...create, '--sponsor', 'bot'],
      2,
      /sponsor: bot is an agent, not a human in tenant acme/,
    );
    await expectFailure(
      [...create, '--sponsor', 'ghost'],
      2,
      /sponsor: ghost is not registered in tenant acme/,
    );
    await expectFailure(
      [...create, '--sponsor', 'bob', '--actor', 'alice'],
      2,
      /actor: alice is a human, not an agent/,
    );
    await expectFailure(
      [...create, '--sponsor', 'bob', '--parent', 'nope'],
      2,
      /parent: task nope does not exist in tenant acme/,
    );
    await expectFailure(
      ['task', 'create', '--tenant', 'acme', '--sponsor', 'bob', '--budget-usd', '1e13'],
      2,
      /budget-usd: expected USD .* got a larger amount/,
    );
    await expectFailure(
      ['task', 'create', '--tenant', 'acme', '--sponsor', 'bob'],
      2,
      /Missing required flag[\s\S]*budget-usd/,
    );

    const page = await runJson<{ items: { task_id: string }[]; next_cursor: string | null }>(
      ['task', 'list', '--tenant', 'acme', '--limit', '2'],
      env,
    );
    expect(page.items.map((t) => t.task_id)).toEqual(['q3', 'q3-eu']);
    expect(page.next_cursor).toBe('q3-eu');
    const rest = await runJson<{ items: { task_id: string }[]; next_cursor: string | null }>(
      ['task', 'list', '--tenant', 'acme', '--cursor', 'q3-eu'],
      env,
    );
    expect(rest).toEqual({
      items: [expect.objectContaining({ task_id: created.task_id })],
      next_cursor: null,
    });
    await expectFailure(
      ['task', 'list', '--tenant', 'acme', '--limit', '500'],
      2,
      /limit: expected an integer from 1 to 200/,
    );

    expect(await runJson(['task', 'show', '--tenant', 'acme', '--id', 'q3-eu'], env)).toMatchObject({
      root_id: 'q3',
      reserved_usd: 0,
    });
    await expectFailure(
      ['task', 'show', '--tenant', 'acme', '--id', 'nope'],
      3,
      /task nope does not exist in tenant acme/,
    );

    // Decisions reserve against the budget; here the reservation is written as the daemon would.
    const db = new Database(join(home, 'svc.db'));
    db.prepare("UPDATE tasks SET reserved_micros = 37250001 WHERE id = 'q3'").run();
    db.close();
    await expectFailure(
      ['task', 'budget', '--tenant', 'acme', '--id', 'q3', '--set', '37.25'],
      4,
      /task q3 already has 37\.250001 USD reserved[\s\S]*at least 37\.250001 USD/,
    );
    const raised = await runJson(['task', 'budget', '--tenant', 'acme', '--id', 'q3', '--set', '500'], env);
    expect(raised).toMatchObject({
      task_id: 'q3',
      previous_budget_usd: 100,
      budget_usd: 500,
      reserved_usd: 37.250001,
    });
    await expectFailure(
      ['task', 'budget', '--tenant', 'acme', '--id', 'q3', '--set', 'lots'],
      2,
      /set: expected USD/,
    );
    await expectFailure(
      ['task', 'budget', '--tenant', 'acme', '--id', 'nope', '--set', '1'],
      3,
      /task nope does not exist/,
    );

    expect(await runJson(['task', 'close', '--tenant', 'acme', '--id', 'q3'], env)).toMatchObject({
      status: 'closed',
      closed_at: expect.any(String),
    });
    await expectFailure(['task', 'close', '--tenant', 'acme', '--id', 'q3'], 4, /task q3 is closed/);
    await expectFailure(
      ['task', 'budget', '--tenant', 'acme', '--id', 'q3', '--set', '600'],
      4,
      /task q3 is closed/,
    );
    await expectFailure(
      [...create, '--sponsor', 'bob', '--parent', 'q3'],
      4,
      /parent: task q3 is closed and takes no new children/,
    );
    await expectFailure(['task', 'close', '--tenant', 'acme', '--id', 'nope'], 3, /task nope does not exist/);
  });

  it('apply: a document applied twice changes nothing the second time', async () => {
    file('apply.cedar', 'permit (principal, action == Action::"export", resource);\n');
    const doc = file(
      'deploy.yaml',
      [
        'version: 1',
        'tenant: acme',
        'actors:',
        '  - {id: carol, kind: human, roles: [manager]}',
        '  - {id: crm-agent, kind: agent, manager: carol}',
        'capabilities:',
        '  - name: crm.deals',
        '    tier: 2',
        '    actions: [read, export]',
        '    cost_usd: 0.5',
        'permissions:',
        '  - {actor: crm-agent, capability: crm.deals}',
        'policy:',
        '  file: apply.cedar',
        'tasks:',
        '  - {id: q4, sponsor: carol, budget_usd: 75, actors: [crm-agent]}',
        '',
      ].join('\n'),
    );
    const dry = await runJson(['apply', '-f', doc, '--dry-run'], env);
    expect(dry).toMatchObject({ dry_run: true, created: 5, updated: 1, unchanged: 0 });
    const first = await runJson(['apply', '-f', doc], env);
    expect(first).toMatchObject({ tenant_id: 'acme', dry_run: false, created: 5, updated: 1, unchanged: 0 });
    const second = await runSvc(['apply', '--file', doc], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/Applied .*deploy\.yaml to tenant acme: 0 created, 0 updated, 6 unchanged/);
    expect(await runJson(['policy', 'show', '--tenant', 'acme'], env)).toMatchObject({ version: 2 });
    expect(await runJson(['task', 'show', '--tenant', 'acme', '--id', 'q4'], env)).toMatchObject({
      budget_usd: 75,
      actors: ['crm-agent'],
    });
  });

  it('apply: errors name the file, line, column and path, and nothing is written', async () => {
    const yamlError = file(
      'broken.yaml',
      'version: 1\ntenant: acme\nactors:\n  - id: dave\n    kind: human\n   roles: [manager]\n',
    );
    await expectFailure(
      ['apply', '-f', yamlError],
      2,
      /broken\.yaml is not a valid deployment document, 1 error:\n {2}.*broken\.yaml:6:1: /,
    );
    const shape = file(
      'shape.yaml',
      'version: 1\ntenant: acme\ntasks:\n  - id: t9\n    sponsor: bob\n    budget: 5\n',
    );
    const r = await expectFailure(
      ['apply', '-f', shape],
      2,
      /shape\.yaml:4:5: tasks\[0\]\.budget_usd: required/,
    );
    expect(r.stderr).toMatch(
      /shape\.yaml:6:5: tasks\[0\]\.budget: unknown field \(expected one of id, title, sponsor, budget_usd, draft, parent, actors\)/,
    );
    const late = file(
      'late.yaml',
      'version: 1\ntenant: acme\nactors:\n  - {id: erin, kind: human}\ntasks:\n  - id: t9\n    sponsor: bot\n    budget_usd: 5\n',
    );
    await expectFailure(
      ['apply', '-f', late],
      2,
      /late\.yaml:7:14: tasks\[0\]\.sponsor: bot is an agent, not a human in tenant acme/,
    );
    const actors = await runJson<{ items: { actor_id: string }[] }>(
      ['actor', 'list', '--tenant', 'acme'],
      env,
    );
    expect(actors.items.map((a) => a.actor_id)).not.toContain('erin');
    await expectFailure(['apply', '-f', join(tmp.path, 'none.yaml')], 3, /none\.yaml does not exist/);
    const json = await runSvc(['apply', '-f', late, '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({
      error: { code: 'invalid_request', field: 'tasks[0].sponsor' },
    });
  });
});
