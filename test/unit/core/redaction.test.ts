import { describe, expect, it } from 'vitest';
import type { ActorKind } from '../../../src/core/actor.js';
import type { SvcError } from '../../../src/core/errors.js';
import {
  redaction,
  type RedactionOps,
  type RedactionRequest,
  type RedactionWrites,
  type TombstonedEntry,
} from '../../../src/core/redaction.js';
import { runSync } from '../../../src/core/use-case.js';
import type { Tombstone } from '../../../src/evidence/export-line.js';
import { REDACTION_CAPABILITY } from '../../../src/evidence/tombstone.js';
import { refusal as refuses } from '../../helpers/coded-error.js';

const AT = '2026-06-01T12:00:00.000Z';

interface Entry {
  sequence: number;
  kind: string;
  tombstone?: Tombstone;
}

/**
 * A tenant's journal in memory: R is appended at the next sequence, and blanking marks the
 * range's entries that carry no tombstone yet, as the adapters' guarded UPDATE does.
 */
class MemoryJournal implements RedactionOps {
  readonly actors = new Map<string, ActorKind>([
    ['alice', 'human'],
    ['bot', 'agent'],
    ['svc-1', 'service'],
  ]);
  readonly entries: Entry[];
  readonly applied: RedactionWrites[] = [];

  constructor(size: number) {
    this.entries = Array.from({ length: size }, (_, i) => ({ sequence: i + 1, kind: 'decision' }));
  }

  authoriser(tenantId: string, actorId: string) {
    return { tenant: tenantId === 'acme', kind: this.actors.get(actorId) };
  }

  logSize(): number {
    return this.entries.length;
  }

  firstTombstoned(_tenantId: string, from: number, to: number): TombstonedEntry | undefined {
    const e = this.entries.find((x) => x.sequence >= from && x.sequence <= to && x.tombstone !== undefined);
    return e && { sequence: e.sequence, kind: e.kind, tombstone: e.tombstone! };
  }

  apply(w: RedactionWrites) {
    this.applied.push(w);
    const sequence = this.entries.length + 1;
    this.entries.push({ sequence, kind: 'redaction', tombstone: w.tombstone });
    let blanked = 0;
    for (const e of this.entries) {
      const inRange = e.sequence >= w.tombstone.from_sequence && e.sequence <= w.tombstone.to_sequence;
      if (inRange && e.tombstone === undefined) {
        e.tombstone = w.tombstone;
        blanked++;
      }
    }
    return { appended: { sequence, receiptId: w.record.receiptId, recordHash: 'h'.repeat(64) }, blanked };
  }
}

const ask = (over: Partial<RedactionRequest> = {}): RedactionRequest => ({
  tenantId: 'acme',
  from: 2,
  to: 3,
  reason: 'retention',
  authorisedBy: 'alice',
  at: AT,
  ...over,
});

const refusal = (ops: RedactionOps, r: RedactionRequest) =>
  refuses(redaction(r), ops, 'expected the redaction to be refused');

const body = (e: SvcError) => ({ ...e.toBody(), kind: e.kind });

describe('the redaction use case in core (sans I/O, in-memory operations)', () => {
  it('journals R with the tombstone and blanks the range; answers R and the tombstone', () => {
    const ops = new MemoryJournal(5);
    const result = runSync(redaction(ask({ policyId: 'gdpr-30d' })), ops);
    const tombstone: Tombstone = {
      from_sequence: 2,
      to_sequence: 3,
      reason: 'retention',
      authorised_by: 'alice',
      removed_at: AT,
      record_count: 2,
      policy_id: 'gdpr-30d',
    };
    expect(result).toEqual({ tombstone, sequence: 6, receiptId: ops.applied[0]!.record.receiptId });
    expect(ops.applied[0]).toMatchObject({
      tenantId: 'acme',
      tombstone,
      at: AT,
      record: { kind: 'redaction', actorId: 'alice', capability: REDACTION_CAPABILITY, allowed: true },
    });
    expect(ops.entries.filter((e) => e.tombstone).map((e) => e.sequence)).toEqual([2, 3, 6]);
  });

  it('refuses an unknown tenant, then anyone but a registered human of it', () => {
    const ops = new MemoryJournal(5);
    expect(body(refusal(ops, ask({ tenantId: 'globex' })))).toEqual({
      kind: 'not_found',
      code: 'not_found',
      reason: 'no tenant globex',
    });
    const remedy = 'name a human of the tenant (svc actor list)';
    expect(body(refusal(ops, ask({ authorisedBy: 'ghost' })))).toEqual({
      kind: 'invalid_request',
      code: 'invalid_request',
      reason: 'authorised_by: no actor ghost in tenant acme',
      field: 'authorised_by',
      remedy,
    });
    expect(body(refusal(ops, ask({ authorisedBy: 'bot' })))).toEqual({
      kind: 'invalid_request',
      code: 'invalid_request',
      reason: 'authorised_by: bot is an agent; a redaction is authorised by a registered human',
      field: 'authorised_by',
      remedy,
    });
    expect(refusal(ops, ask({ authorisedBy: 'svc-1' })).reason).toBe(
      'authorised_by: svc-1 is a service; a redaction is authorised by a registered human',
    );
    // the authoriser is judged before the range
    expect(refusal(ops, ask({ authorisedBy: 'bot', from: 0 })).field).toBe('authorised_by');
    expect(ops.applied).toEqual([]);
  });

  it('refuses a range the journal does not hold, or one reaching R itself', () => {
    expect(body(refusal(new MemoryJournal(0), ask({ from: 1, to: 1 })))).toEqual({
      kind: 'invalid_request',
      code: 'invalid_request',
      reason: 'the journal is empty: there is nothing to redact',
      field: 'to',
    });
    const ops = new MemoryJournal(5);
    expect(refusal(ops, ask({ to: 6 })).reason).toBe(
      'the journal holds entries 1..5; a range ending at 6 would reach the redaction record itself (sequence 6) or beyond',
    );
    expect(body(refusal(ops, ask({ from: 0 })))).toMatchObject({ code: 'invalid_request', field: 'from' });
    expect(body(refusal(ops, ask({ from: 3, to: 2 })))).toMatchObject({
      code: 'invalid_request',
      field: 'to',
    });
    expect(body(refusal(ops, ask({ reason: ' ' })))).toMatchObject({
      code: 'invalid_request',
      field: 'reason',
    });
    expect(ops.applied).toEqual([]);
  });

  it('refuses a range that overlaps a redacted one, or holds a redaction record', () => {
    const ops = new MemoryJournal(5);
    runSync(redaction(ask({ from: 2, to: 3 })), ops); // R is entry 6
    const remedy = 'choose a range of entries that are not redacted and hold no redaction record';
    expect(body(refusal(ops, ask({ from: 3, to: 4 })))).toEqual({
      kind: 'conflict',
      code: 'conflict',
      reason: 'the range 3..4 overlaps the redacted range 2..3',
      remedy,
    });
    expect(body(refusal(ops, ask({ from: 4, to: 6 })))).toEqual({
      kind: 'conflict',
      code: 'conflict',
      reason: 'entry 6 is the redaction record of entries 2..3; a redaction record is never redacted',
      remedy,
    });
    expect(runSync(redaction(ask({ from: 4, to: 5 })), ops).sequence).toBe(7);
    expect(ops.applied).toHaveLength(2);
  });

  it('fails with a coded conflict when an entry of the range was redacted between the check and the blanking', () => {
    const ops = new MemoryJournal(5);
    const raced: RedactionOps = {
      authoriser: (t, a) => ops.authoriser(t, a),
      logSize: () => ops.logSize(),
      firstTombstoned: (t, f, to) => ops.firstTombstoned(t, f, to),
      apply: (w) => {
        ops.entries[2]!.tombstone = { ...w.tombstone, from_sequence: 3, to_sequence: 3 };
        return ops.apply(w);
      },
    };
    expect(body(refusal(raced, ask({ from: 2, to: 4 })))).toEqual({
      kind: 'conflict',
      code: 'conflict',
      reason:
        'the redaction of entries 2..4 changed 2 rows, not 3: the state it was decided on no longer holds; retry',
    });
  });
});
