import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type RunningDaemon } from '../../src/daemon/server.js';
import { addActor } from '../../src/provisioning/actor.js';
import { initDataDir } from '../../src/provisioning/init.js';
import { issueToken } from '../../src/provisioning/token.js';
import { DataDir } from '../../src/store/data-dir.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { capability, register } from '../helpers/registry.js';
import { tmpDir } from '../helpers/tmp.js';
import { until } from '../helpers/until.js';

/**
 * `RunningDaemon.reload(live)`: the live settings a reload takes (anchor thresholds, the
 * open-approval bound) change what the running daemon does next, over real HTTP and a
 * real SQLite file; a bad one refuses the whole reload and nothing changes.
 */
describe('svc daemon: live settings on reload', () => {
  let daemon: RunningDaemon | undefined;
  let tmp: ReturnType<typeof tmpDir> | undefined;
  afterEach(async () => {
    await daemon?.close();
    tmp?.cleanup();
  });

  async function started(): Promise<{
    d: RunningDaemon;
    decide: (step: string) => Promise<Record<string, unknown>>;
  }> {
    tmp = tmpDir();
    const now = new Date();
    await initDataDir(tmp.path, { tenantId: 'acme', adminId: 'alice', now });
    const store = SqliteStore.open(new DataDir(tmp.path).database);
    let bot: string;
    try {
      await addActor(store, { tenantId: 'acme', id: 'bot', kind: 'agent', managerId: 'alice' }, now);
      await register(store, 'acme', {
        caps: [capability('acme', 'pay.send', { actions: ['write'], irreversible: true, tier: 4 })],
        grants: [['bot', 'pay.send']],
        tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n, actors: ['bot'] }],
      });
      bot = (await issueToken(store, { tenantId: 'acme', actorId: 'bot', ttlMs: 3_600_000, now })).token;
    } finally {
      await store.close();
    }
    const d = await startDaemon({
      dataDir: tmp.path,
      listen: '127.0.0.1:0',
      allowInsecureHttp: true,
      logger: false,
      anchorIntervalMs: 86_400_000,
      anchorEntries: 1_000,
      openApprovals: { perActor: 50, perTask: 20 },
    });
    daemon = d;
    const decide = async (step: string) => {
      const res = await fetch(`${d.url}/v1/action`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          tenant_id: 'acme',
          actor_id: 'bot',
          capability: 'pay.send',
          action: 'write',
          task_id: 't1',
          effect_key_step: step,
        }),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    return { d, decide };
  }

  it('a bad setting refuses the whole reload, naming it; good ones take effect on the next decision', async () => {
    const { d, decide } = await started();
    await expect(
      d.reload({ openApprovals: { perActor: 1, perTask: 20 }, anchorIntervalMs: 5 }),
    ).rejects.toMatchObject({ field: 'anchor-interval' });
    await expect(d.reload({ anchorEntries: 0 })).rejects.toMatchObject({ field: 'anchor-entries' });
    // The refused reload's valid open-approval bound of 1 was not applied: two deferrals stay open.
    expect((await decide('a')).decision).toBe('deferred');
    expect((await decide('b')).decision).toBe('deferred');

    const done = await d.reload({ openApprovals: { perActor: 2, perTask: 20 } });
    expect(done).toEqual({
      tls: { outcome: 'none', reason: expect.stringMatching(/plain HTTP/) as string },
      applied: ['max-open-approvals-per-actor/per-task'],
    });
    expect(await decide('c')).toMatchObject({ decision: 'refused', code: 'open_approvals_limit' });
  });

  it('a lower anchor threshold anchors the pending entries at the next look at the backlog', async () => {
    const { d, decide } = await started();
    await decide('a');
    const pending = async () => (await d.store.anchors.backlog()).find((b) => b.tenantId === 'acme');
    expect((await pending())!.anchoredSize).toBeLessThan((await pending())!.size);
    expect((await d.reload({ anchorEntries: 1 })).applied).toEqual(['anchor-entries']);
    await until('the backlog anchored', async () => {
      const b = await pending();
      return b !== undefined && b.anchoredSize === b.size ? true : undefined;
    });
  });
});
