import { SvcError } from '../../core/errors.js';
import { redactionRecord } from '../../core/records/redaction-record.js';
import { redactionTombstone } from '../../core/redaction.js';
import { cjson } from '../../evidence/cjson.js';
import { REDACTED_RECORD_HASH } from '../../evidence/tombstone.js';
import type { RedactionRequest, RedactionResult, Redactions } from '../evidence-ports.js';
import { prep, storeError, type Db } from './database.js';
import { JournalWriter } from './journal.js';
import { readLogState } from './log-state.js';
import { writeTransaction } from './write-lock.js';

/**
 * Retention redacts in place (evidence-format.md §7): the redaction record R is journaled
 * and every entry of the range is blanked in the same transaction, so no reader ever sees
 * one without the other. Leaf and chain hash stay, so every chain link and every signed
 * head keeps verifying; the private record goes, and so do the copies of its private parts
 * that operational tables hold, which is the point of retention.
 */
export class SqliteRedactions implements Redactions {
  private readonly journal: JournalWriter;

  constructor(private readonly db: Db) {
    this.journal = new JournalWriter(db);
  }

  async redact(r: RedactionRequest): Promise<RedactionResult> {
    const tx = this.db.transaction(() => {
      this.checkAuthoriser(r.tenantId, r.authorisedBy);
      const size = readLogState(this.db, r.tenantId)?.size ?? 0;
      const tombstone = redactionTombstone(r, size, r.at);
      this.checkNoOverlap(r.tenantId, r.from, r.to);
      const record = redactionRecord({
        tenantId: r.tenantId,
        authorisedBy: r.authorisedBy,
        tombstone,
        at: r.at,
      });
      const appended = this.journal.append(record, r.at);
      this.eraseOperationalCopies(r.tenantId, r.from, r.to);
      const blanked = prep(
        this.db,
        `UPDATE journal SET tombstone = @tombstone, intent_id = '', actor_id = '', capability = '', grant_id = '',
           tier = 0, allowed = 0, amount_micros = 0, task_id = NULL, record = '{}', record_hash = @zeros,
           occurred_at = @at, linked_at = @at
         WHERE tenant_id = @tenant AND sequence BETWEEN @from AND @to`,
      ).run({
        tombstone: cjson(tombstone),
        zeros: REDACTED_RECORD_HASH,
        at: tombstone.removed_at,
        tenant: r.tenantId,
        from: r.from,
        to: r.to,
      });
      if (blanked.changes !== r.to - r.from + 1) {
        throw new Error(`redaction blanked ${blanked.changes} rows of ${r.from}..${r.to}`);
      }
      return { tombstone, sequence: appended.sequence, receiptId: record.receiptId };
    });
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

  /**
   * The intents of the range keep what running the system needs (actor, task, effect key,
   * outcome: an effect key stays claimed, so a retry can never execute twice) and lose what
   * the journal record held privately: the request and its digest, the refusal reason, the
   * approver's note, the downstream's effect id. Runs before the journal rows lose their
   * intent ids. A resume or replay of an erased intent then fails its digest comparison:
   * it is refused, never re-run.
   */
  private eraseOperationalCopies(tenant: string, from: number, to: number): void {
    const ofRange = `(SELECT intent_id FROM journal WHERE tenant_id = @tenant AND sequence BETWEEN @from AND @to AND intent_id != '')`;
    const where = `WHERE tenant_id = @tenant AND intent_id IN ${ofRange}`;
    const params = { tenant, from, to };
    prep(
      this.db,
      `UPDATE intents SET request_digest = '', request = '{}', reason = NULL WHERE tenant_id = @tenant AND id IN ${ofRange}`,
    ).run(params);
    prep(this.db, `UPDATE effect_keys SET request_digest = '' ${where}`).run(params);
    prep(this.db, `UPDATE approvals SET request_digest = '', request = NULL, note = NULL ${where}`).run(
      params,
    );
    prep(this.db, `UPDATE executions SET effect_id = NULL, digest = NULL ${where}`).run(params);
  }

  private checkAuthoriser(tenantId: string, actorId: string): void {
    if (prep(this.db, 'SELECT 1 FROM tenants WHERE id = ?').get(tenantId) === undefined) {
      throw new SvcError('not_found', `no tenant ${tenantId}`);
    }
    const actor = prep(this.db, 'SELECT kind FROM actors WHERE tenant_id = ? AND id = ?').get(
      tenantId,
      actorId,
    ) as { kind: string } | undefined;
    if (actor?.kind !== 'human') {
      throw new SvcError(
        'invalid_request',
        actor === undefined
          ? `authorised_by: no actor ${actorId} in tenant ${tenantId}`
          : `authorised_by: ${actorId} is ${actor.kind === 'agent' ? 'an' : 'a'} ${actor.kind}; a redaction is authorised by a registered human`,
        { field: 'authorised_by', remedy: 'name a human of the tenant (svc actor list)' },
      );
    }
  }

  /** Ranges never overlap, and a redaction record is never redacted: either would orphan a tombstone. */
  private checkNoOverlap(tenantId: string, from: number, to: number): void {
    const clash = prep(
      this.db,
      `SELECT sequence, kind, tombstone FROM journal
       WHERE tenant_id = ? AND sequence BETWEEN ? AND ? AND tombstone IS NOT NULL ORDER BY sequence LIMIT 1`,
    ).get(tenantId, from, to) as { sequence: number; kind: string; tombstone: string } | undefined;
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
}
