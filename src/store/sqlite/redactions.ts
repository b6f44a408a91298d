import { SvcError } from '../../core/errors.js';
import { randomId } from '../../core/ids.js';
import { redactionTombstone } from '../../core/redaction.js';
import { cjson } from '../../evidence/cjson.js';
import { REDACTION_CAPABILITY } from '../../evidence/tombstone.js';
import type { RedactionRequest, RedactionResult, Redactions } from '../evidence-ports.js';
import { prep, storeError, type Db } from './database.js';
import { JournalWriter } from './journal.js';
import { readLogState } from './log-state.js';
import { writeTransaction } from './write-lock.js';

/**
 * Retention redacts in place (evidence-format.md §7): the redaction record R is journaled
 * and every entry of the range is blanked in the same transaction, so no reader ever sees
 * one without the other. Leaf, chain hash, record hash and times stay, so every chain
 * link and every signed head keeps verifying; the private record text goes, which is the
 * point of retention.
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
      const receiptId = randomId('rcp');
      const intentId = randomId('int');
      const appended = this.journal.append(
        {
          tenantId: r.tenantId,
          kind: 'redaction',
          receiptId,
          taskId: null,
          intentId,
          actorId: r.authorisedBy,
          capability: REDACTION_CAPABILITY,
          tier: 0,
          allowed: true,
          grantId: '',
          amountMicros: 0n,
          occurredAt: r.at,
          record: {
            v: 1,
            kind: 'redaction',
            receipt_id: receiptId,
            intent_id: intentId,
            tenant_id: r.tenantId,
            actor_id: r.authorisedBy,
            capability: REDACTION_CAPABILITY,
            outcome: 'allowed',
            allowed: true,
            reason: tombstone.reason,
            tombstone,
            occurred_at: r.at,
          },
          tombstone,
        },
        r.at,
      );
      const blanked = prep(
        this.db,
        `UPDATE journal SET tombstone = ?, intent_id = '', actor_id = '', capability = '', grant_id = '', tier = 0,
           allowed = 0, amount_micros = 0, task_id = NULL, record = '{}'
         WHERE tenant_id = ? AND sequence BETWEEN ? AND ?`,
      ).run(cjson(tombstone), r.tenantId, r.from, r.to);
      if (blanked.changes !== r.to - r.from + 1) {
        throw new Error(`redaction blanked ${blanked.changes} rows of ${r.from}..${r.to}`);
      }
      return { tombstone, sequence: appended.sequence, receiptId };
    });
    try {
      return await writeTransaction(this.db, tx);
    } catch (err) {
      throw storeError(err, `the redaction of ${r.from}..${r.to}`);
    }
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
