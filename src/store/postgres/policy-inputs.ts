import type { RecordedInputs } from '../../core/decision/recorded-inputs.js';
import { sha256 } from '../../evidence/node-crypto.js';
import type { RecordedDecision, RecordedDecisions, ReplayRange } from '../replay-ports.js';
import type { SnapshotIdMap, SnapshotIds } from '../rows/policy-inputs.js';
import {
  bodiesOf,
  INPUTS_COLUMNS,
  inputsValues,
  RECORDED_COLUMNS,
  toRecordedDecision,
  type RecordedRow,
} from '../rows/policy-inputs.js';
import type { PgDb, PgTx } from './database.js';
import type { WritePart } from './write-parts.js';

/**
 * A body's id, inserted under the tenant's next id when it is new. The decision holds the
 * tenant's lock, so no other writer can take that id or insert the same body meanwhile.
 */
const SNAPSHOT_ID = `WITH found AS (SELECT id FROM policy_input_snapshots WHERE tenant_id = $1 AND hash = $2),
  added AS (INSERT INTO policy_input_snapshots (tenant_id, id, hash, body)
    SELECT $1, coalesce(max(id), 0) + 1, $2, $3 FROM policy_input_snapshots WHERE tenant_id = $1
    HAVING NOT EXISTS (SELECT 1 FROM found) RETURNING id)
  SELECT id FROM found UNION ALL SELECT id FROM added`;

/**
 * The inputs of a decision as one write of its transaction (write-parts.ts). Bodies held in
 * `ids` cost nothing; a new one costs one round trip, once per process.
 */
export async function inputsPart(
  tx: PgTx,
  ids: SnapshotIds,
  learned: SnapshotIdMap,
  tenantId: string,
  sequence: number,
  inputs: RecordedInputs,
): Promise<WritePart> {
  const refs: number[] = [];
  for (const body of bodiesOf(inputs)) {
    let id = ids.get(tenantId, body) ?? learned.get(tenantId, body);
    if (id === undefined) {
      const digest = sha256(new TextEncoder().encode(body));
      const [row] = await tx.query<{ id: string }>(SNAPSHOT_ID, [
        tenantId,
        Buffer.from(digest.buffer, digest.byteOffset, digest.byteLength),
        body,
      ]);
      id = Number(row!.id);
      learned.set(tenantId, body, id);
    }
    refs.push(id);
  }
  return {
    what: 'the decision inputs',
    sql: `INSERT INTO decision_inputs (${INPUTS_COLUMNS})
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    params: inputsValues(tenantId, sequence, inputs, refs as [number, number, number]).map((v) =>
      typeof v === 'bigint' ? v.toString() : v,
    ),
  };
}

const PAGE = 2000;

/**
 * Recorded decisions read from PostgreSQL, every statement in a READ ONLY transaction, and
 * the schema never migrated: a database from before inputs were recorded reads as having
 * none.
 */
export class PgRecordedDecisions implements RecordedDecisions {
  private recorded: Promise<boolean> | undefined;

  constructor(private readonly db: PgDb) {}

  private read<R>(sql: string, params: unknown[]): Promise<R[]> {
    return this.db.tx(async (tx) => {
      await tx.query('SET TRANSACTION READ ONLY');
      return tx.query<R>(sql, params);
    });
  }

  private hasInputs(): Promise<boolean> {
    this.recorded ??= this.read<{ t: string | null }>(
      "SELECT to_regclass('decision_inputs')::text AS t",
      [],
    ).then(([r]) => typeof r?.t === 'string');
    return this.recorded;
  }

  async tenantExists(tenantId: string): Promise<boolean> {
    const rows = await this.read('SELECT 1 FROM tenants WHERE id = $1', [tenantId]);
    return rows.length > 0;
  }

  async verbs(tenantId: string): Promise<string[]> {
    const verbs = new Set<string>();
    for (const r of await this.read<{ actions: string }>(
      'SELECT actions FROM capabilities WHERE tenant_id = $1',
      [tenantId],
    ))
      for (const v of JSON.parse(r.actions) as string[]) verbs.add(v);
    if (await this.hasInputs()) {
      for (const r of await this.read<{ action: string }>(
        'SELECT DISTINCT action FROM decision_inputs WHERE tenant_id = $1',
        [tenantId],
      ))
        verbs.add(r.action);
    }
    return [...verbs];
  }

  async snapshots(tenantId: string): Promise<Map<number, string>> {
    if (!(await this.hasInputs())) return new Map();
    const rows = await this.read<{ id: string; body: string }>(
      'SELECT id, body FROM policy_input_snapshots WHERE tenant_id = $1',
      [tenantId],
    );
    return new Map(rows.map((r) => [Number(r.id), r.body]));
  }

  async *decisions(tenantId: string, range: ReplayRange, pageSize = PAGE): AsyncIterable<RecordedDecision[]> {
    // an integer from 1 to PAGE: it is written into the statement
    const limit = Math.min(PAGE, Math.max(1, Math.trunc(pageSize) || PAGE));
    const params: unknown[] = [tenantId, 0];
    const where = ['j.tenant_id = $1', "j.kind = 'decision'", 'j.sequence > $2'];
    if (range.toSeq !== undefined) where.push(`j.sequence <= $${params.push(range.toSeq)}`);
    if (range.since !== undefined) where.push(`j.occurred_at >= $${params.push(range.since)}`);
    if (range.taskId !== undefined) where.push(`j.task_id = $${params.push(range.taskId)}`);
    const inputs = (await this.hasInputs())
      ? 'decision_inputs d ON d.tenant_id = j.tenant_id AND d.sequence = j.sequence'
      : `(SELECT NULL::bigint AS policy_version, NULL::bigint AS actor, NULL::bigint AS capability,
          NULL::bigint AS determining, NULL::text AS action, NULL::bigint AS amount_micros, NULL::smallint AS brokered,
          NULL::bigint AS now_epoch_s, NULL::bigint AS approval_tier, NULL::smallint AS allow,
          NULL::smallint AS no_policy) d ON true`;
    const sql = `SELECT ${RECORDED_COLUMNS},
        CASE WHEN d.policy_version IS NULL THEN (j.record::jsonb)->>'code' END AS code
      FROM journal j LEFT JOIN ${inputs}
      WHERE ${where.join(' AND ')} ORDER BY j.sequence LIMIT ${limit}`;
    let after = Math.max(0, (range.fromSeq ?? 1) - 1);
    for (;;) {
      params[1] = after;
      const rows = await this.read<RecordedRow>(sql, params);
      if (rows.length === 0) return;
      const batch = rows.map(toRecordedDecision);
      after = batch[batch.length - 1]!.sequence;
      yield batch;
      if (rows.length < limit) return;
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
