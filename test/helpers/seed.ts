import { newId } from '../../src/core/ids.js';
import { addActor } from '../../src/provisioning/actor.js';
import { formatUsd, type Micros } from '../../src/core/money.js';
import type { Db } from '../../src/store/sqlite/database.js';
import { JournalWriter } from '../../src/store/sqlite/journal.js';
import type { Fixture } from './fixture.js';

/**
 * Rows as registration and the decision pipeline would write them, inserted directly so
 * the read routes can be tested on their own. Decisions go through the real JournalWriter,
 * so receipts carry real hashes. Tests that only need a decision's rows should move to
 * `store.decisions.decide` once the pipeline and its policy setup are settled.
 */
export class Seed {
  private readonly journal: JournalWriter;

  constructor(
    private readonly db: Db,
    private readonly clock: () => Date,
  ) {
    this.journal = new JournalWriter(db);
  }

  private at(): string {
    return this.clock().toISOString();
  }

  capability(
    tenantId: string,
    name: string,
    o: {
      tier?: number;
      irreversible?: boolean;
      requestable?: boolean;
      approvers?: string[];
      costMicros?: Micros;
      actions?: string[];
    } = {},
  ): void {
    this.db
      .prepare(
        `INSERT INTO capabilities (tenant_id, name, tier, irreversible, custody, actions, cost_micros, requestable,
           approvers, owners, surface_id, operation, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'grant', ?, ?, ?, ?, '[]', NULL, NULL, ?, ?)`,
      )
      .run(
        tenantId,
        name,
        o.tier ?? 1,
        o.irreversible ? 1 : 0,
        JSON.stringify(o.actions ?? ['read']),
        o.costMicros ?? 1_000_000n,
        o.requestable ? 1 : 0,
        JSON.stringify(o.approvers ?? []),
        this.at(),
        this.at(),
      );
  }

  permission(tenantId: string, actorId: string, capability: string): void {
    this.db
      .prepare('INSERT INTO permissions (tenant_id, actor_id, capability, granted_at) VALUES (?, ?, ?, ?)')
      .run(tenantId, actorId, capability, this.at());
  }

  entitlement(
    tenantId: string,
    actorId: string,
    capability: string,
    o: { expiresAt: string; revokedAt?: string },
  ): void {
    this.db
      .prepare(
        `INSERT INTO entitlements (tenant_id, id, actor_id, capability, access_request_id, created_at, expires_at, revoked_at)
         VALUES (?, ?, ?, ?, NULL, ?, ?, ?)`,
      )
      .run(tenantId, newId('ent'), actorId, capability, this.at(), o.expiresAt, o.revokedAt ?? null);
  }

  task(
    tenantId: string,
    id: string,
    o: {
      sponsor: string;
      status?: 'draft' | 'active' | 'closed';
      parent?: string;
      budgetMicros?: Micros;
      actors?: string[];
    },
  ): void {
    const root = o.parent
      ? (this.db
          .prepare('SELECT root_id FROM tasks WHERE tenant_id = ? AND id = ?')
          .pluck()
          .get(tenantId, o.parent) as string)
      : id;
    this.db
      .prepare(
        `INSERT INTO tasks (tenant_id, id, title, sponsor_id, status, parent_id, root_id, budget_micros, reserved_micros, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`,
      )
      .run(
        tenantId,
        id,
        `task ${id}`,
        o.sponsor,
        o.status ?? 'draft',
        o.parent ?? null,
        root,
        o.budgetMicros ?? 100_000_000n,
        this.at(),
      );
    for (const a of o.actors ?? []) {
      this.db
        .prepare('INSERT INTO task_actors (tenant_id, task_id, actor_id) VALUES (?, ?, ?)')
        .run(tenantId, id, a);
    }
  }

  admission(
    tenantId: string,
    o: {
      rootId: string;
      taskId: string;
      actorId: string;
      capability: string;
      amountMicros: Micros;
      intentId?: string;
    },
  ): string {
    const id = newId('adm');
    this.db
      .prepare(
        `INSERT INTO admissions (tenant_id, id, root_id, task_id, intent_id, actor_id, capability, amount_micros, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        tenantId,
        id,
        o.rootId,
        o.taskId,
        o.intentId ?? newId('int'),
        o.actorId,
        o.capability,
        o.amountMicros,
        this.at(),
      );
    return id;
  }

  /**
   * A sealed decision: its intent row, its journal record (private fields included, as the
   * pipeline journals them) and, when deferred, the pending approval it opened.
   */
  decision(
    tenantId: string,
    o: {
      taskId: string;
      actorId: string;
      capability: string;
      outcome: 'allowed' | 'refused' | 'deferred';
      amountMicros?: Micros;
      step?: string;
      intent?: string;
      approvalTtlMs?: number;
      code?: string;
      reason?: string;
      remedy?: string;
    },
  ): {
    intentId: string;
    receiptId: string;
    sequence: number;
    approvalId: string | null;
    correlationId: string;
    traceId: string;
    digest: string;
  } {
    const intentId = newId('int');
    const receiptId = newId('rcp');
    const correlationId = newId('corr');
    const traceId = newId('trace');
    const digest = newId('dig').slice(4);
    const step = o.step ?? newId('step');
    const amount = o.amountMicros ?? 1_000_000n;
    const at = this.at();
    let approvalId: string | null = null;
    const sequence = this.db.transaction(() => {
      if (o.outcome === 'deferred') {
        approvalId = newId('apr');
        const expires = new Date(this.clock().getTime() + (o.approvalTtlMs ?? 86_400_000)).toISOString();
        this.db
          .prepare(
            `INSERT INTO approvals (tenant_id, id, intent_id, task_id, step, capability, action, requester_id, amount_micros,
               request_digest, status, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, 'read', ?, ?, ?, 'pending', ?, ?)`,
          )
          .run(
            tenantId,
            approvalId,
            intentId,
            o.taskId,
            step,
            o.capability,
            o.actorId,
            amount,
            digest,
            expires,
            at,
          );
      }
      this.db
        .prepare(
          `INSERT INTO intents (tenant_id, id, task_id, step, actor_id, capability, action, route, request_digest, request,
             outcome, code, reason, amount_micros, grant_id, approval_id, receipt_id, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'read', 'action', ?, '{}', ?, ?, ?, ?, NULL, ?, ?, ?, ?)`,
        )
        .run(
          tenantId,
          intentId,
          o.taskId,
          step,
          o.actorId,
          o.capability,
          digest,
          o.outcome,
          o.code ?? null,
          o.reason ?? null,
          amount,
          approvalId,
          receiptId,
          at,
          at,
        );
      const committed = o.outcome === 'allowed' ? amount : 0n;
      return this.journal.append(
        {
          tenantId,
          kind: 'decision',
          receiptId,
          taskId: o.taskId,
          intentId,
          actorId: o.actorId,
          capability: o.capability,
          tier: 1,
          allowed: o.outcome === 'allowed',
          grantId: '',
          amountMicros: committed,
          occurredAt: at,
          record: {
            v: 1,
            kind: 'decision',
            receipt_id: receiptId,
            intent_id: intentId,
            tenant_id: tenantId,
            actor_id: o.actorId,
            task_id: o.taskId,
            effect_key_step: step,
            capability: o.capability,
            action: 'read',
            outcome: o.outcome,
            allowed: o.outcome === 'allowed',
            code: o.code ?? null,
            reason: o.reason ?? null,
            remedy: o.remedy ?? null,
            amount_usd: formatUsd(committed),
            approval_id: approvalId,
            intent: o.intent ?? null,
            request_digest: digest,
            correlation_id: correlationId,
            trace_id: traceId,
            occurred_at: at,
          },
        },
        at,
      ).sequence;
    })();
    return { intentId, receiptId, sequence, approvalId, correlationId, traceId, digest };
  }
}

/** The people of the read-route tests, with a token each. */
export type Cast = Record<
  'alice' | 'bob' | 'carol' | 'dave' | 'erin' | 'bot' | 'bot2' | 'olga' | 'oscar',
  string
>;

/**
 * acme: alice (administrator, operator, approver), bob (approver), carol (no role: sponsors tasks),
 * dave (auditor), erin (no role), bot and bot2 (agents). other: olga (administrator), oscar (agent).
 */
export async function cast(f: Fixture): Promise<Cast> {
  const at = f.now.value;
  await addActor(f.store, { tenantId: 'acme', id: 'bob', kind: 'human', roles: ['approver'] }, at);
  await addActor(f.store, { tenantId: 'acme', id: 'carol', kind: 'human' }, at);
  await addActor(f.store, { tenantId: 'acme', id: 'dave', kind: 'human', roles: ['auditor'] }, at);
  await addActor(f.store, { tenantId: 'acme', id: 'erin', kind: 'human' }, at);
  await addActor(f.store, { tenantId: 'acme', id: 'bot2', kind: 'agent', managerId: 'carol' }, at);
  await addActor(f.store, { tenantId: 'other', id: 'oscar', kind: 'agent', managerId: 'olga' }, at);
  return {
    alice: f.adminToken,
    bob: await f.token('acme', 'bob'),
    carol: await f.token('acme', 'carol'),
    dave: await f.token('acme', 'dave'),
    erin: await f.token('acme', 'erin'),
    bot: await f.token('acme', 'bot'),
    bot2: await f.token('acme', 'bot2'),
    olga: await f.token('other', 'olga'),
    oscar: await f.token('other', 'oscar'),
  };
}

/** An authenticated request through app.inject; the JSON body parsed. */
export async function as(
  f: Fixture,
  token: string,
  url: string,
  o: { method?: 'GET' | 'POST'; body?: unknown } = {},
  // Assertions walk arbitrary JSON bodies; a precise type per route would only restate the schemas.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const r = await f.app.inject({
    method: o.method ?? 'GET',
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(o.body !== undefined ? { payload: o.body as Record<string, unknown> } : {}),
  });
  return { status: r.statusCode, body: r.body === '' ? undefined : r.json(), headers: r.headers };
}
