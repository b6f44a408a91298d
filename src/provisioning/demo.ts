import { SvcError } from '../core/errors.js';
import { tokenState } from '../core/token.js';
import { DataDir } from '../store/data-dir.js';
import type { Store } from '../store/ports.js';
import { applyDeployment } from './apply.js';
import { readDemoState, writeDemoState, type DemoState, type KeptToken } from './demo-state.js';
import { DEMO, DEMO_POLICY } from './demo-spec.js';
import { DeploymentDocument } from './deployment-document.js';
import { initDataDir } from './init.js';
import { DEFAULT_TOKEN_TTL_MS, issueToken } from './token.js';

/** The demo as a deployment document, applied as `svc apply` would (idempotent). */
export function demoDocument(): DeploymentDocument {
  const doc = {
    version: 1,
    tenant: DEMO.tenant,
    actors: [{ id: DEMO.agent, kind: 'agent', manager: DEMO.admin }],
    capabilities: [
      { name: DEMO.readable, tier: 1, actions: ['read'], cost_usd: 0.01 },
      {
        name: DEMO.irreversible,
        tier: 4,
        irreversible: true,
        actions: ['refund'],
        cost_usd: 25,
        approvers: [DEMO.admin],
      },
    ],
    permissions: [
      { actor: DEMO.agent, capability: DEMO.readable },
      { actor: DEMO.agent, capability: DEMO.irreversible },
    ],
    policy: { text: DEMO_POLICY },
    tasks: [
      {
        id: DEMO.task,
        title: 'Refund customer orders',
        sponsor: DEMO.admin,
        budget_usd: DEMO.budgetUsd,
        actors: [DEMO.agent],
      },
    ],
  };
  return DeploymentDocument.parse(JSON.stringify(doc, null, 2), 'the quickstart demo');
}

export interface DemoSetup {
  data_dir: string;
  /** this run made the data dir */
  created: boolean;
  tenant_id: string;
  ca_cert: string;
  admin: LiveToken;
  agent: LiveToken;
}

export interface LiveToken extends KeptToken {
  expires_at: string;
}

/**
 * Refuse a data dir quickstart did not make before anything is written: its tenants and
 * history belong to someone else. Cheap, so the command calls it before probing the port.
 */
export function checkDemoDir(root: string): void {
  const dir = new DataDir(root);
  if (dir.exists() && readDemoState(dir) === undefined) {
    throw new SvcError('conflict', `${root} is an svc data dir that svc quickstart did not make`, {
      remedy: 'run `svc daemon start` for this data dir, or run quickstart with another --data-dir',
    });
  }
}

/** A kept token that still authenticates, or a new one (then kept instead). */
async function liveToken(
  store: Store,
  actorId: string,
  kept: KeptToken | undefined,
  now: Date,
): Promise<{ token: LiveToken; fresh: boolean }> {
  if (kept !== undefined) {
    const row = (await store.tokens.list(DEMO.tenant, actorId)).find((r) => r.id === kept.token_id);
    if (row !== undefined && tokenState(row, now) === 'active') {
      return { token: { ...kept, expires_at: row.expiresAt }, fresh: false };
    }
  }
  const t = await issueToken(store, {
    tenantId: DEMO.tenant,
    actorId,
    ttlMs: DEFAULT_TOKEN_TTL_MS,
    label: 'quickstart',
    now,
  });
  return { token: { token_id: t.token_id, token: t.token, expires_at: t.expires_at }, fresh: true };
}

/**
 * The newcomer's data dir. The first run makes it (tenant, administrator who also approves,
 * agent, capabilities, policy, task) and keeps the two tokens in a mode-0600 file of the
 * data dir, so a re-run shows the same tokens rather than minting more; a token is replaced
 * only when it stopped working. The demo's registrations are applied until one run has
 * finished them, and never again after, so a re-run leaves what the user changed alone.
 */
export async function ensureDemo(root: string, now: Date): Promise<DemoSetup> {
  checkDemoDir(root);
  const dir = new DataDir(root);
  const created = !dir.exists();
  let state: DemoState;
  if (created) {
    const init = await initDataDir(root, { tenantId: DEMO.tenant, adminId: DEMO.admin, now });
    state = { admin: { token_id: init.admin_token_id, token: init.admin_token }, provisioned: false };
    // Kept at once: a failure below must not lose the only administrator token.
    writeDemoState(dir, state);
  } else {
    state = readDemoState(dir) as DemoState;
  }
  const store = await dir.openStore();
  try {
    if (!state.provisioned) {
      await applyDeployment(store, demoDocument(), { now });
      state = { ...state, provisioned: true };
      writeDemoState(dir, state);
    }
    const admin = await liveToken(store, DEMO.admin, state.admin, now);
    const agent = await liveToken(store, DEMO.agent, state.agent, now);
    if (admin.fresh || agent.fresh) {
      const keep = (t: LiveToken): KeptToken => ({ token_id: t.token_id, token: t.token });
      state = { ...state, admin: keep(admin.token), agent: keep(agent.token) };
      writeDemoState(dir, state);
    }
    return {
      data_dir: root,
      created,
      tenant_id: DEMO.tenant,
      ca_cert: dir.tlsCert,
      admin: admin.token,
      agent: agent.token,
    };
  } finally {
    await store.close();
  }
}
