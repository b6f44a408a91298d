import { readFileSync } from 'node:fs';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatUsd, parseUsd } from '../../../src/core/money.js';
import { cjson } from '../../../src/evidence/cjson.js';
import { encodeHex } from '../../../src/evidence/encoding.js';
import type { EntryLine, HeaderLine } from '../../../src/evidence/export-line.js';
import { journalWrite, type JournalAppend } from '../../../src/evidence/journal-append.js';
import { chainNext } from '../../../src/evidence/chain.js';
import { emptyLogState, type LogState } from '../../../src/evidence/journal-entry.js';
import type { CompletedSubtree } from '../../../src/evidence/merkle-subtrees.js';
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

  it('refuses a stored frontier that cannot be one', () => {
    const { input, linkedAt } = appends()[0]!;
    const genesis = emptyLogState(VECTOR_TENANT, sha256);
    const stored = (frontier: LogState['frontier']): LogState => ({
      ...genesis,
      size: frontier.size,
      frontier,
    });
    expect(() => journalWrite(stored({ size: 1, nodes: [] }), input, linkedAt, sha256)).toThrow(RangeError);
    expect(() =>
      journalWrite(stored({ size: 2, nodes: ['AB'.repeat(32)] }), input, linkedAt, sha256),
    ).toThrow(TypeError);
  });
});

/**
 * The journal append computed from first principles (evidence-format.md §3-5) with the
 * reference canonicaliser and the whole-frontier Merkle class: what the hot path must equal.
 */
function reference(state: LogState, a: JournalAppend, linkedAt: string) {
  const recordHash = encodeHex(sha256(Buffer.from(canonicalize(a.record)!, 'utf8')));
  const entry = {
    tenant_id: a.tenantId,
    sequence: state.size + 1,
    record_hash: recordHash,
    intent_id: a.intentId,
    actor_id: a.actorId,
    capability: a.capability,
    tier: a.tier,
    allowed: a.allowed,
    grant_id: a.grantId,
    amount_usd: formatUsd(a.amountMicros),
    occurred_at: a.occurredAt,
    linked_at: linkedAt,
    ...(a.tombstone ? { tombstone: a.tombstone } : {}),
  };
  const leaf = sha256(Buffer.from(canonicalize(entry)!, 'utf8'));
  const chain = chainNext(Buffer.from(state.chainHash, 'hex'), leaf, sha256);
  const frontier = MerkleFrontier.fromState(state.frontier, sha256);
  const subtrees: CompletedSubtree[] = [];
  frontier.append(leaf, subtrees);
  return {
    recordHash,
    leaf: encodeHex(leaf),
    chainHash: encodeHex(chain),
    frontier: frontier.state(),
    subtrees,
  };
}

describe('journalWrite equals the first-principles computation for random records', () => {
  const text = fc.string({ unit: 'grapheme', maxLength: 12 });
  const record = fc.dictionary(
    fc.oneof(text, fc.constantFrom('__proto__', '10', '9', 'intent_id', 'a', 'Z')),
    fc.jsonValue({ maxDepth: 3 }),
    { maxKeys: 12 },
  );
  const tombstone = fc.record({
    from_sequence: fc.integer({ min: 1, max: 5 }),
    to_sequence: fc.integer({ min: 5, max: 9 }),
    reason: text,
    authorised_by: text,
    removed_at: fc.constant('2025-01-15T09:00:00.000Z'),
  });
  const append = fc.record({
    record,
    sorted: fc.boolean(),
    intentId: text,
    actorId: text,
    capability: text,
    tier: fc.integer({ min: 0, max: 9 }),
    allowed: fc.boolean(),
    grantId: text,
    amountMicros: fc.bigInt({ min: 0n, max: 10n ** 12n }),
    tombstone: fc.option(tombstone, { nil: undefined }),
  });

  it('record hash, leaf, chain hash, frontier and subtrees, append after append', () => {
    fc.assert(
      fc.property(fc.array(append, { minLength: 1, maxLength: 20 }), (batch) => {
        let state: LogState = emptyLogState('acme', sha256);
        for (const [i, r] of batch.entries()) {
          // Records in any key order, and in sorted order (the order planDecision builds).
          const keys = Object.keys(r.record);
          const rec = Object.fromEntries((r.sorted ? keys.sort() : keys).map((k) => [k, r.record[k]]));
          const input: JournalAppend = {
            tenantId: 'acme',
            kind: 'decision',
            receiptId: `rcp_${i}`,
            taskId: null,
            intentId: r.intentId,
            actorId: r.actorId,
            capability: r.capability,
            tier: r.tier,
            allowed: r.allowed,
            grantId: r.grantId,
            amountMicros: r.amountMicros,
            occurredAt: at(i),
            record: rec,
            ...(r.tombstone ? { tombstone: r.tombstone } : {}),
          };
          const expected = reference(state, input, at(i + 1));
          const w = journalWrite(state, input, at(i + 1), sha256);
          expect(w.row.record).toBe(canonicalize(rec));
          expect(w.row.recordHash).toBe(expected.recordHash);
          expect(w.row.leaf).toBe(expected.leaf);
          expect(w.row.chainHash).toBe(expected.chainHash);
          expect(w.state.frontier).toEqual(expected.frontier);
          expect(w.frontierText).toBe(JSON.stringify(expected.frontier));
          expect(w.subtrees.map((n) => [n.level, n.index, encodeHex(n.hash)])).toEqual(
            expected.subtrees.map((n) => [n.level, n.index, encodeHex(n.hash)]),
          );
          // The next append starts from the state as stored and parsed back, like a restart.
          state = i % 3 === 2 ? (JSON.parse(JSON.stringify(w.state)) as LogState) : w.state;
        }
      }),
      { numRuns: 200 },
    );
  });
});
