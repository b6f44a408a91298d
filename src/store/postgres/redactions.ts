import { SvcError } from '../../core/errors.js';
import { redactionRecord } from '../../core/records/redaction-record.js';
import { redactionTombstone } from '../../core/redaction.js';
import { cjson } from '../../evidence/cjson.js';
import { REDACTED_RECORD_HASH } from '../../evidence/tombstone.js';
import type { RedactionRequest, RedactionResult, Redactions } from '../evidence-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { appendJournal, readLogState } from './journal.js';
import { lockTenant } from './locks.js';

/**
 * Retention redacts in place (evidence-format.md §7), as on SQLite: the redaction record R
 * is journaled and the range blanked in one transaction, under the tenant lock so no
 * replica appends or anchors between the size read and R. PostgreSQL keeps the old row
 * versions until VACUUM reclaims them; see README "Several replicas on PostgreSQL".
 */
export class PgRedactions implements Redactions {
  constructor(private readonly db: PgDb) {}

  async redact(r: RedactionRequest): Promise<RedactionResult> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, r.tenantId);
        await checkAuthoriser(tx, r.tenantId, r.authorisedBy);
        const size = (await readLogState(tx, r.tenantId))?.size ?? 0;
        const tombstone = redactionTombstone(r, size, r.at);
        await checkNoOverlap(tx, r.tenantId, r.from, r.to);
        const record = redactionRecord({
          tenantId: r.tenantId,
          authorisedBy: r.authorisedBy,
          tombstone,
          at: r.at,
        });
        const appended = await appendJournal(tx, record, r.at);
        await eraseOperationalCopies(tx, r.tenantId, r.from, r.to);
        const blanked = await tx.query(
          `UPDATE journal SET tombstone = $1, intent_id = '', actor_id = '', capability = '', grant_id = '',
             tier = 0, allowed = 0, amount_micros = 0, task_id = NULL, record = '{}', record_hash = $2,
             occurred_at = $3, linked_at = $3
           WHERE tenant_id = $4 AND sequence BETWEEN $5 AND $6 RETURNING 1`,
          [cjson(tombstone), REDACTED_RECORD_HASH, tombstone.removed_at, r.tenantId, r.from, r.to],
        );
        if (blanked.length !== r.to - r.from + 1) {
          throw new Error(`redaction blanked ${blanked.length} rows of ${r.from}..${r.to}`);
        }
        return { tombstone, sequence: appended.sequence, receiptId: record.receiptId };
      });
    } catch (err) {
      throw pgStoreError(err, `the redaction of ${r.from}..${r.to}`);
    }
  }
}

/**
 * The intents of the range keep what running the system needs and lose what the journal
 * record held privately (see the SQLite adapter for why each column). Runs before the
 * journal rows lose their intent ids.
 */
async function eraseOperationalCopies(tx: PgTx, tenant: string, from: number, to: number): Promise<void> {
  const ofRange = `(SELECT intent_id FROM journal WHERE tenant_id = $1 AND sequence BETWEEN $2 AND $3 AND intent_id != '')`;
  const where = `WHERE tenant_id = $1 AND intent_id IN ${ofRange}`;
  const params = [tenant, from, to];
  await tx.query(
    `UPDATE intents SET request_digest = '', request = '{}', reason = NULL WHERE tenant_id = $1 AND id IN ${ofRange}`,
    params,
  );
  await tx.query(`UPDATE effect_keys SET request_digest = '' ${where}`, params);
  await tx.query(`UPDATE approvals SET request_digest = '', request = NULL, note = NULL ${where}`, params);
  await tx.query(`UPDATE executions SET effect_id = NULL, digest = NULL ${where}`, params);
}

async function checkAuthoriser(tx: PgTx, tenantId: string, actorId: string): Promise<void> {
  const [row] = await tx.query<{ tenant: boolean; kind: string | null }>(
    `SELECT EXISTS (SELECT 1 FROM tenants WHERE id = $1) AS tenant,
       (SELECT kind FROM actors WHERE tenant_id = $1 AND id = $2) AS kind`,
    [tenantId, actorId],
  );
  if (!row?.tenant) throw new SvcError('not_found', `no tenant ${tenantId}`);
  if (row.kind !== 'human') {
    throw new SvcError(
      'invalid_request',
      row.kind === null
        ? `authorised_by: no actor ${actorId} in tenant ${tenantId}`
        : `authorised_by: ${actorId} is ${row.kind === 'agent' ? 'an' : 'a'} ${row.kind}; a redaction is authorised by a registered human`,
      { field: 'authorised_by', remedy: 'name a human of the tenant (svc actor list)' },
    );
  }
}

/** Ranges never overlap, and a redaction record is never redacted: either would orphan a tombstone. */
async function checkNoOverlap(tx: PgTx, tenantId: string, from: number, to: number): Promise<void> {
  const [clash] = await tx.query<{ sequence: string; kind: string; tombstone: string }>(
    `SELECT sequence, kind, tombstone FROM journal
     WHERE tenant_id = $1 AND sequence BETWEEN $2 AND $3 AND tombstone IS NOT NULL ORDER BY sequence LIMIT 1`,
    [tenantId, from, to],
  );
  if (clash === undefined) return;
  const t = JSON.parse(clash.tombstone) as { from_sequence: number; to_sequence: number };
  const range = `${t.from_sequence}..${t.to_sequence}`;
  throw new SvcError(
    'conflict',
    clash.kind === 'redaction'
      ? `entry ${clash.sequence} is the redaction record of entries ${range}; a redaction record is never redacted`
      : `the range ${from}..${to} overlaps the redacted range ${range}`,
    { remedy: 'choose a range of entries that are not redacted and hold no redaction record' },
  );
}
