import { ATTESTATION_FINDING_CODES } from '../../../src/evidence/verify/attestation-findings.js';
import { describe, expect, it } from 'vitest';
import { chainNext } from '../../../src/evidence/chain.js';
import { cjson } from '../../../src/evidence/cjson.js';
import { encodeBase64, encodeHex } from '../../../src/evidence/encoding.js';
import { entryLeaf } from '../../../src/evidence/entry.js';
import { logIdFor } from '../../../src/evidence/log-id.js';
import { sha256 } from '../../../src/evidence/node-crypto.js';
import { FINDING_CODES, type FindingCode } from '../../../src/evidence/verify/index.js';
import {
  codesOf,
  editLine,
  flipFirstHexDigit,
  joinLines,
  L,
  OTHER_KEY,
  parse,
  resignEverything,
  signHead,
  VECTOR_LINES,
  verify,
  type Json,
} from './export-tamper.js';

const withHead = (index: number, edit: (head: Json) => Json) =>
  editLine(VECTOR_LINES, index, (line) => ({ ...line, head: edit(line.head as Json) }));
const insertAt = (lines: readonly string[], index: number, ...added: string[]): string[] => [
  ...lines.slice(0, index),
  ...added,
  ...lines.slice(index),
];
const remove = (lines: readonly string[], ...indexes: number[]): string[] =>
  lines.filter((_, i) => !indexes.includes(i));
const swap = (lines: readonly string[], a: number, b: number): string[] => {
  const copy = [...lines];
  [copy[a], copy[b]] = [copy[b]!, copy[a]!];
  return copy;
};
const tombstone3to4 = parse(VECTOR_LINES[L.e3]!).tombstone as Json;
/** Every field section 7 fixes on a redacted entry, under the vector's tombstone. */
const blank = {
  record_hash: '0'.repeat(64),
  intent_id: '',
  actor_id: '',
  capability: '',
  grant_id: '',
  tier: 0,
  allowed: false,
  amount_usd: 0,
  occurred_at: tombstone3to4.removed_at,
  linked_at: tombstone3to4.removed_at,
};
const fakeTombstone = (from: number, to: number): Json => ({
  ...tombstone3to4,
  from_sequence: from,
  to_sequence: to,
});

interface TamperCase {
  name: string;
  file: () => string | Uint8Array;
  trust?: Uint8Array[];
  codes: FindingCode[];
}

const CASES: TamperCase[] = [
  // Hash fields
  {
    name: 'flipped entry leaf',
    file: () =>
      joinLines(editLine(VECTOR_LINES, L.e1, (e) => ({ ...e, leaf: flipFirstHexDigit(e.leaf as string) }))),
    codes: ['leaf_mismatch'],
  },
  {
    name: 'flipped chain_hash',
    file: () =>
      joinLines(
        editLine(VECTOR_LINES, L.e2, (e) => ({
          ...e,
          chain_hash: flipFirstHexDigit(e.chain_hash as string),
        })),
      ),
    codes: ['chain_mismatch'],
  },
  {
    name: 'flipped record_hash',
    file: () =>
      joinLines(
        editLine(VECTOR_LINES, L.e7, (e) => ({
          ...e,
          record_hash: flipFirstHexDigit(e.record_hash as string),
        })),
      ),
    codes: ['chain_mismatch', 'header_root_mismatch', 'leaf_mismatch'],
  },
  {
    name: 'flipped anchor root_hash',
    file: () =>
      joinLines(withHead(L.anchor3, (h) => ({ ...h, root_hash: flipFirstHexDigit(h.root_hash as string) }))),
    codes: ['anchor_root_mismatch', 'signature_invalid'],
  },
  {
    name: 'flipped header root_hash',
    file: () =>
      joinLines(withHead(L.header, (h) => ({ ...h, root_hash: flipFirstHexDigit(h.root_hash as string) }))),
    codes: ['header_root_mismatch', 'signature_invalid'],
  },
  {
    name: 'anchor root re-signed over a different tree',
    file: () =>
      joinLines(
        withHead(L.anchor3, (h) => signHead({ ...h, root_hash: flipFirstHexDigit(h.root_hash as string) })),
      ),
    codes: ['anchor_root_mismatch'],
  },
  // Lines moved, dropped, repeated
  {
    name: 'two entries swapped',
    file: () => joinLines(swap(VECTOR_LINES, L.e1, L.e2)),
    codes: [
      'anchor_root_mismatch',
      'chain_mismatch',
      'header_root_mismatch',
      'sequence_gap',
      'sequence_out_of_order',
    ],
  },
  {
    name: 'entry dropped',
    file: () => joinLines(remove(VECTOR_LINES, L.e5)),
    codes: [
      'anchor_misplaced',
      'chain_mismatch',
      'entry_count_mismatch',
      'header_tree_size_mismatch',
      'sequence_gap',
    ],
  },
  {
    name: 'last entry dropped',
    file: () => joinLines(remove(VECTOR_LINES, L.e7)),
    codes: ['entry_count_mismatch', 'header_tree_size_mismatch'],
  },
  {
    name: 'entry duplicated',
    file: () => joinLines(insertAt(VECTOR_LINES, L.e2, VECTOR_LINES[L.e2]!)),
    codes: [
      'anchor_misplaced',
      'chain_mismatch',
      'entry_count_mismatch',
      'header_tree_size_mismatch',
      'sequence_out_of_order',
    ],
  },
  {
    name: 'anchors swapped',
    file: () => joinLines(swap(VECTOR_LINES, L.anchor3, L.anchor6)),
    codes: ['anchor_misplaced', 'anchor_out_of_order'],
  },
  {
    name: 'anchor moved down one line',
    file: () => joinLines(swap(VECTOR_LINES, L.anchor3, L.e4)),
    codes: ['anchor_misplaced'],
  },
  {
    name: 'anchor beyond the entries',
    file: () =>
      joinLines([
        ...VECTOR_LINES,
        cjson({
          ...parse(VECTOR_LINES[L.anchor3]!),
          head: signHead({ ...(parse(VECTOR_LINES[L.anchor3]!).head as Json), tree_size: 8, index: 8 }),
        }),
      ]),
    codes: ['anchor_beyond_entries', 'anchor_misplaced'],
  },
  {
    name: 'anchor over the empty tree',
    file: () =>
      joinLines(
        insertAt(
          VECTOR_LINES,
          L.e1,
          cjson({
            ...parse(VECTOR_LINES[L.anchor3]!),
            head: signHead({
              ...(parse(VECTOR_LINES[L.anchor3]!).head as Json),
              tree_size: 0,
              index: 0,
              root_hash: encodeHex(sha256(new Uint8Array(0))),
            }),
          }),
        ),
      ),
    codes: ['anchor_empty_tree'],
  },
  {
    name: 'header after line 1',
    file: () => joinLines([...VECTOR_LINES, VECTOR_LINES[L.header]!]),
    codes: ['header_misplaced'],
  },
  {
    name: 'header missing',
    file: () => joinLines(remove(VECTOR_LINES, L.header)),
    codes: ['header_missing'],
  },
  // Content
  {
    name: 'entry amount changed',
    file: () => joinLines(editLine(VECTOR_LINES, L.e7, (e) => ({ ...e, amount_usd: 0.5 }))),
    codes: ['chain_mismatch', 'header_root_mismatch', 'leaf_mismatch'],
  },
  {
    name: 'entry field changed under an anchor',
    file: () => joinLines(editLine(VECTOR_LINES, L.e1, (e) => ({ ...e, allowed: false }))),
    codes: ['anchor_root_mismatch', 'chain_mismatch', 'header_root_mismatch', 'leaf_mismatch'],
  },
  {
    name: 'changed entry with leaf and chain recomputed downstream still fails on signed roots',
    file: () => recomputedForgery(),
    codes: ['anchor_root_mismatch', 'header_root_mismatch'],
  },
  {
    name: 'entry from another tenant',
    file: () => joinLines(editLine(VECTOR_LINES, L.e7, (e) => ({ ...e, tenant_id: 'globex' }))),
    codes: ['chain_mismatch', 'header_root_mismatch', 'leaf_mismatch', 'tenant_mismatch'],
  },
  {
    name: 'header tenant changed',
    file: () => joinLines(editLine(VECTOR_LINES, L.header, (h) => ({ ...h, tenant_id: 'globex' }))),
    codes: ['chain_mismatch', 'log_id_mismatch', 'tenant_mismatch'],
  },
  {
    name: 'header log_id changed',
    file: () =>
      joinLines(editLine(VECTOR_LINES, L.header, (h) => ({ ...h, log_id: logIdFor('globex', sha256) }))),
    codes: ['log_id_mismatch'],
  },
  {
    name: "head from another tenant's log",
    file: () => joinLines(withHead(L.anchor3, (h) => signHead({ ...h, log_id: logIdFor('globex', sha256) }))),
    codes: ['log_id_mismatch'],
  },
  {
    name: 'legacy head log id',
    file: () => joinLines(withHead(L.anchor3, (h) => signHead({ ...h, log_id: 'acme-demo-log' }))),
    codes: ['legacy_log_id'],
  },
  {
    name: 'head index not its tree_size',
    file: () => joinLines(withHead(L.anchor3, (h) => signHead({ ...h, index: 2 }))),
    codes: ['head_index_mismatch'],
  },
  // Keys and signatures
  {
    name: 'verified with the wrong key',
    file: () => joinLines(VECTOR_LINES),
    trust: [OTHER_KEY],
    codes: ['key_id_mismatch', 'signature_invalid', 'untrusted_key'],
  },
  {
    name: 'signed by an embedded key only',
    file: () => joinLines(resignEverything(VECTOR_LINES)),
    codes: ['key_id_mismatch', 'signature_invalid', 'untrusted_key'],
  },
  {
    name: 'header key swapped, signatures untouched',
    file: () =>
      joinLines(editLine(VECTOR_LINES, L.header, (h) => ({ ...h, public_key: encodeBase64(OTHER_KEY) }))),
    codes: ['key_id_mismatch', 'untrusted_key'],
  },
  {
    name: 'header key small-order',
    file: () =>
      joinLines(
        editLine(VECTOR_LINES, L.header, (h) => ({
          ...h,
          public_key: encodeBase64(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 1 : 0))),
        })),
      ),
    codes: ['public_key_malformed'],
  },
  {
    name: 'anchor key_id names another key',
    file: () =>
      joinLines(editLine(VECTOR_LINES, L.anchor3, (a) => ({ ...a, key_id: 'ed25519-0000000000000000' }))),
    codes: ['key_id_mismatch'],
  },
  {
    name: 'header signing_key_id wrong',
    file: () =>
      joinLines(
        editLine(VECTOR_LINES, L.header, (h) => ({ ...h, signing_key_id: 'ed25519-0000000000000000' })),
      ),
    codes: ['key_id_mismatch'],
  },
  {
    name: 'anchor algorithm not ed25519',
    file: () => joinLines(editLine(VECTOR_LINES, L.anchor3, (a) => ({ ...a, algorithm: 'ecdsa-p256' }))),
    codes: ['algorithm_unsupported'],
  },
  {
    name: 'header algorithm not ed25519',
    file: () => joinLines(editLine(VECTOR_LINES, L.header, (h) => ({ ...h, signature_algorithm: 'rsa' }))),
    codes: ['algorithm_unsupported'],
  },
  {
    name: 'signature not base64',
    file: () => joinLines(withHead(L.anchor3, (h) => ({ ...h, signature: 'not base64!' }))),
    codes: ['signature_encoding'],
  },
  {
    name: 'signature with non-zero padding bits (Node would accept)',
    file: () =>
      joinLines(
        withHead(L.anchor3, (h) => ({ ...h, signature: (h.signature as string).replace(/w==$/, 'x==') })),
      ),
    codes: ['signature_encoding'],
  },
  {
    name: '63-byte signature',
    file: () =>
      joinLines(
        withHead(L.anchor3, (h) => ({
          ...h,
          signature: Buffer.from(h.signature as string, 'base64')
            .subarray(0, 63)
            .toString('base64'),
        })),
      ),
    codes: ['signature_length'],
  },
  {
    name: 'witness signature not base64',
    file: () =>
      joinLines(
        editLine(VECTOR_LINES, L.anchor6, (a) => ({
          ...a,
          witnesses: [{ ...(a.witnesses as Json[])[0], signature: '@@@@' }],
        })),
      ),
    codes: ['malformed_base64'],
  },
  {
    name: 'timestamp digest of another head',
    file: () =>
      joinLines(
        editLine(VECTOR_LINES, L.anchor6, (a) => ({
          ...a,
          timestamp: {
            ...(a.timestamp as Json),
            digest: flipFirstHexDigit((a.timestamp as Json).digest as string),
          },
        })),
      ),
    codes: ['timestamp_digest_mismatch'],
  },
  // pre_anchor
  {
    name: 'pre_anchor true with anchors',
    file: () => joinLines(editLine(VECTOR_LINES, L.header, (h) => ({ ...h, pre_anchor: true }))),
    codes: ['pre_anchor_conflict'],
  },
  {
    name: 'anchors removed, no pre_anchor',
    file: () => joinLines(remove(VECTOR_LINES, L.anchor3, L.anchor6)),
    codes: ['anchor_missing'],
  },
  // Tombstones
  {
    name: 'redacted entry with content left in',
    file: () => joinLines(editLine(VECTOR_LINES, L.e3, (e) => ({ ...e, actor_id: 'agent:support-bot' }))),
    codes: ['redacted_content_present'],
  },
  {
    name: 'tombstone with no redaction record',
    file: () =>
      joinLines(editLine(VECTOR_LINES, L.e5, (e) => ({ ...e, ...blank, tombstone: fakeTombstone(5, 5) }))),
    codes: ['redaction_record_missing'],
  },
  {
    name: 'redaction record removed',
    file: () => joinLines(editLine(VECTOR_LINES, L.e6, (e) => ({ ...e, tombstone: fakeTombstone(1, 1) }))),
    codes: [
      'anchor_root_mismatch',
      'chain_mismatch',
      'header_root_mismatch',
      'leaf_mismatch',
      'redaction_incomplete',
      'redaction_record_missing',
    ],
  },
  {
    name: 'tombstone below its range',
    file: () => joinLines(editLine(VECTOR_LINES, L.e2, (e) => ({ ...e, tombstone: tombstone3to4 }))),
    codes: [
      'anchor_root_mismatch',
      'chain_mismatch',
      'header_root_mismatch',
      'leaf_mismatch',
      'tombstone_below_range',
    ],
  },
  {
    name: 'tombstone range reversed',
    file: () =>
      joinLines(editLine(VECTOR_LINES, L.e5, (e) => ({ ...e, ...blank, tombstone: fakeTombstone(5, 4) }))),
    codes: [
      'anchor_root_mismatch',
      'chain_mismatch',
      'header_root_mismatch',
      'leaf_mismatch',
      'tombstone_malformed',
    ],
  },
  {
    name: 'overlapping redaction ranges',
    file: () =>
      joinLines(editLine(VECTOR_LINES, L.e5, (e) => ({ ...e, ...blank, tombstone: fakeTombstone(4, 5) }))),
    codes: ['redaction_incomplete', 'redaction_record_missing', 'tombstone_overlap'],
  },
  {
    name: 'entry inside a range left unredacted',
    file: () => joinLines(editLine(VECTOR_LINES, L.e4, ({ tombstone: _t, ...e }) => e)),
    codes: [
      'anchor_root_mismatch',
      'chain_mismatch',
      'header_root_mismatch',
      'leaf_mismatch',
      'redaction_incomplete',
    ],
  },
  {
    name: 'redaction record that is not svc.journal.redact',
    file: () => joinLines(editLine(VECTOR_LINES, L.e6, (e) => ({ ...e, capability: 'crm.delete' }))),
    codes: [
      'anchor_root_mismatch',
      'chain_mismatch',
      'header_root_mismatch',
      'leaf_mismatch',
      'redaction_record_invalid',
    ],
  },
  // File and parsing rules
  {
    name: 'CR at a line end',
    file: () => joinLines(VECTOR_LINES.map((line, i) => (i === L.e2 ? line + '\r' : line))),
    codes: ['carriage_return'],
  },
  {
    name: 'CRLF line endings throughout',
    file: () => VECTOR_LINES.map((line) => line + '\r\n').join(''),
    codes: ['carriage_return'],
  },
  { name: 'BOM', file: () => '\ufeff' + joinLines(VECTOR_LINES), codes: ['byte_order_mark'] },
  { name: 'blank line', file: () => joinLines(insertAt(VECTOR_LINES, L.e4, '')), codes: ['blank_line'] },
  {
    name: 'a line nested 33 deep (set aside unparsed: nothing else follows from it)',
    file: () => joinLines(insertAt(VECTOR_LINES, L.e4, `{"a":${'['.repeat(32)}${']'.repeat(32)}}`)),
    codes: ['nesting_too_deep'],
  },
  {
    name: 'no final newline',
    file: () => joinLines(VECTOR_LINES).slice(0, -1),
    codes: ['missing_final_newline'],
  },
  {
    name: 'line over 1 MiB',
    file: () => joinLines([...VECTOR_LINES, `{"type":"entry","pad":"${'x'.repeat(1024 * 1024)}"}`]),
    codes: ['line_too_long'],
  },
  {
    name: 'invalid UTF-8',
    file: () =>
      Buffer.concat([
        Buffer.from(joinLines(VECTOR_LINES)),
        Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d, 0x0a]),
      ]),
    codes: ['invalid_utf8'],
  },
  { name: 'not JSON', file: () => joinLines([...VECTOR_LINES, '{"type":"entry",']), codes: ['invalid_json'] },
  {
    name: 'JSON but not an object',
    file: () => joinLines([...VECTOR_LINES, '["entry"]']),
    codes: ['not_an_object'],
  },
  {
    name: 'duplicate key',
    file: () =>
      joinLines(
        VECTOR_LINES.map((line, i) =>
          i === L.e1 ? line.replace('"allowed":true', '"allowed":false,"allowed":true') : line,
        ),
      ),
    codes: ['non_canonical_line'],
  },
  {
    name: 'non-canonical spacing',
    file: () => joinLines(VECTOR_LINES.map((line, i) => (i === L.e1 ? line.replace('{', '{ ') : line))),
    codes: ['non_canonical_line'],
  },
  {
    name: 'non-canonical escape',
    file: () =>
      joinLines(
        VECTOR_LINES.map((line, i) =>
          i === L.e1 ? line.replace('"agent:billing-bot"', '"agent:billing\\u002dbot"') : line,
        ),
      ),
    codes: ['non_canonical_line'],
  },
  {
    name: '-0 for 0',
    file: () =>
      joinLines(
        VECTOR_LINES.map((line, i) =>
          i === L.e3 ? line.replace('"amount_usd":0', '"amount_usd":-0') : line,
        ),
      ),
    codes: ['non_canonical_line'],
  },
  {
    name: 'lone surrogate',
    file: () =>
      joinLines(
        VECTOR_LINES.map((line, i) =>
          i === L.e1 ? line.replace('"intent_id":"int_', '"intent_id":"\\ud800int_') : line,
        ),
      ),
    codes: ['lone_surrogate'],
  },
  {
    name: 'unknown type',
    file: () => joinLines(editLine(VECTOR_LINES, L.anchor3, (a) => ({ ...a, type: 'checkpoint' }))),
    codes: ['unknown_type'],
  },
  {
    name: 'unknown field',
    file: () => joinLines(editLine(VECTOR_LINES, L.anchor3, (a) => ({ ...a, note: 'hello' }))),
    codes: ['unknown_field'],
  },
  {
    name: 'schema violation in an unsigned field',
    file: () => joinLines(editLine(VECTOR_LINES, L.header, (h) => ({ ...h, exported_at: 'yesterday' }))),
    codes: ['schema_violation'],
  },
  {
    name: 'integer beyond 2^53 (rounded by JSON.parse)',
    file: () =>
      joinLines(
        VECTOR_LINES.map((line, i) =>
          i === L.anchor3 ? line.replace('"index":3', '"index":9007199254740993') : line,
        ),
      ),
    codes: ['non_canonical_line', 'signature_invalid', 'unsafe_integer'],
  },
  {
    name: 'integer 2^53 exactly (canonical, still unsafe)',
    file: () =>
      joinLines(
        VECTOR_LINES.map((line, i) =>
          i === L.anchor3 ? line.replace('"index":3', '"index":9007199254740992') : line,
        ),
      ),
    codes: ['signature_invalid', 'unsafe_integer'],
  },
];

/** Entry 2 changed, then its leaf, its chain and every later chain hash recomputed: only signatures stand in the way. */
function recomputedForgery(): string {
  let lines = editLine(VECTOR_LINES, L.e2, (e) => ({ ...e, amount_usd: 0 }));
  // The forger recomputes with the verifier's own rules; only signed roots can catch this.
  lines = forgeChain(lines);
  return joinLines(lines);
}

function forgeChain(lines: string[]): string[] {
  let previous: Uint8Array | undefined;
  return lines.map((line) => {
    const value = parse(line);
    if (value.type !== 'entry') return line;
    const redacted =
      value.tombstone !== undefined &&
      (value.sequence as number) <= ((value.tombstone as Json).to_sequence as number);
    const leaf = redacted
      ? new Uint8Array(Buffer.from(value.leaf as string, 'hex'))
      : entryLeaf(value, sha256);
    previous =
      previous === undefined
        ? new Uint8Array(Buffer.from(value.chain_hash as string, 'hex'))
        : chainNext(previous, leaf, sha256);
    if ((value.sequence as number) === 1) return line;
    return cjson({ ...value, leaf: encodeHex(leaf), chain_hash: encodeHex(previous) });
  });
}

describe('verifier: each tampering fails with its own finding codes', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const report = await verify(c.file(), c.trust ? { publicKeys: c.trust } : {});
    expect(report.result).toBe('fail');
    expect(codesOf(report)).toEqual([...c.codes].sort());
    expect(report.summary).toMatch(/^fail \(\d+ findings?\)$/);
    for (const finding of report.findings) expect(finding.message.length).toBeGreaterThan(10);
  });

  it('exercises every finding code except those only a pre-anchor file can raise', () => {
    const covered = new Set(CASES.flatMap((c) => c.codes));
    // Timestamp, witness and receipt codes need trust roots, pinned keys or a receipt: they are
    // exercised in attestation-verify.test.ts, integration/timestamps.test.ts (a real authority)
    // and integration/merkle-proofs.test.ts.
    const missing = Object.keys(FINDING_CODES).filter(
      (code) => !covered.has(code as FindingCode) && !(code in ATTESTATION_FINDING_CODES),
    );
    expect(missing).toEqual(['anchors_required']); // covered in verifier.test.ts
  });
});
