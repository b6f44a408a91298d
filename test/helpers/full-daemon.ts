import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import type { Store } from '../../src/store/ports.js';
import type { Db } from '../../src/store/sqlite/database.js';
import type { SqliteStore } from '../../src/store/sqlite/store.js';
import { buildDaemon, daemonOpenApi, daemonRoutes } from '../../src/daemon/app.js';
import type { AuthMode } from '../../src/http/auth.js';
import type { AnyRoute } from '../../src/http/route.js';
import { daemonDeps } from '../../src/daemon/wiring.js';
import { parseIntegrationDocument } from '../../src/integration/document.js';
import { addActor } from '../../src/provisioning/actor.js';
import type { Role } from '../../src/core/actor.js';
import { downstream, type Downstream } from './downstream.js';
import { fixture, type Fixture } from './fixture.js';
import { leakScan } from './leak-scan.js';
import { watchConformance } from './openapi-conformance.js';
import { capability, register } from './registry.js';

/** Credentials the suites use: held here so the leak scan knows what must never be printed. */
export const OPS_SECRET = 'sk_live_ops_9f2c41d7e3b8a605';

const doc = (url: string) => `
surfaces:
  - id: crm
    adapter: http
    base_url: ${url}
    credential_ref: env:SVC_FULL_OPS_TOKEN
    credential_refs: [env:SVC_FULL_OPS_TOKEN]
    auth: { type: bearer }
    check: { method: GET, path: /health }
    operations:
      contacts.create: { method: POST, path: /contacts }
`;

/** Each tenant's agent (managed by the tenant's first administrator), active task and draft root. */
export const WORLDS = [
  { tenant: 'acme', agent: 'bot', sponsor: 'alice', task: 't1', draft: 'd1' },
  { tenant: 'other', agent: 'ozzy', sponsor: 'olga', task: 'ot1', draft: 'od1' },
] as const;

/** Humans of tenant acme, one per role (and one with none); `alice` is administrator + operator + approver. */
export const HUMANS: Record<string, Role[]> = {
  nobody: [],
  opal: ['operator'],
  adam: ['administrator'],
  apri: ['approver'],
  mona: ['manager'],
  audi: ['auditor'],
};

export interface FullDaemon<S extends Store = SqliteStore> {
  f: Fixture<S>;
  app: FastifyInstance;
  /** the app's own route table: what is mounted is what the suites iterate */
  routes: AnyRoute[];
  ds: Downstream;
  /** a live token per actor id of tenant acme, and `olga` and `ozzy` of tenant other */
  tokens: Record<string, string>;
  /** every line the daemon logged (info and above) */
  logLines: string[];
  /** every response so far that its route's OpenAPI description does not allow */
  violations: () => string[];
  /** a hash of every row of every table: equal before and after means nothing was written */
  digest: () => Promise<string>;
  close: () => Promise<void>;
}

/**
 * The daemon with every route mounted (the integration-operations document included), a
 * registered capability, permission, task and permissive policy in tenant acme, and a
 * token for an actor of every kind and role.
 */
export async function fullDaemon(opts?: { authMode?: AuthMode }): Promise<FullDaemon>;
/** The same over a PostgreSQL store: `postgres` is an empty database's URL (`freshDatabase`). */
export async function fullDaemon(opts: { authMode?: AuthMode; postgres: string }): Promise<FullDaemon<Store>>;
export async function fullDaemon(
  opts: { authMode?: AuthMode; postgres?: string } = {},
): Promise<FullDaemon<Store>> {
  process.env.SVC_FULL_OPS_TOKEN = OPS_SECRET;
  leakScan.remember(OPS_SECRET, 'the integration credential (env:SVC_FULL_OPS_TOKEN)');
  const f: Fixture<Store> =
    opts.postgres !== undefined ? await fixture({ postgres: opts.postgres }) : await fixture();
  const ds = await downstream();
  const integration = parseIntegrationDocument(doc(ds.url), 'ops.yaml');
  const deps = daemonDeps(f.dir, f.store, {
    authMode: opts.authMode ?? 'token',
    clock: () => f.now.value,
    integration,
  });
  const logLines: string[] = [];
  const app = buildDaemon(deps, {
    logger: { level: 'info', stream: { write: (line: string) => void logLines.push(line) } },
  });
  const conformance = watchConformance(app, daemonOpenApi(deps));
  await app.ready();
  const at = f.now.value;
  for (const [id, roles] of Object.entries(HUMANS)) {
    await addActor(f.store, { tenantId: 'acme', id, kind: 'human', roles }, at);
  }
  await addActor(f.store, { tenantId: 'acme', id: 'svc1', kind: 'service' }, at);
  await addActor(f.store, { tenantId: 'other', id: 'ozzy', kind: 'agent', managerId: 'olga' }, at);
  for (const w of WORLDS) {
    await register(f.store, w.tenant, {
      caps: [
        capability(w.tenant, 'crm.read', { requestable: true }),
        capability(w.tenant, 'crm.write', { actions: ['write'], requestable: true }),
        capability(w.tenant, 'crm.export', { requestable: true }),
        capability(w.tenant, 'notes.write', { custody: 'pass_through' }),
        capability(w.tenant, 'pay.send', { actions: ['write'], irreversible: true, tier: 4 }),
      ],
      grants: ['crm.read', 'notes.write', 'pay.send'].map((c): [string, string] => [w.agent, c]),
      tasks: [
        { id: w.task, sponsor: w.sponsor, budget: 100_000_000n, actors: [w.agent] },
        { id: w.draft, sponsor: w.sponsor, budget: 10_000_000n, status: 'draft' },
      ],
    });
  }
  const tokens: Record<string, string> = {
    alice: f.adminToken,
    olga: await f.token('other', 'olga'),
    ozzy: await f.token('other', 'ozzy'),
  };
  for (const id of [...Object.keys(HUMANS), 'bot', 'svc1']) tokens[id] = await f.token('acme', id);
  // The digest reads PostgreSQL over its own connection, outside the store's pool.
  const reader = opts.postgres !== undefined ? new pg.Client({ connectionString: opts.postgres }) : undefined;
  await reader?.connect();
  return {
    f,
    app,
    routes: daemonRoutes(deps),
    ds,
    tokens,
    logLines,
    violations: conformance.violations,
    digest: async () => (reader ? pgTableDigest(reader) : tableDigest((f.store as SqliteStore).db)),
    close: async () => {
      await app.close();
      await ds.close();
      await reader?.end();
      await f.close();
    },
  };
}

/** SHA-256 over every row of every table, in a stable order. */
export function tableDigest(db: Db): string {
  const h = createHash('sha256');
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .pluck()
    .all() as string[];
  for (const t of tables) {
    h.update(`\u0000${t}\u0000`);
    // Rows sorted by their own text: WITHOUT ROWID tables (merkle_nodes) have no rowid to order by.
    const rows = (db.prepare(`SELECT * FROM "${t}"`).raw().all() as unknown[][]).map((row) =>
      JSON.stringify(row, (_k, v: unknown) =>
        typeof v === 'bigint' ? v.toString() : Buffer.isBuffer(v) ? v.toString('hex') : v,
      ),
    );
    for (const row of rows.sort()) h.update(row);
  }
  return h.digest('hex');
}

/** The same digest over every table of a PostgreSQL database's current schema. */
export async function pgTableDigest(client: pg.Client): Promise<string> {
  const h = createHash('sha256');
  const tables = await client.query<{ name: string }>(
    'SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename',
  );
  for (const { name } of tables.rows) {
    h.update(`\u0000${name}\u0000`);
    const rows = await client.query({ text: `SELECT * FROM "${name}"`, rowMode: 'array' });
    const text = (rows.rows as unknown[][]).map((row) =>
      JSON.stringify(row, (_k, v: unknown) =>
        typeof v === 'bigint' ? v.toString() : Buffer.isBuffer(v) ? v.toString('hex') : v,
      ),
    );
    for (const row of text.sort()) h.update(row);
  }
  return h.digest('hex');
}

/** A route's URL with every path parameter filled. */
export function concreteUrl(route: AnyRoute, value = 'zzz_00000000000000000000000000000000'): string {
  return route.url.replace(/:[a-z_]+/g, (name) => (name === ':channel' ? 'no-such-channel' : value));
}

/** The routes that parse a JSON body (not federate, which answers before reading one). */
export function jsonBodyRoutes(routes: readonly AnyRoute[]): AnyRoute[] {
  return routes.filter((r) => r.method === 'POST' && !r.rawBody && !r.beforeBody);
}
