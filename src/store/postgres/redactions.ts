import type { ActorKind } from '../../core/actor.js';
import { redaction, type RedactionOps, type TombstonedEntry } from '../../core/redaction.js';
import { runAsync, type Async } from '../../core/use-case.js';
import { cjson } from '../../evidence/cjson.js';
import { journalWrite } from '../../evidence/journal-append.js';
import type { LogState } from '../../evidence/journal-entry.js';
import { sha256 } from '../../evidence/node-crypto.js';
import { REDACTED_RECORD_HASH } from '../../evidence/tombstone.js';
import type { RedactionRequest, RedactionResult, Redactions } from '../evidence-ports.js';
import { pgStoreError, type PgDb, type PgTx } from './database.js';
import { journalParts, readLogState } from './journal.js';
import { lockTenant } from './locks.js';
import { writeAll } from './write-parts.js';

/**
 * The reads and writes core/redaction.ts asks for, as on SQLite: R is journaled and the
 * range blanked in one transaction, under the tenant lock so no replica appends or anchors
 * between the size read and R (R is appended on the log state that read brought).
 * PostgreSQL keeps the old row versions until VACUUM reclaims them; see docs/postgres.md
 * "Replicas on PostgreSQL: one journal, one allow per effect key".
 */
export function pgRedactionOps(tx: PgTx): Async<RedactionOps> {
  let log: LogState | undefined;
  return {
    authoriser: async (tenantId, actorId) => {
      const [row] = await tx.query<{ tenant: boolean; kind: ActorKind | null }>(
        `SELECT EXISTS (SELECT 1 FROM tenants WHERE id = $1) AS tenant,
           (SELECT kind FROM actors WHERE tenant_id = $1 AND id = $2) AS kind`,
        [tenantId, actorId],
      );
      return { tenant: row?.tenant === true, kind: row?.kind ?? undefined };
    },
    logSize: async (tenantId) => {
      log = await readLogState(tx, tenantId);
      return log?.size ?? 0;
    },
    firstTombstoned: async (tenantId, from, to) => {
      const [row] = await tx.query<{ sequence: string; kind: string; tombstone: string }>(
        `SELECT sequence, kind, tombstone FROM journal
         WHERE tenant_id = $1 AND sequence BETWEEN $2 AND $3 AND tombstone IS NOT NULL ORDER BY sequence LIMIT 1`,
        [tenantId, from, to],
      );
      return (
        row && {
          sequence: Number(row.sequence),
          kind: row.kind,
          tombstone: JSON.parse(row.tombstone) as TombstonedEntry['tombstone'],
        }
      );
    },
    apply: async (w) => {
      const journal = journalWrite(log, w.record, w.at, sha256);
      await writeAll(tx, journalParts(journal));
      const { from_sequence: from, to_sequence: to } = w.tombstone;
      await eraseOperationalCopies(tx, w.tenantId, from, to);
      const blanked = await tx.query(
        `UPDATE journal SET tombstone = $1, intent_id = '', actor_id = '', capability = '', grant_id = '',
           tier = 0, allowed = 0, amount_micros = 0, task_id = NULL, record = '{}', record_hash = $2,
           occurred_at = $3, linked_at = $3
         WHERE tenant_id = $4 AND sequence BETWEEN $5 AND $6 AND tombstone IS NULL RETURNING 1`,
        [cjson(w.tombstone), REDACTED_RECORD_HASH, w.tombstone.removed_at, w.tenantId, from, to],
      );
      return { appended: journal.appended, blanked: blanked.length };
    },
  };
}

/** Retention redacts in place (evidence-format.md §7), through core/redaction.ts. */
export class PgRedactions implements Redactions {
  constructor(private readonly db: PgDb) {}

  async redact(r: RedactionRequest): Promise<RedactionResult> {
    try {
      return await this.db.tx(async (tx) => {
        await lockTenant(tx, r.tenantId);
        return runAsync(redaction(r), pgRedactionOps(tx));
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
  // What the policy step was evaluated with: a replay then counts the decision as unrecorded,
  // and a shadow report no longer shows it.
  await tx.query('DELETE FROM decision_inputs WHERE tenant_id = $1 AND sequence BETWEEN $2 AND $3', params);
  await tx.query(
    'DELETE FROM policy_shadow_differences WHERE tenant_id = $1 AND seq BETWEEN $2 AND $3',
    params,
  );
}
