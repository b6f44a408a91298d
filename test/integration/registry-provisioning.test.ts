import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  listCapabilities,
  registerCapability,
  type CapabilityInput,
} from '../../src/provisioning/capability.js';
import { grantPermission, listPermissions, revokePermission } from '../../src/provisioning/permission.js';
import { setPolicy, showPolicy, verbsFor } from '../../src/provisioning/policy.js';
import {
  closeTask,
  createTask,
  listTasks,
  setTaskBudget,
  showTask,
  type TaskInput,
} from '../../src/provisioning/task.js';
import { registryDir, type RegistryDir } from '../helpers/registry-dir.js';

const base: CapabilityInput = { tenantId: 'acme', name: 'crm.contacts', tier: 1, actions: ['read'] };
const job: TaskInput = { tenantId: 'acme', sponsorId: 'bob', budgetUsd: '100' };

describe('registration provisioning', () => {
  let r: RegistryDir;
  beforeEach(async () => {
    r = await registryDir();
  });
  afterEach(async () => r.close());

  describe('capabilities', () => {
    it('registers, then reports unchanged, then names the fields an update changed', async () => {
      const first = await registerCapability(
        r.store,
        {
          ...base,
          actions: ['write,read', 'read', ''],
          costUsd: '0.015',
          requestable: true,
          owners: ['bob', 'alice'],
        },
        r.now,
      );
      expect(first).toMatchObject({
        result: 'created',
        changed: [],
        actions: ['read', 'write'],
        cost_usd: 0.015,
        owners: ['alice', 'bob'],
        custody: 'grant',
        irreversible: false,
      });
      const again = await registerCapability(
        r.store,
        {
          ...base,
          actions: ['read', 'write'],
          costUsd: '0.015000',
          requestable: true,
          owners: ['alice', 'bob'],
        },
        new Date('2026-07-01T00:00:00Z'),
      );
      expect(again).toMatchObject({ result: 'unchanged', changed: [], updated_at: first.updated_at });
      const changed = await registerCapability(r.store, { ...base, tier: 2, irreversible: true }, r.now);
      expect(changed.result).toBe('updated');
      expect(changed.changed).toEqual([
        'tier',
        'irreversible',
        'actions',
        'cost_usd',
        'requestable',
        'owners',
      ]);
      expect((await listCapabilities(r.store, 'acme')).map((c) => c.name)).toEqual(['crm.contacts']);
    });

    it('refuses a bad field, naming it and what was expected', async () => {
      const cases: [Partial<CapabilityInput>, RegExp][] = [
        [{ name: 'CRM Contacts' }, /^name: expected a capability name/],
        [{ tier: 10 }, /^tier: expected an integer from 0 to 9/],
        [{ tier: 1.5 }, /^tier: expected an integer/],
        [{ actions: [] }, /^actions: expected at least one verb/],
        [{ actions: ['read', 'Delete'] }, /^actions: expected verbs of lowercase letters \(got "Delete"\)/],
        [{ custody: 'escrow' }, /^custody: expected one of grant, brokered, pass_through/],
        [{ custody: 'brokered' }, /^surface: a brokered capability names a surface and an operation/],
        [{ surface: 'stripe', operation: 'refund' }, /^surface: only brokered capabilities/],
        [{ costUsd: '1.0000001' }, /^cost-usd: expected USD .* at most 6 decimal places/],
        [{ costUsd: 'ten' }, /^cost-usd: expected USD/],
        [{ approvers: ['bot'] }, /^approver: bot is an agent, not a human in tenant acme/],
        [{ owners: ['ghost'] }, /^owner: ghost is not registered in tenant acme/],
        [{ approvers: ['olga'] }, /^approver: olga is not registered in tenant acme/],
      ];
      for (const [over, reason] of cases) {
        await expect(
          registerCapability(r.store, { ...base, ...over }, r.now),
          JSON.stringify(over),
        ).rejects.toMatchObject({
          code: 'invalid_request',
          reason: expect.stringMatching(reason),
        });
      }
      await expect(registerCapability(r.store, { ...base, tenantId: 'ghost' }, r.now)).rejects.toMatchObject({
        code: 'not_found',
      });
      expect(await listCapabilities(r.store, 'acme')).toEqual([]);
    });

    it('refuses to drop a verb the stored policy names, and leaves both as they were', async () => {
      await registerCapability(r.store, { ...base, name: 'crm.notes', actions: ['delete'] }, r.now);
      await setPolicy(r.store, {
        tenantId: 'acme',
        text: 'permit (principal, action == Action::"delete", resource);\n',
        source: 'p.cedar',
        now: r.now,
      });
      const version = r.registryVersion();
      await expect(
        registerCapability(r.store, { ...base, name: 'crm.notes', actions: ['read'] }, r.now),
      ).rejects.toMatchObject({
        code: 'conflict',
        reason: expect.stringMatching(
          /would no longer validate without "delete" \(actions: read, write\), 1 error:\n {2}\(stored policy\):1:\d+: .*delete/,
        ),
      });
      expect(r.registryVersion()).toBe(version);
      expect((await listCapabilities(r.store, 'acme'))[0]?.actions).toEqual(['delete']);
      // Another capability keeping the verb makes the change safe.
      await registerCapability(r.store, { ...base, name: 'crm.files', actions: ['delete'] }, r.now);
      expect(
        (await registerCapability(r.store, { ...base, name: 'crm.notes', actions: ['read'] }, r.now)).result,
      ).toBe('updated');
    });
  });

  describe('permissions', () => {
    beforeEach(async () => {
      await registerCapability(r.store, base, r.now);
      await registerCapability(r.store, { ...base, name: 'crm.notes' }, r.now);
    });

    it('grants once, lists with filters, revokes once', async () => {
      const ref = { tenantId: 'acme', actorId: 'bot', capability: 'crm.contacts' };
      expect(await grantPermission(r.store, ref, r.now)).toMatchObject({
        result: 'created',
        actor_id: 'bot',
      });
      const again = await grantPermission(r.store, ref, new Date('2027-01-01T00:00:00Z'));
      expect(again).toMatchObject({ result: 'unchanged', granted_at: r.now.toISOString() });
      await grantPermission(r.store, { ...ref, actorId: 'bot2' }, r.now);
      await grantPermission(r.store, { ...ref, capability: 'crm.notes' }, r.now);
      expect(
        (await listPermissions(r.store, { tenantId: 'acme', actorId: 'bot' })).map((p) => p.capability),
      ).toEqual(['crm.contacts', 'crm.notes']);
      expect(
        (await listPermissions(r.store, { tenantId: 'acme', capability: 'crm.contacts' })).map(
          (p) => p.actor_id,
        ),
      ).toEqual(['bot', 'bot2']);
      expect(await revokePermission(r.store, ref)).toMatchObject({ revoked: true });
      await expect(revokePermission(r.store, ref)).rejects.toMatchObject({ code: 'not_found' });
    });

    it('only for registered actors and capabilities of the tenant', async () => {
      const ref = { tenantId: 'acme', actorId: 'bot', capability: 'crm.contacts' };
      await expect(grantPermission(r.store, { ...ref, actorId: 'olga' }, r.now)).rejects.toMatchObject({
        code: 'not_found',
        reason: 'actor olga does not exist in tenant acme',
      });
      await expect(
        grantPermission(r.store, { ...ref, capability: 'crm.deals' }, r.now),
      ).rejects.toMatchObject({
        code: 'not_found',
        reason: 'capability crm.deals is not registered in tenant acme',
      });
      await expect(
        grantPermission(r.store, { ...ref, tenantId: 'other', actorId: 'olga' }, r.now),
      ).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(listPermissions(r.store, { tenantId: 'acme', actorId: 'ghost' })).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  describe('policy', () => {
    it('validates against the tenant verbs; the same text keeps its version', async () => {
      const set = await setPolicy(r.store, {
        tenantId: 'acme',
        text: 'permit (principal, action == Action::"read", resource);',
        source: 'p.cedar',
        now: r.now,
      });
      expect(set).toMatchObject({ version: 1, changed: true, verbs: ['read', 'write'] });
      const same = await setPolicy(r.store, {
        tenantId: 'acme',
        text: 'permit (principal, action == Action::"read", resource);',
        source: 'p.cedar',
        now: r.now,
      });
      expect(same).toMatchObject({ version: 1, changed: false });
      expect(await showPolicy(r.store, 'acme')).toMatchObject({
        version: 1,
        text: expect.stringContaining('permit'),
      });
    });

    it('refuses an invalid text with every error at its line and column, keeping the old policy', async () => {
      await setPolicy(r.store, { tenantId: 'acme', text: '', source: 'p.cedar', now: r.now });
      const text = [
        'permit (principal, action == Action::"refund", resource);',
        '',
        'permit (principal, action, resource)',
        'when { principal.knd == "agent" };',
      ].join('\n');
      const err = await setPolicy(r.store, { tenantId: 'acme', text, source: 'bad.cedar', now: r.now }).catch(
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'invalid_request', field: 'policy' });
      const reason = (err as { reason: string }).reason;
      expect(reason).toMatch(
        /^bad\.cedar does not validate against the schema \(actions: read, write\), 2 errors:\n/,
      );
      expect(reason).toMatch(/\n {2}bad\.cedar:1:\d+: .*unrecognized action `Action::"refund"`/);
      expect(reason).toMatch(/\n {2}bad\.cedar:4:8: .*attribute `knd`.*\(help: did you mean `kind`\?\)/);
      expect(await showPolicy(r.store, 'acme')).toMatchObject({ version: 1, text: '' });
      // Registering the verb makes the first policy valid.
      await registerCapability(r.store, { ...base, actions: ['refund'] }, r.now);
      const ok = await setPolicy(r.store, {
        tenantId: 'acme',
        text: text.split('\n')[0] as string,
        source: 'p',
        now: r.now,
      });
      expect(ok).toMatchObject({ version: 2, verbs: ['read', 'refund', 'write'] });
    });

    it('show says how to install one when there is none; validate verbs come from the tenant or the flags', async () => {
      await expect(showPolicy(r.store, 'acme')).rejects.toMatchObject({
        code: 'not_found',
        remedy: expect.stringContaining('svc policy set --tenant acme'),
      });
      await registerCapability(r.store, { ...base, actions: ['delete'] }, r.now);
      expect(await verbsFor({ store: r.store, tenantId: 'acme' }, ['launch'])).toEqual([
        'delete',
        'launch',
        'read',
        'write',
      ]);
      expect(await verbsFor(undefined, ['x,y'])).toEqual(['read', 'write', 'x', 'y']);
      await expect(verbsFor(undefined, ['Bad'])).rejects.toMatchObject({ field: 'verb' });
      await expect(verbsFor({ store: r.store, tenantId: 'ghost' }, [])).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  describe('tasks', () => {
    it('creates an active task with a generated id, or a draft; budgets are JSON numbers of USD', async () => {
      const t = await createTask(
        r.store,
        { ...job, budgetUsd: '250.5', title: 'Q3', actors: ['bot'] },
        r.now,
      );
      expect(t).toMatchObject({
        task_id: expect.stringMatching(/^task_[0-9a-f]{32}$/),
        status: 'active',
        budget_usd: 250.5,
        reserved_usd: 0,
        sponsor: 'bob',
        actors: ['bot'],
        parent_id: null,
      });
      expect(t.root_id).toBe(t.task_id);
      const d = await createTask(r.store, { ...job, id: 'later', draft: true }, r.now);
      expect(d.status).toBe('draft');
      await expect(createTask(r.store, { ...job, id: 'later' }, r.now)).rejects.toMatchObject({
        code: 'already_exists',
      });
    });

    it('refuses a sponsor that is not a registered human and agents that are not registered agents', async () => {
      const cases: [Partial<TaskInput>, string | RegExp][] = [
        [{ sponsorId: 'bot' }, 'sponsor: bot is an agent, not a human in tenant acme'],
        [{ sponsorId: 'olga' }, 'sponsor: olga is not registered in tenant acme'],
        [{ actors: ['alice'] }, 'actor: alice is a human, not an agent in tenant acme'],
        [{ actors: ['bot', 'ghost'] }, 'actor: ghost is not registered in tenant acme'],
        [{ parentId: 'nope' }, 'parent: task nope does not exist in tenant acme'],
        [{ id: 'Bad Id' }, /^id: expected a slug/],
        [{ budgetUsd: '-5' }, /^budget-usd: expected USD .* got a negative amount/],
        [{ title: 'x'.repeat(201) }, 'title: expected at most 200 characters of well-formed text'],
      ];
      for (const [over, reason] of cases) {
        await expect(
          createTask(r.store, { ...job, ...over }, r.now),
          JSON.stringify(over),
        ).rejects.toMatchObject({
          code: 'invalid_request',
          reason,
        });
      }
      expect((await listTasks(r.store, { tenantId: 'acme', limit: 10 })).items).toEqual([]);
    });

    it('a child joins its parent tree; a closed task takes no children', async () => {
      await createTask(r.store, { ...job, id: 'root' }, r.now);
      await createTask(r.store, { ...job, id: 'child', parentId: 'root' }, r.now);
      const grandchild = await createTask(r.store, { ...job, id: 'grandchild', parentId: 'child' }, r.now);
      expect(grandchild).toMatchObject({ parent_id: 'child', root_id: 'root' });
      await closeTask(r.store, { tenantId: 'acme', id: 'child', now: r.now });
      await expect(createTask(r.store, { ...job, parentId: 'child' }, r.now)).rejects.toMatchObject({
        code: 'conflict',
        reason: 'parent: task child is closed and takes no new children',
      });
    });

    it('close is final; a budget below what is reserved is refused with the exact reserved amount', async () => {
      await createTask(r.store, { ...job, id: 'q3' }, r.now);
      r.store.db.prepare('UPDATE tasks SET reserved_micros = 12345678 WHERE id = ?').run('q3');
      await expect(
        setTaskBudget(r.store, { tenantId: 'acme', id: 'q3', budgetUsd: '12.345677' }),
      ).rejects.toMatchObject({
        code: 'conflict',
        reason: 'task q3 already has 12.345678 USD reserved; its budget cannot be set below that',
        remedy: 'set a budget of at least 12.345678 USD',
      });
      const raised = await setTaskBudget(r.store, { tenantId: 'acme', id: 'q3', budgetUsd: '12.345678' });
      expect(raised).toMatchObject({
        previous_budget_usd: 100,
        budget_usd: 12.345678,
        reserved_usd: 12.345678,
      });
      const closed = await closeTask(r.store, { tenantId: 'acme', id: 'q3', now: r.now });
      expect(closed).toMatchObject({ status: 'closed', closed_at: r.now.toISOString() });
      await expect(closeTask(r.store, { tenantId: 'acme', id: 'q3', now: r.now })).rejects.toMatchObject({
        code: 'conflict',
      });
      await expect(closeTask(r.store, { tenantId: 'acme', id: 'nope', now: r.now })).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(showTask(r.store, 'acme', 'nope')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('lists a page at a time with a cursor, and bounds the page size', async () => {
      for (const id of ['a', 'b', 'c']) await createTask(r.store, { ...job, id }, r.now);
      const one = await listTasks(r.store, { tenantId: 'acme', limit: 2 });
      expect(one.items.map((t) => t.task_id)).toEqual(['a', 'b']);
      expect(one.next_cursor).toBe('b');
      const two = await listTasks(r.store, { tenantId: 'acme', limit: 2, cursor: 'b' });
      expect(two).toMatchObject({ items: [{ task_id: 'c' }], next_cursor: null });
      for (const limit of [0, 201, 1.5]) {
        await expect(listTasks(r.store, { tenantId: 'acme', limit })).rejects.toMatchObject({
          field: 'limit',
        });
      }
    });
  });
});
