import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyDeployment, type ApplyResult } from '../../src/provisioning/apply.js';
import { DeploymentDocument } from '../../src/provisioning/deployment-document.js';
import { setPolicy } from '../../src/provisioning/policy.js';
import { registryDir, type RegistryDir } from '../helpers/registry-dir.js';

const DOC = `version: 1
tenant: acme

actors:
  - id: crm-agent        # managed by carol, who is listed after it
    kind: agent
    manager: carol
  - id: carol
    kind: human
    roles: [approver, manager]

capabilities:
  - name: crm.contacts
    tier: 1
    actions: [read, write]
    cost_usd: 0.01
    requestable: true
  - name: payments.refund
    tier: 4
    irreversible: true
    custody: brokered
    surface: stripe
    operation: refunds.create
    actions: [refund]
    cost_usd: 25
    approvers: [carol]

permissions:
  - actor: crm-agent
    capability: crm.contacts

policy:
  file: policy.cedar

tasks:
  - id: q4-eu              # its parent is listed after it
    parent: q4
    sponsor: carol
    budget_usd: 50
    draft: true
  - id: q4
    title: Q4 CRM cleanup
    sponsor: carol
    budget_usd: 123456789012.123456
    actors: [crm-agent]
`;

const POLICY = 'permit (principal, action == Action::"refund", resource) when { context.tier < 5 };\n';

describe('svc apply', () => {
  let r: RegistryDir;
  const write = (name: string, text: string) => writeFileSync(join(r.root, name), text);
  const apply = (text: string, dryRun = false): Promise<ApplyResult> => {
    write('deploy.yaml', text);
    return applyDeployment(r.store, DeploymentDocument.read(join(r.root, 'deploy.yaml')), {
      now: r.now,
      dryRun,
    });
  };
  const failure = (text: string) =>
    apply(text).then(
      () => {
        throw new Error('expected the document to be refused');
      },
      (err: unknown) => err as { code: string; reason: string },
    );

  beforeEach(async () => {
    r = await registryDir();
    write('policy.cedar', POLICY);
  });
  afterEach(async () => r.close());

  it('registers everything in dependency order, and a second run changes nothing', async () => {
    const first = await apply(DOC);
    expect(first).toMatchObject({ tenant_id: 'acme', dry_run: false, created: 8, updated: 0, unchanged: 0 });
    expect(first.changes.map((c) => `${c.kind} ${c.id}`)).toEqual([
      'actor carol',
      'actor crm-agent',
      'capability crm.contacts',
      'capability payments.refund',
      'permission crm-agent/crm.contacts',
      'policy acme',
      'task q4',
      'task q4-eu',
    ]);
    const q4 = await r.store.tasks.get('acme', 'q4');
    expect(q4).toMatchObject({ budgetMicros: 123456789012123456n, actors: ['crm-agent'], status: 'active' });
    expect(await r.store.tasks.get('acme', 'q4-eu')).toMatchObject({ rootId: 'q4', status: 'draft' });
    expect(await r.store.policies.get('acme')).toMatchObject({ version: 1, text: POLICY });
    expect((await r.store.capabilities.get('acme', 'payments.refund'))?.costMicros).toBe(25_000_000n);

    const version = r.registryVersion();
    const second = await apply(DOC);
    expect(second).toMatchObject({ created: 0, updated: 0, unchanged: 8 });
    expect(second.changes.every((c) => c.result === 'unchanged')).toBe(true);
    expect(r.registryVersion()).toBe(version);
  });

  it('reports updates: a capability replaced, a budget changed and an agent added', async () => {
    await apply(DOC);
    const changed = DOC.replace('tier: 1', 'tier: 2')
      .replace('budget_usd: 50', 'budget_usd: 75')
      .replace('    draft: true', '    draft: true\n    actors: [crm-agent]');
    const result = await apply(changed);
    expect(result).toMatchObject({ created: 0, updated: 2, unchanged: 6 });
    expect(result.changes.filter((c) => c.result === 'updated')).toEqual([
      { kind: 'capability', id: 'crm.contacts', result: 'updated', changed: ['tier'] },
      { kind: 'task', id: 'q4-eu', result: 'updated', changed: ['budget_usd', 'actors'] },
    ]);
    expect(await r.store.tasks.get('acme', 'q4-eu')).toMatchObject({
      budgetMicros: 75_000_000n,
      actors: ['crm-agent'],
    });
  });

  it('a dry run checks everything and writes nothing', async () => {
    const result = await apply(DOC, true);
    expect(result).toMatchObject({ dry_run: true, created: 8 });
    expect(await r.store.actors.get('acme', 'carol')).toBeUndefined();
    expect(await r.store.capabilities.list('acme')).toEqual([]);
  });

  it('checks the whole document before writing: a bad last entry writes nothing, and says where', async () => {
    const err = await failure(
      DOC.replace('    sponsor: carol\n    budget_usd: 1234', '    sponsor: ghost\n    budget_usd: 1234'),
    );
    expect(err.code).toBe('invalid_request');
    expect(err.reason).toBe(
      `${join(r.root, 'deploy.yaml')}:43:14: tasks[1].sponsor: ghost is not registered in tenant acme`,
    );
    expect(await r.store.actors.get('acme', 'carol')).toBeUndefined();
    expect(await r.store.capabilities.list('acme')).toEqual([]);
    expect(await r.store.policies.get('acme')).toBeUndefined();
  });

  it('places value errors of every section at their line', async () => {
    const cases: [string, string, RegExp][] = [
      ['manager: carol', 'manager: bob2', /:7:14: actors\[0\]\.manager: bob2 is not registered/],
      [
        'cost_usd: 0.01',
        'cost_usd: 0.0000001',
        /:16:15: capabilities\[0\]\.cost_usd: expected USD .* 6 decimal places/,
      ],
      [
        'approvers: [carol]',
        'approvers: [crm-agent]',
        /:26:16: capabilities\[1\]\.approvers: crm-agent is an agent/,
      ],
      [
        'capability: crm.contacts',
        'capability: crm.deals',
        /:30:17: permissions\[0\]\.capability: crm\.deals is not registered/,
      ],
      ['tenant: acme', 'tenant: ghost', /:2:9: tenant: tenant ghost does not exist/],
      [
        'parent: q4\n',
        'parent: q4-eu\n',
        /:37:13: tasks\[0\]\.parent: the parent chain of task q4-eu leads back to itself/,
      ],
    ];
    for (const [from, to, reason] of cases) {
      const err = await failure(DOC.replace(from, to));
      expect(err.reason, to).toMatch(reason);
    }
  });

  it('refuses a policy that does not validate against the verbs the document registers, with every error', async () => {
    write(
      'policy.cedar',
      'permit (principal, action == Action::"launch", resource);\n\npermit (principal, action, resource) when { principal.knd == "x" };\n',
    );
    const err = await failure(DOC);
    expect(err.reason).toMatch(
      /:33:9: policy\.file: policy\.cedar does not validate against the schema \(actions: read, refund, write\)/,
    );
    expect(err.reason).toMatch(/\n {2}policy\.cedar:1:\d+: .*launch/);
    expect(await r.store.capabilities.list('acme')).toEqual([]);
    const inline = DOC.replace(
      '  file: policy.cedar',
      '  text: |\n    permit (principal, action == Action::"refund", resource);',
    );
    expect((await apply(inline)).changes.find((c) => c.kind === 'policy')).toMatchObject({
      result: 'created',
    });
    expect((await r.store.policies.get('acme'))?.text).toBe(
      'permit (principal, action == Action::"refund", resource);\n',
    );
    const missing = await failure(DOC.replace('file: policy.cedar', 'file: nope.cedar'));
    expect(missing).toMatchObject({
      code: 'not_found',
      reason: expect.stringMatching(/:33:9: policy\.file: .*nope\.cedar does not exist/),
    });
  });

  it('does not change a registered actor or a task sponsor, parent or title', async () => {
    await apply(DOC);
    const roles = await failure(DOC.replace('roles: [approver, manager]', 'roles: [approver]'));
    expect(roles).toMatchObject({
      code: 'conflict',
      reason: expect.stringMatching(
        /:10:12: actors\[1\]\.roles: actor carol is registered with a different roles/,
      ),
    });
    const title = await failure(DOC.replace('Q4 CRM cleanup', 'Q4 cleanup'));
    expect(title).toMatchObject({
      code: 'conflict',
      reason: expect.stringMatching(/:42:12: tasks\[1\]\.title: task q4 exists with title Q4 CRM cleanup/),
    });
    // Fields an entry leaves out are not compared.
    const terse = DOC.replace('    roles: [approver, manager]\n', '').replace(
      '    title: Q4 CRM cleanup\n',
      '',
    );
    expect((await apply(terse)).unchanged).toBe(8);
  });

  it('a closed task stays closed; a budget below the reservations is refused with the amount', async () => {
    await apply(DOC);
    r.store.db.prepare("UPDATE tasks SET reserved_micros = 60000000 WHERE id = 'q4-eu'").run();
    const below = await failure(DOC.replace('budget_usd: 50', 'budget_usd: 59.999999'));
    expect(below).toMatchObject({
      code: 'conflict',
      reason: expect.stringMatching(/tasks\[0\]\.budget_usd: task q4-eu already has 60 USD reserved/),
    });
    await r.store.tasks.close('acme', 'q4', r.now.toISOString());
    expect((await apply(DOC)).unchanged).toBe(8);
    const closed = await failure(DOC.replace('budget_usd: 1234', 'budget_usd: 1'));
    expect(closed).toMatchObject({
      code: 'conflict',
      reason: expect.stringMatching(/task q4 is closed; a closed task is final/),
    });
  });

  it('refuses a parent chain that loops, and a capability change that would strand the stored policy', async () => {
    const loop = await failure(DOC.replace('    title: Q4 CRM cleanup\n', '    parent: q4-eu\n'));
    expect(loop.reason).toMatch(
      /tasks\[\d\]\.parent: the parent chain of task q4(-eu)? leads back to itself/,
    );
    await r.store.capabilities.put({
      tenantId: 'acme',
      name: 'payments.refund',
      tier: 4,
      irreversible: true,
      custody: 'grant',
      actions: ['refund'],
      costMicros: 0n,
      requestable: false,
      approvers: [],
      owners: [],
      surfaceId: null,
      operation: null,
      createdAt: '',
      updatedAt: '',
    });
    await setPolicy(r.store, { tenantId: 'acme', text: POLICY, source: 'p', now: r.now });
    const noPolicy = DOC.replace('policy:\n  file: policy.cedar\n', '').replace(
      'actions: [refund]',
      'actions: [write]',
    );
    const err = await failure(noPolicy);
    expect(err).toMatchObject({
      code: 'conflict',
      reason: expect.stringMatching(
        /:13:3: capabilities: the stored policy of tenant acme would no longer validate without "refund"/,
      ),
    });
  });
});
