import type { Actor } from '../../core/actor.js';
import { SvcError } from '../../core/errors.js';
import { formatUsd } from '../../core/money.js';
import { readsWholeTenant } from '../../core/readers.js';
import { publishReceipt, type PublishedReceipt } from '../../core/receipt.js';
import type { EntryLine, Tombstone } from '../../evidence/export-line.js';
import type { Keyset, KeysetPage, Receipts } from '../query-ports.js';
import { keysetPage } from '../sqlite/keyset.js';
import type { PgDb } from './database.js';

interface JournalSelectRow {
  tenant_id: string;
  receipt_id: string;
  sequence: string;
  kind: string;
  task_id: string | null;
  intent_id: string;
  actor_id: string;
  capability: string;
  tier: string;
  allowed: number;
  grant_id: string;
  amount_micros: string;
  occurred_at: string;
  linked_at: string;
  record_hash: string;
  chain_hash: string;
  leaf: string;
  record: string;
  tombstone: string | null;
}

const COLUMNS = `j.tenant_id, j.receipt_id, j.sequence, j.kind, j.task_id, j.intent_id, j.actor_id, j.capability,
  j.tier, j.allowed, j.grant_id, j.amount_micros, j.occurred_at, j.linked_at, j.record_hash, j.chain_hash, j.leaf,
  j.record, j.tombstone`;

// A receipt is the viewer's when the viewer acted, or when it belongs to a task the viewer sponsors.
// $1 tenant, $2 reads the whole tenant, $3 viewer.
const READABLE = `($2 OR j.actor_id = $3 OR EXISTS (SELECT 1 FROM tasks t
  WHERE t.tenant_id = j.tenant_id AND t.id = j.task_id AND t.sponsor_id = $3))`;

function publish(r: JournalSelectRow): PublishedReceipt {
  return publishReceipt({
    receiptId: r.receipt_id,
    sequence: Number(r.sequence),
    kind: r.kind,
    taskId: r.task_id,
    intentId: r.intent_id,
    actorId: r.actor_id,
    capability: r.capability,
    allowed: Number(r.allowed) === 1,
    grantId: r.grant_id,
    amountMicros: BigInt(r.amount_micros),
    occurredAt: r.occurred_at,
    linkedAt: r.linked_at,
    recordHash: r.record_hash,
    leaf: r.leaf,
    record: r.record,
    tombstone: r.tombstone,
  });
}

/** The entry line of a journal row, as the SQLite adapter and the export write it. */
function entryLineOf(r: JournalSelectRow): EntryLine {
  const line: EntryLine = {
    type: 'entry',
    tenant_id: r.tenant_id,
    sequence: Number(r.sequence),
    record_hash: r.record_hash,
    intent_id: r.intent_id,
    actor_id: r.actor_id,
    capability: r.capability,
    tier: Number(r.tier),
    allowed: Number(r.allowed) === 1,
    grant_id: r.grant_id,
    amount_usd: formatUsd(BigInt(r.amount_micros)),
    occurred_at: r.occurred_at,
    linked_at: r.linked_at,
    chain_hash: r.chain_hash,
    leaf: r.leaf,
  };
  if (r.tombstone !== null) line.tombstone = JSON.parse(r.tombstone) as Tombstone;
  return line;
}

export class PgReceipts implements Receipts {
  constructor(private readonly db: PgDb) {}

  async list(
    viewer: Actor,
    page: Keyset<number>,
    filter: { taskId?: string },
  ): Promise<KeysetPage<PublishedReceipt, number>> {
    const params = [viewer.tenantId, readsWholeTenant(viewer), viewer.id, page.after ?? 0, page.limit + 1];
    let rows: JournalSelectRow[];
    if (filter.taskId === undefined) {
      rows = await this.db.query<JournalSelectRow>(
        `SELECT ${COLUMNS} FROM journal j WHERE j.tenant_id = $1 AND j.sequence > $4 AND ${READABLE}
         ORDER BY j.sequence LIMIT $5`,
        params,
      );
    } else {
      // An unknown task is an error, not an empty page: reconciliation must not read a typo as "nothing happened".
      const task = await this.db.query('SELECT 1 FROM tasks WHERE tenant_id = $1 AND id = $2', [
        viewer.tenantId,
        filter.taskId,
      ]);
      if (task.length === 0) throw new SvcError('not_found', `no task ${filter.taskId}`);
      rows = await this.db.query<JournalSelectRow>(
        `SELECT ${COLUMNS} FROM journal j WHERE j.tenant_id = $1 AND j.task_id = $6 AND j.sequence > $4
           AND ${READABLE}
         ORDER BY j.sequence LIMIT $5`,
        [...params, filter.taskId],
      );
    }
    return keysetPage(rows, page.limit, publish, (r) => r.sequence);
  }

  async get(viewer: Actor, receiptId: string): Promise<PublishedReceipt | undefined> {
    const row = await this.one(viewer, receiptId);
    return row && publish(row);
  }

  async entryOf(viewer: Actor, receiptId: string): Promise<EntryLine | undefined> {
    const row = await this.one(viewer, receiptId);
    return row && entryLineOf(row);
  }

  private async one(viewer: Actor, receiptId: string): Promise<JournalSelectRow | undefined> {
    const [row] = await this.db.query<JournalSelectRow>(
      `SELECT ${COLUMNS} FROM journal j WHERE j.tenant_id = $1 AND j.receipt_id = $4 AND ${READABLE}`,
      [viewer.tenantId, readsWholeTenant(viewer), viewer.id, receiptId],
    );
    return row;
  }
}
