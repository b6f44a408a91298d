import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tokenState } from '../../src/core/token.js';
import { listCapabilities } from '../../src/provisioning/capability.js';
import { readDemoState, writeDemoState } from '../../src/provisioning/demo-state.js';
import { DEMO } from '../../src/provisioning/demo-spec.js';
import { checkDemoDir, ensureDemo } from '../../src/provisioning/demo.js';
import { initDataDir } from '../../src/provisioning/init.js';
import { showPolicy } from '../../src/provisioning/policy.js';
import { setTaskBudget, showTask } from '../../src/provisioning/task.js';
import { revokeToken } from '../../src/provisioning/token.js';
import { DataDir } from '../../src/store/data-dir.js';
import type { Store } from '../../src/store/ports.js';
import { tmpDir } from '../helpers/tmp.js';

/** The quickstart's data dir on real SQLite: made once, re-run safely, never re-minting tokens. */
describe('the quickstart demo', () => {
  let tmp: { path: string; cleanup: () => void };
  let root: string;
  const now = new Date('2026-06-01T12:00:00.000Z');
  const withStore = async <T>(fn: (store: Store) => Promise<T>) => {
    const store = await new DataDir(root).openStore();
    try {
      return await fn(store);
    } finally {
      await store.close();
    }
  };

  beforeEach(() => {
    tmp = tmpDir('svc-demo-');
    root = join(tmp.path, '.svc');
  });
  afterEach(() => tmp.cleanup());

  it('provisions everything the walk-through needs, with an administrator who approves', async () => {
    const demo = await ensureDemo(root, now);
    expect(demo.created).toBe(true);
    await withStore(async (store) => {
      const admin = await store.actors.get(DEMO.tenant, DEMO.admin);
      expect(admin?.roles).toEqual(expect.arrayContaining(['administrator', 'operator', 'approver']));
      expect((await store.actors.get(DEMO.tenant, DEMO.agent))?.managerId).toBe(DEMO.admin);
      const caps = await listCapabilities(store, DEMO.tenant);
      expect(caps.map((c) => [c.name, c.irreversible, c.actions])).toEqual([
        [DEMO.readable, false, ['read']],
        [DEMO.irreversible, true, ['refund']],
      ]);
      expect((await showPolicy(store, DEMO.tenant)).text).toContain('@id("refund-limit")');
      const task = await showTask(store, DEMO.tenant, DEMO.task);
      expect(task).toMatchObject({
        status: 'active',
        budget_usd: DEMO.budgetUsd,
        sponsor: DEMO.admin,
        actors: [DEMO.agent],
      });
      for (const t of [demo.admin, demo.agent]) {
        const row = (await store.tokens.list(DEMO.tenant)).find((r) => r.id === t.token_id);
        expect(row && tokenState(row, now)).toBe('active');
      }
    });
    const kept = join(root, 'quickstart.json');
    expect(statSync(kept).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(kept, 'utf8'))).toEqual({
      admin: { token_id: demo.admin.token_id, token: demo.admin.token },
      agent: { token_id: demo.agent.token_id, token: demo.agent.token },
      provisioned: true,
    });
  });

  it('a re-run shows the same tokens, mints none, and leaves what the user changed', async () => {
    const first = await ensureDemo(root, now);
    await withStore((store) =>
      setTaskBudget(store, { tenantId: DEMO.tenant, id: DEMO.task, budgetUsd: 900 }),
    );
    const again = await ensureDemo(root, new Date(now.getTime() + 60_000));
    expect(again.created).toBe(false);
    expect([again.admin.token, again.agent.token]).toEqual([first.admin.token, first.agent.token]);
    await withStore(async (store) => {
      expect(await store.tokens.list(DEMO.tenant)).toHaveLength(2);
      expect((await showTask(store, DEMO.tenant, DEMO.task)).budget_usd).toBe(900);
    });
  });

  it('replaces a token only once it stopped working, and keeps the replacement', async () => {
    const first = await ensureDemo(root, now);
    await withStore((store) =>
      revokeToken(store, { tenantId: DEMO.tenant, tokenId: first.agent.token_id, now }),
    );
    const again = await ensureDemo(root, now);
    expect(again.agent.token_id).not.toBe(first.agent.token_id);
    expect(again.admin.token_id).toBe(first.admin.token_id);
    expect(readDemoState(new DataDir(root))?.agent?.token_id).toBe(again.agent.token_id);
  });

  it('finishes a first run that stopped after init, without a second administrator token', async () => {
    const init = await initDataDir(root, { tenantId: DEMO.tenant, adminId: DEMO.admin, now });
    writeDemoState(new DataDir(root), {
      admin: { token_id: init.admin_token_id, token: init.admin_token },
      provisioned: false,
    });
    const demo = await ensureDemo(root, now);
    expect(demo.created).toBe(false);
    expect(demo.admin.token).toBe(init.admin_token);
    await withStore(async (store) => expect(await store.actors.get(DEMO.tenant, DEMO.agent)).toBeDefined());
    expect(readDemoState(new DataDir(root))?.provisioned).toBe(true);
  });

  it('refuses a data dir it did not make, before touching it', async () => {
    await initDataDir(root, { tenantId: 'acme', adminId: 'alice', now });
    expect(() => checkDemoDir(root)).toThrow(/svc quickstart did not make/);
    await expect(ensureDemo(root, now)).rejects.toMatchObject({ kind: 'conflict' });
    await withStore(async (store) => expect(await store.tenants.get(DEMO.tenant)).toBeUndefined());
  });
});
