import type { ActorKind } from '../../core/actor.js';
import { redaction, type RedactionOps, type TombstonedEntry } from '../../core/redaction.js';
import { runSync } from '../../core/use-case.js';
import { cjson } from '../../evidence/cjson.js';
import { REDACTED_RECORD_HASH } from '../../evidence/tombstone.js';
import type { RedactionRequest, RedactionResult, Redactions } from '../evidence-ports.js';
import { prep, storeError, type Db } from './database.js';
import { JournalWriter } from './journal.js';
import { readLogState } from './log-state.js';
import { writeTransaction } from './write-lock.js';

/**
 * The reads and writes core/redaction.ts asks for, answered at once inside one write
 * transaction: R is journaled and every entry of the range blanked together, so no reader
 * ever sees one without the other. Leaf and chain hash stay, so every chain link and every
 * signed head keeps verifying; the private record goes, and so do the copies of its private
 * parts that operational tables hold, which is the point of retention.
 */
export function sqliteRedactionOps(db: Db, journal = new JournalWriter(db)): RedactionOps {
  return {
    authoriser: (tenantId, actorId) => {
      const actor = prep(db, 'SELECT kind FROM actors WHERE tenant_id = ? AND id = ?').get(
        tenantId,
        actorId,
      ) as { kind: ActorKind } | undefined;
      return {
        tenant: prep(db, 'SELECT 1 FROM tenants WHERE id = ?').get(tenantId) !== undefined,
        kind: actor?.kind,
      };
    },
    logSize: (tenantId) => readLogState(db, tenantId)?.size ?? 0,
    firstTombstoned: (tenantId, from, to) => {
      const row = prep(
        db,
        `SELECT sequence, kind, tombstone FROM journal
         WHERE tenant_id = ? AND sequence BETWEEN ? AND ? AND tombstone IS NOT NULL ORDER BY sequence LIMIT 1`,
      ).get(tenantId, from, to) as { sequence: number; kind: string; tombstone: string } | undefined;
      return row && { ...row, tombstone: JSON.parse(row.tombstone) as TombstonedEntry['tombstone'] };
    },
    apply: (w) => {
      const appended = journal.append(w.record, w.at);
      const { from_sequence: from, to_sequence: to } = w.tombstone;
      eraseOperationalCopies(db, w.tenantId, from, to);
      const blanked = prep(
        db,
        `UPDATE journal SET tombstone = @tombstone, intent_id = '', actor_id = '', capability = '', grant_id = '',
           tier = 0, allowed = 0, amount_micros = 0, task_id = NULL, record = '{}', record_hash = @zeros,
           occurred_at = @at, linked_at = @at
         WHERE tenant_id = @tenant AND sequence BETWEEN @from AND @to AND tombstone IS NULL`,
      ).run({
        tombstone: cjson(w.tombstone),
        zeros: REDACTED_RECORD_HASH,
        at: w.tombstone.removed_at,
        tenant: w.tenantId,
        from,
        to,
      });
      return { appended, blanked: blanked.changes };
    },
  };
}

/** Retention redacts in place (evidence-format.md §7), through core/redaction.ts. */
export class SqliteRedactions implements Redactions {
  private readonly ops: RedactionOps;

  constructor(private readonly db: Db) {
    this.ops = sqliteRedactionOps(db);
  }

  async redact(r: RedactionRequest): Promise<RedactionResult> {
    const tx = this.db.transaction(() => runSync(redaction(r), this.ops));
    // Erased means erased from the files too: secure_delete zeroes the space the old rows
    // leave, and a truncating checkpoint moves the new pages into the database file and
    // empties the write-ahead log, which still holds the old row images.
    const secureDelete = this.db.pragma('secure_delete', { simple: true }) as number;
    this.db.pragma('secure_delete = ON');
    let result: RedactionResult;
    try {
      result = await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `the redaction of ${r.from}..${r.to}`);
    } finally {
      this.db.pragma(`secure_delete = ${secureDelete}`);
    }
    this.scrubLog();
    return result;
  }

  /**
   * Best effort, after the commit: a reader holding an older snapshot (an export, another
   * daemon) keeps the log from being emptied now; the old images then go at a later
   * checkpoint, which this call cannot wait for without blocking the daemon.
   */
  private scrubLog(): void {
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // busy: the redaction itself is committed; the checkpoint is an extra
    }
  }
}

/**
 * The intents of the range keep what running the system needs (actor, task, effect key,
 * outcome: an effect key stays claimed, so a retry can never execute twice) and lose what
 * the journal record held privately: the request and its digest, the refusal reason, the
 * approver's note, the downstream's effect id. Runs before the journal rows lose their
 * intent ids. A resume or replay of an erased intent then fails its digest comparison:
 * it is refused, never re-run.
 */
function eraseOperationalCopies(db: Db, tenant: string, from: number, to: number): void {
  const ofRange = `(SELECT intent_id FROM journal WHERE tenant_id = @tenant AND sequence BETWEEN @from AND @to AND intent_id != '')`;
  const where = `WHERE tenant_id = @tenant AND intent_id IN ${ofRange}`;
  const params = { tenant, from, to };
  prep(
    db,
    `UPDATE intents SET request_digest = '', request = '{}', reason = NULL WHERE tenant_id = @tenant AND id IN ${ofRange}`,
  ).run(params);
  prep(db, `UPDATE effect_keys SET request_digest = '' ${where}`).run(params);
  prep(db, `UPDATE approvals SET request_digest = '', request = NULL, note = NULL ${where}`).run(params);
  prep(db, `UPDATE executions SET effect_id = NULL, digest = NULL ${where}`).run(params);
  // What the policy step was evaluated with (the amount, the action, the time): a replay then
  // counts the redacted decision as unrecorded, and a shadow report no longer shows it.
  prep(db, 'DELETE FROM decision_inputs WHERE tenant_id = @tenant AND sequence BETWEEN @from AND @to').run(
    params,
  );
  prep(
    db,
    'DELETE FROM policy_shadow_differences WHERE tenant_id = @tenant AND seq BETWEEN @from AND @to',
  ).run(params);
}
