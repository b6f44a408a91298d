import { SvcError } from '../core/errors.js';
import { DataDir } from '../store/data-dir.js';
import { addActor } from './actor.js';
import { initDataDir } from './init.js';
import { issueToken, type IssuedToken } from './token.js';

export const DEMO = { tenant: 'demo', admin: 'admin', agent: 'demo-agent' } as const;

export interface DemoSetup {
  data_dir: string;
  created: boolean;
  tenant_id: string;
  ca_cert: string;
  /** only when this run created the data dir: an admin token is shown once */
  admin_token?: string;
  agent: IssuedToken;
}

/**
 * The newcomer's data dir: made once (only if absent), with a demo tenant, its administrator
 * and a demo agent; every run issues a fresh, short-lived agent token to try requests with.
 */
export async function ensureDemo(root: string, now: Date): Promise<DemoSetup> {
  const dir = new DataDir(root);
  let adminToken: string | undefined;
  const created = !dir.exists();
  if (created) {
    adminToken = (await initDataDir(root, { tenantId: DEMO.tenant, adminId: DEMO.admin, now })).admin_token;
  }
  const store = dir.openStore();
  try {
    if (!(await store.tenants.get(DEMO.tenant))) {
      throw new SvcError(
        'conflict',
        `${root} is an svc data dir without the ${DEMO.tenant} tenant; quickstart leaves it alone`,
        {
          remedy: 'use `svc daemon start` for this data dir, or run quickstart with another --data-dir',
        },
      );
    }
    if (!(await store.actors.get(DEMO.tenant, DEMO.agent))) {
      await addActor(
        store,
        { tenantId: DEMO.tenant, id: DEMO.agent, kind: 'agent', managerId: DEMO.admin },
        now,
      );
    }
    const agent = await issueToken(store, {
      tenantId: DEMO.tenant,
      actorId: DEMO.agent,
      ttlMs: 86_400_000,
      label: 'quickstart',
      now,
    });
    return {
      data_dir: root,
      created,
      tenant_id: DEMO.tenant,
      ca_cert: dir.tlsCert,
      agent,
      ...(adminToken ? { admin_token: adminToken } : {}),
    };
  } finally {
    await store.close();
  }
}
