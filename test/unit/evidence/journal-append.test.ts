import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseUsd } from '../../../src/core/money.js';
import { cjson } from '../../../src/evidence/cjson.js';
import { encodeHex } from '../../../src/evidence/encoding.js';
import type { EntryLine, HeaderLine } from '../../../src/evidence/export-line.js';
import { journalWrite, type JournalAppend } from '../../../src/evidence/journal-append.js';
import { emptyLogState, type LogState } from '../../../src/evidence/journal-entry.js';
import { MerkleFrontier } from '../../../src/evidence/merkle-frontier.js';
import { sha256 } from '../../../src/evidence/node-crypto.js';
import { REDACTION_CAPABILITY } from '../../../src/evidence/tombstone.js';
import { CONTENT, VECTOR_TENANT, VECTOR_TOMBSTONE } from './svc-export-generator.js';
import { vectorPath } from './vector-paths.js';

const at = (second: number): string => new Date(Date.UTC(2025, 0, 15, 9, 0, 0) + second * 1000).toISOString();

/** The committed export vector's lines, by type. */
function committed(): { header: HeaderLine; entries: Map<number, EntryLine> } {
  const lines = readFileSync(vectorPath('svc-export/export.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string });
  const entries = new Map<number, EntryLine>();
  for (const l of lines) if (l.type === 'entry') entries.set((l as EntryLine).sequence, l as EntryLine);
  return { header: lines[0] as HeaderLine, entries };
}

/** The same private records the vector generator hashed, as journal appends. */
function appends(): { input: JournalAppend; linkedAt: string }[] {
  return CONTENT.map((content, i) => {
    const sequence = i + 1;
    const occurredAt = at(sequence * 30);
    return {
      linkedAt: at(sequence * 30 + 1),
      input: {
        tenantId: VECTOR_TENANT,
        kind: content.capability === REDACTION_CAPABILITY ? 'redaction' : 'decision',
        receiptId: `rcp_${sequence}`,
        taskId: null,
        intentId: content.intent_id,
        actorId: content.actor_id,
        capability: content.capability,
        tier: content.tier,
        allowed: content.allowed,
        grantId: content.grant_id,
        amountMicros: parseUsd(content.amount_usd, 'amount_usd'),
        occurredAt,
        record: {
          ...content,
          sequence,
          correlation_id: `corr-${sequence}`,
          reason: 'policy decision',
          effect: null,
          occurred_at: occurredAt,
        },
        ...(content.capability === REDACTION_CAPABILITY ? { tombstone: VECTOR_TOMBSTONE } : {}),
      },
    };
  });
}

describe('journalWrite: the one place a hashed journal record is built', () => {
  it('links the committed export vector byte for byte: record hash, leaf, chain hash, root', () => {
    const { header, entries } = committed();
    let state: LogState | undefined;
    for (const { input, linkedAt } of appends()) {
      const w = journalWrite(state, input, linkedAt, sha256);
      const line = entries.get(w.row.sequence)!;
      expect(w.row.leaf).toBe(line.leaf);
      expect(w.row.chainHash).toBe(line.chain_hash);
      // Redacted lines publish a zero record hash; the others the hash the journal stored.
      if (!/^0+$/.test(line.record_hash)) expect(w.row.recordHash).toBe(line.record_hash);
      expect(w.appended).toEqual({
        sequence: w.row.sequence,
        receiptId: input.receiptId,
        recordHash: w.row.recordHash,
      });
      state = w.state;
    }
    expect(state!.size).toBe(header.entry_count);
    const root = MerkleFrontier.fromState(state!.frontier, sha256).root();
    expect(encodeHex(root)).toBe(header.head.root_hash);
  });

  it('returns the row exactly as stored: canonical record text, 0/1 flag, tombstone text', () => {
    const all = appends();
    let state: LogState | undefined;
    for (const { input, linkedAt } of all) {
      const w = journalWrite(state, input, linkedAt, sha256);
      expect(w.row.record).toBe(cjson(input.record));
      expect(encodeHex(sha256(Buffer.from(w.row.record, 'utf8')))).toBe(w.row.recordHash);
      expect(w.row.allowed).toBe(input.allowed ? 1 : 0);
      expect(w.row.tombstone).toBe(input.tombstone ? cjson(input.tombstone) : null);
      expect(w.row.linkedAt).toBe(linkedAt);
      expect(w.row.amountMicros).toBe(input.amountMicros);
      expect(w.frontierText).toBe(JSON.stringify(w.state.frontier));
      expect(w.state.chainHash).toBe(w.row.chainHash);
      state = w.state;
    }
    expect(all.some((a) => a.input.tombstone)).toBe(true);
  });

  it('starts a tenant at its genesis, and never mutates the state it was given', () => {
    const { input, linkedAt } = appends()[0]!;
    const genesis = emptyLogState(VECTOR_TENANT, sha256);
    const frozen = structuredClone(genesis);
    const fromUndefined = journalWrite(undefined, input, linkedAt, sha256);
    const fromGenesis = journalWrite(genesis, input, linkedAt, sha256);
    expect(fromGenesis).toEqual(fromUndefined);
    expect(genesis).toEqual(frozen);
    expect(fromGenesis.row.sequence).toBe(1);
  });

  it('hands over every completed Merkle subtree once, so stored nodes cover the log', () => {
    let state: LogState | undefined;
    const nodes: string[] = [];
    for (const { input, linkedAt } of appends()) {
      const w = journalWrite(state, input, linkedAt, sha256);
      for (const n of w.subtrees) nodes.push(`${n.level}:${n.index}`);
      state = w.state;
    }
    // Seven leaves complete the pairs 0..2 at level 1 and the first quad at level 2.
    expect(nodes.sort()).toEqual(['1:0', '1:1', '1:2', '2:0']);
  });

  it('refuses a stored chain hash that is not 32 bytes', () => {
    const { input, linkedAt } = appends()[0]!;
    const broken = { ...emptyLogState(VECTOR_TENANT, sha256), chainHash: 'abcd' };
    expect(() => journalWrite(broken, input, linkedAt, sha256)).toThrow(/32 bytes/);
  });
});
