import { afterEach, describe, expect, it, vi } from 'vitest';
import { startDaemon, type RunningDaemon } from '../../src/daemon/server.js';
import { RequestActivity } from '../../src/http/request-activity.js';
import { addActor } from '../../src/provisioning/actor.js';
import { initDataDir } from '../../src/provisioning/init.js';
import { issueToken } from '../../src/provisioning/token.js';
import { DataDir } from '../../src/store/data-dir.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { capability, register } from '../helpers/registry.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The daemon tells its commit queue when a decision is its only request (the lone caller's
 * fsync may then run on the event loop): the queue asks, and the count it gets is the
 * decision's own request, over real HTTP.
 */
describe('svc daemon start: a lone decision is seen as alone', () => {
  let daemon: RunningDaemon | undefined;
  let tmp: ReturnType<typeof tmpDir> | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await daemon?.close();
    tmp?.cleanup();
  });

  it('asks whether the daemon is quiet, with the decision’s own request the one in progress', async () => {
    tmp = tmpDir();
    const now = new Date();
    await initDataDir(tmp.path, { tenantId: 'acme', adminId: 'alice', now });
    const dir = new DataDir(tmp.path);
    const store = SqliteStore.open(dir.database);
    let bot: string;
    try {
      await addActor(store, { tenantId: 'acme', id: 'bot', kind: 'agent', managerId: 'alice' }, now);
      await register(store, 'acme', {
        caps: [capability('acme', 'crm.read')],
        grants: [['bot', 'crm.read']],
        tasks: [{ id: 't1', sponsor: 'alice', budget: 100_000_000n }],
      });
      bot = (await issueToken(store, { tenantId: 'acme', actorId: 'bot', ttlMs: 3_600_000, now })).token;
    } finally {
      await store.close();
    }
    const asked: number[] = [];
    const quiet = RequestActivity.prototype.quiet;
    vi.spyOn(RequestActivity.prototype, 'quiet').mockImplementation(function (this: RequestActivity) {
      asked.push(this.count);
      return quiet.call(this);
    });
    daemon = await startDaemon({
      dataDir: tmp.path,
      listen: '127.0.0.1:0',
      allowInsecureHttp: true,
      logger: false,
    });
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${daemon.url}/v1/action`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          tenant_id: 'acme',
          actor_id: 'bot',
          capability: 'crm.read',
          action: 'read',
          task_id: 't1',
          effect_key_step: `lone-${i}`,
        }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    // Every lone decision asked, and the only request in progress was its own.
    expect(asked).toHaveLength(3);
    expect(asked).toEqual([1, 1, 1]);
  });
});
