import { newId } from '../../src/core/ids.js';
import type { FullDaemon } from './full-daemon.js';
import { WORLDS } from './full-daemon.js';

/**
 * The access matrix's expectations, written from the spec, not from the daemon:
 * interface-spec.md (Endpoints, Authentication rules 1-7, States), semantics.md (Identity,
 * Approvals, Access, Tasks, Grants) and the role decisions the README records under
 * "The daemon's interface", which semantics.md makes the project's decisions.
 */
export const ACTORS = ['alice', 'nobody', 'opal', 'adam', 'apri', 'mona', 'audi', 'bot', 'svc1'] as const;
export type Actor = (typeof ACTORS)[number];

/**
 * ok: 2xx. admitted: past authentication and authorization (any answer but 401, 403, 404
 * and 5xx). authenticated: any answer but 401 and 5xx (the decision pipeline itself
 * refuses with a decision-shaped 403). forbidden: 403. hidden: 404, the resource's
 * existence not disclosed. denied: 403 or 404. refused: 401, 403 or 404. listed: 200 whose
 * items include the own resource.
 */
export type Outcome =
  'ok' | 'admitted' | 'authenticated' | 'forbidden' | 'hidden' | 'denied' | 'refused' | 'listed';

export interface Ids {
  tenant: string;
  task: string;
  draft: string;
  grant: string;
  intent: string;
  approval: string;
  receipt: string;
  request: string;
  card: string;
  entitlement: string;
}

export interface Row {
  /** the request (URL, body) a caller sends naming the given tenant's resources */
  request: (ids: Ids, caller: Actor, n: number) => { url: string; payload?: Record<string, unknown> };
  /** against the caller's own tenant */
  own: (a: Actor) => Outcome;
  /** against another tenant's resources or claims; absent where the route names none */
  other?: Outcome;
  /** the route needs no daemon credential (Authentication rule 6) */
  open?: boolean;
  source: string;
}

const HUMANS: Actor[] = ['alice', 'nobody', 'opal', 'adam', 'apri', 'mona', 'audi'];
const when =
  (yes: Outcome, who: Actor[], no: Outcome) =>
  (a: Actor): Outcome =>
    who.includes(a) ? yes : no;
const all = (o: Outcome) => () => o;

/** In acme: alice is administrator + operator + approver (as `svc init` makes), sponsor of t1 and d1, bot's manager. */
const TASK_READERS: Actor[] = ['alice', 'bot', 'opal', 'adam', 'audi'];
const DRAFT_READERS: Actor[] = ['alice', 'opal', 'adam', 'audi'];
const APPROVAL_READERS: Actor[] = ['alice', 'opal', 'adam', 'apri', 'bot'];
const RECEIPT_READERS: Actor[] = ['alice', 'opal', 'adam', 'audi', 'bot'];
const ACCESS_READERS: Actor[] = ['bot', 'alice', 'opal', 'adam', 'audi'];
const ACCESS_REVOKERS: Actor[] = ['bot', 'alice', 'opal', 'adam'];

const decision = (ids: Ids, caller: Actor, n: number) => ({
  tenant_id: ids.tenant,
  actor_id: caller,
  capability: 'crm.read',
  action: 'read',
  task_id: ids.task,
  effect_key_step: `matrix-${n}`,
});

const decisionRow = (url: string): Row => ({
  request: (ids, a, n) => ({ url, payload: decision(ids, a, n) }),
  own: all('authenticated'),
  other: 'forbidden',
  source: 'Authentication 4: body claims must match the caller (403 claims_mismatch)',
});

export const TABLE: Record<string, Row> = {
  'GET /healthz': { request: () => ({ url: '/healthz' }), own: all('ok'), open: true, source: 'Auth 6' },
  'GET /readyz': { request: () => ({ url: '/readyz' }), own: all('ok'), open: true, source: 'Auth 6' },
  'POST /approvals/:channel/callback': {
    request: () => ({ url: '/approvals/no-such-channel/callback', payload: {} }),
    own: all('refused'),
    open: true,
    source: 'Auth 6: the channel proves itself; without proof nothing is decided',
  },
  'GET /v1/openapi.json': {
    request: () => ({ url: '/v1/openapi.json' }),
    own: all('ok'),
    source: 'Versioning 1',
  },
  'GET /v1/capabilities': {
    request: () => ({ url: '/v1/capabilities' }),
    own: all('ok'),
    source: 'Endpoints',
  },
  'GET /v1/catalogue': { request: () => ({ url: '/v1/catalogue' }), own: all('ok'), source: 'Endpoints' },
  'POST /v1/action': decisionRow('/v1/action'),
  'POST /v1/action/resume': decisionRow('/v1/action/resume'),
  'POST /v1/brokered': decisionRow('/v1/brokered'),
  'POST /v1/brokered/resume': decisionRow('/v1/brokered/resume'),
  'POST /v1/federate': {
    request: (ids, a, n) => ({ url: '/v1/federate', payload: decision(ids, a, n) }),
    own: all('forbidden'),
    other: 'forbidden',
    source: 'States: always 403 no federated backend',
  },
  'POST /v1/observe': {
    request: (ids) => ({ url: '/v1/observe', payload: { intent_id: ids.intent, status: 'succeeded' } }),
    own: when('admitted', ['bot'], 'denied'),
    other: 'hidden',
    source: 'semantics Grants and effects: the intent actor reports its pass_through effect',
  },
  'POST /v1/grants/present': {
    request: (ids) => ({ url: '/v1/grants/present', payload: { grant_id: ids.grant } }),
    own: when('admitted', ['bot'], 'denied'),
    other: 'hidden',
    source: 'semantics Grants; issue 10 item 1: only the actor the grant was minted for',
  },
  'POST /v1/grants/receipt': {
    request: (ids) => ({ url: '/v1/grants/receipt', payload: { grant_id: ids.grant, status: 'succeeded' } }),
    own: when('admitted', ['bot'], 'denied'),
    other: 'hidden',
    source: 'semantics Grants; issue 10 item 1: only the presenter reports the effect',
  },
  'GET /v1/integration-ops/surfaces': {
    request: () => ({ url: '/v1/integration-ops/surfaces' }),
    own: when('ok', HUMANS, 'forbidden'),
    source: 'Auth 7: a registered human',
  },
  'POST /v1/integration-ops/connection-check': {
    request: () => ({ url: '/v1/integration-ops/connection-check', payload: { surface_id: 'crm' } }),
    own: when('admitted', ['alice', 'opal'], 'forbidden'),
    source: 'Auth 7: a registered human operator',
  },
  'POST /v1/integration-ops/rotate': {
    request: () => ({
      url: '/v1/integration-ops/rotate',
      payload: { surface_id: 'crm', credential_ref: 'env:SVC_FULL_OPS_TOKEN' },
    }),
    own: when('admitted', ['alice', 'adam'], 'forbidden'),
    source: 'Auth 7: a human administrator',
  },
  'POST /v1/integration-ops/revoke': {
    request: () => ({ url: '/v1/integration-ops/revoke', payload: { surface_id: 'crm' } }),
    own: when('admitted', ['alice', 'adam'], 'forbidden'),
    source: 'Auth 7: a human administrator',
  },
  'GET /v1/task': {
    request: () => ({ url: '/v1/task' }),
    own: when('listed', TASK_READERS, 'ok'),
    source: 'README: sponsor, assigned agents, operators, administrators, auditors',
  },
  'GET /v1/work': {
    request: () => ({ url: '/v1/work' }),
    own: when('listed', TASK_READERS, 'ok'),
    source: 'semantics Earlier variant: alias of the task routes',
  },
  'GET /v1/task/:id': {
    request: (ids) => ({ url: `/v1/task/${ids.task}` }),
    own: when('ok', TASK_READERS, 'hidden'),
    other: 'hidden',
    source: 'README: task readers; other ids are a plain 404',
  },
  'GET /v1/work/:id': {
    request: (ids) => ({ url: `/v1/work/${ids.task}` }),
    own: when('ok', TASK_READERS, 'hidden'),
    other: 'hidden',
    source: 'semantics Earlier variant',
  },
  'GET /v1/task/:id/execution-constraints': {
    request: (ids) => ({ url: `/v1/task/${ids.draft}/execution-constraints` }),
    own: when('ok', DRAFT_READERS, 'hidden'),
    other: 'hidden',
    source: 'Endpoints: task readers',
  },
  'POST /v1/task/:id/execution-constraints': {
    request: (ids) => ({ url: `/v1/task/${ids.draft}/execution-constraints`, payload: { max_actions: 5 } }),
    own: when('admitted', ['alice'], 'denied'),
    other: 'hidden',
    source: 'Auth 7: the registered human sponsor of the task',
  },
  'GET /v1/approvals': {
    request: () => ({ url: '/v1/approvals' }),
    own: when('listed', APPROVAL_READERS, 'ok'),
    source: 'README: approvers, operators, administrators, named approvers, the requester',
  },
  'GET /v1/approvals/:id': {
    request: (ids) => ({ url: `/v1/approvals/${ids.approval}` }),
    own: when('ok', APPROVAL_READERS, 'hidden'),
    other: 'hidden',
    source: 'README: as the list',
  },
  'POST /v1/approvals/:id/decision': {
    request: (ids) => ({ url: `/v1/approvals/${ids.approval}/decision`, payload: { decision: 'deny' } }),
    own: (a) =>
      ['apri', 'alice'].includes(a)
        ? 'admitted'
        : ['opal', 'adam', 'bot'].includes(a)
          ? 'forbidden'
          : 'denied',
    other: 'hidden',
    source: 'semantics Approvals: approvers only, never the requester',
  },
  'POST /v1/access-requests': {
    request: () => ({
      url: '/v1/access-requests',
      payload: { capability: 'crm.write', reason: 'matrix', duration_seconds: 3600 },
    }),
    own: all('admitted'),
    source: 'semantics Access: any caller asks from its catalogue',
  },
  'GET /v1/access-requests/:id': {
    request: (ids) => ({ url: `/v1/access-requests/${ids.request}` }),
    own: when('ok', ACCESS_READERS, 'hidden'),
    other: 'hidden',
    source: 'README: requester, its manager, owners, operators, administrators, auditors',
  },
  'POST /v1/access-requests/:id/revoke': {
    request: (ids) => ({ url: `/v1/access-requests/${ids.request}/revoke`, payload: {} }),
    own: when('admitted', ACCESS_REVOKERS, 'denied'),
    other: 'hidden',
    source: 'README: requester, its manager, owners, operators, administrators',
  },
  'GET /v1/manager-cards': {
    request: () => ({ url: '/v1/manager-cards?status=pending' }),
    own: when('listed', ['alice'], 'ok'),
    source: 'README: only the caller’s own cards',
  },
  'POST /v1/manager-cards/decide': {
    request: (ids) => ({ url: '/v1/manager-cards/decide', payload: { card_id: ids.card, decision: 'deny' } }),
    own: when('admitted', ['alice'], 'denied'),
    other: 'hidden',
    source: 'semantics Access: the card’s recipient (the agent’s manager) decides',
  },
  'GET /v1/entitlements': {
    request: () => ({ url: '/v1/entitlements' }),
    own: when('listed', ACCESS_READERS, 'ok'),
    source: 'README: holder, its manager, owners, operators, administrators, auditors',
  },
  'GET /v1/entitlements/:id': {
    request: (ids) => ({ url: `/v1/entitlements/${ids.entitlement}` }),
    own: when('ok', ACCESS_READERS, 'hidden'),
    other: 'hidden',
    source: 'README: as the list',
  },
  'POST /v1/entitlements/:id/revoke': {
    request: (ids) => ({ url: `/v1/entitlements/${ids.entitlement}/revoke`, payload: {} }),
    own: when('admitted', ACCESS_REVOKERS, 'denied'),
    other: 'hidden',
    source: 'README: holder, its manager, owners, operators, administrators',
  },
  'GET /v1/receipts': {
    request: () => ({ url: '/v1/receipts' }),
    own: when('listed', RECEIPT_READERS, 'ok'),
    source: 'README: operators, administrators, auditors all; others their own and their tasks’',
  },
  'GET /v1/receipts/:id': {
    request: (ids) => ({ url: `/v1/receipts/${ids.receipt}` }),
    own: when('ok', RECEIPT_READERS, 'hidden'),
    other: 'hidden',
    source: 'README: as the list',
  },
};

/** The id a listed answer must include for the caller to have seen its own resource. */
export function listedId(key: string, ids: Ids): string {
  if (key.includes('/task') || key.includes('/work')) return ids.task;
  if (key.includes('approvals')) return ids.approval;
  if (key.includes('manager-cards')) return ids.card;
  if (key.includes('entitlements')) return ids.entitlement;
  return ids.receipt;
}

export function satisfies(outcome: Outcome, status: number, body: string, mustList?: string): boolean {
  if (status >= 500) return false;
  switch (outcome) {
    case 'ok':
      return status >= 200 && status < 300;
    case 'listed':
      return status === 200 && mustList !== undefined && body.includes(mustList);
    case 'admitted':
      return ![401, 403, 404].includes(status);
    case 'authenticated':
      return status !== 401;
    case 'forbidden':
      return status === 403;
    case 'hidden':
      return status === 404;
    case 'denied':
      return status === 403 || status === 404;
    case 'refused':
      return [401, 403, 404].includes(status);
  }
}

/**
 * Make each tenant's resources through the API as its agent and humans would: an allowed
 * decision (grant, receipt), a pass_through decision (intent), a deferred one (approval),
 * an access request (card), an entitlement, and a plan on the draft root.
 */
export async function seedWorlds(d: FullDaemon): Promise<Record<string, Ids>> {
  const db = d.f.store.db;
  const out: Record<string, Ids> = {};
  for (const w of WORLDS) {
    const agent = d.tokens[w.agent]!;
    const sponsor = d.tokens[w.sponsor]!;
    const act = async (capability: string, action: string, step: string) => {
      const r = await d.app.inject({
        method: 'POST',
        url: '/v1/action',
        headers: { authorization: `Bearer ${agent}` },
        payload: {
          tenant_id: w.tenant,
          actor_id: w.agent,
          capability,
          action,
          task_id: w.task,
          effect_key_step: step,
        },
      });
      if (r.statusCode >= 300 && r.statusCode !== 202) throw new Error(`seed ${capability}: ${r.body}`);
      return r.json() as { intent_id: string };
    };
    const read = await act('crm.read', 'read', 'seed-read');
    const note = await act('notes.write', 'read', 'seed-note');
    await act('pay.send', 'write', 'seed-pay');
    const req = await d.app.inject({
      method: 'POST',
      url: '/v1/access-requests',
      headers: { authorization: `Bearer ${agent}` },
      payload: { capability: 'crm.write', reason: 'seed', duration_seconds: 3600 },
    });
    if (req.statusCode !== 201) throw new Error(`seed access request: ${req.body}`);
    const plan = await d.app.inject({
      method: 'POST',
      url: `/v1/task/${w.draft}/execution-constraints`,
      headers: { authorization: `Bearer ${sponsor}` },
      payload: { max_actions: 10 },
    });
    if (plan.statusCode !== 201) throw new Error(`seed plan: ${plan.body}`);
    const entitlement = newId('ent');
    db.prepare(
      `INSERT INTO entitlements (tenant_id, id, actor_id, capability, access_request_id, created_at, expires_at, revoked_at)
       VALUES (?, ?, ?, 'crm.export', NULL, ?, ?, NULL)`,
    ).run(w.tenant, entitlement, w.agent, d.f.now.value.toISOString(), '2099-01-01T00:00:00.000Z');
    const one = (sql: string, ...args: string[]) =>
      (db
        .prepare(sql)
        .pluck()
        .get(...args) as string) ?? '';
    out[w.tenant] = {
      tenant: w.tenant,
      task: w.task,
      draft: w.draft,
      grant: one('SELECT id FROM grants WHERE tenant_id = ? AND intent_id = ?', w.tenant, read.intent_id),
      intent: note.intent_id,
      approval: one('SELECT id FROM approvals WHERE tenant_id = ?', w.tenant),
      receipt: one('SELECT receipt_id FROM intents WHERE tenant_id = ? AND id = ?', w.tenant, read.intent_id),
      request: one('SELECT id FROM access_requests WHERE tenant_id = ?', w.tenant),
      card: one("SELECT id FROM manager_cards WHERE tenant_id = ? AND role = 'manager'", w.tenant),
      entitlement,
    };
    for (const [k, v] of Object.entries(out[w.tenant]!))
      if (!v) throw new Error(`seed: no ${k} in ${w.tenant}`);
  }
  return out;
}
