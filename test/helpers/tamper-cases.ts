/**
 * The tamper suite's cases, applied to a real export of the scenario in real-export.ts:
 * entries 1..14 of tenant acme, anchors at 5 (old key), 10 and 13 (new key), entries 2..4
 * redacted by record 11, header head at 14. Each case is one mutation and the exact set of
 * finding codes it must produce. Lines are found by what they hold, never by number, so
 * the same cases run on the committed corpus and on a fresh export.
 */
import { sign, type KeyObject } from 'node:crypto';
import { cjson } from '../../src/evidence/cjson.js';
import { encodeBase64, encodeHex } from '../../src/evidence/encoding.js';
import { keyIdFor, rawPublicKey } from '../../src/evidence/keys.js';
import { sha256 } from '../../src/evidence/node-crypto.js';
import { signTreeHead, type UnsignedTreeHead } from '../../src/evidence/tree-head.js';
import type { FindingCode } from '../../src/evidence/verify/index.js';

export type Json = Record<string, unknown>;

export interface TamperContext {
  /** The export's lines, without their newlines. */
  lines: readonly string[];
  /** The log's active private key (signed the anchors at 10 and 13 and the header head). */
  logKey: KeyObject;
  /** A key of nobody the auditor trusts. */
  attackerKey: KeyObject;
  /** A head tenant other's log signed, and other's public key. */
  otherHead: Json;
  otherKey: Uint8Array;
}

export interface TamperCase {
  id: string;
  what: string;
  codes: FindingCode[];
  file: (ctx: TamperContext) => string | Uint8Array;
  /** Verify under this trust instead of the log's keys. */
  trust?: 'attacker';
  requireAnchors?: boolean;
}

const parse = (line: string): Json => JSON.parse(line) as Json;
export const joinLines = (lines: readonly string[]): string => lines.map((l) => l + '\n').join('');

/** Where the scenario's lines are, found by content. */
function find(lines: readonly string[]) {
  const index = (pred: (v: Json) => boolean, what: string): number => {
    const i = lines.findIndex((l) => pred(parse(l)));
    if (i < 0) throw new Error(`the export has no ${what}`);
    return i;
  };
  return {
    header: index((v) => v.type === 'header', 'header'),
    entry: (seq: number) => index((v) => v.type === 'entry' && v.sequence === seq, `entry ${seq}`),
    anchor: (size: number) =>
      index((v) => v.type === 'anchor' && (v.head as Json).tree_size === size, `anchor ${size}`),
    anchors: lines.flatMap((l, i) => (parse(l).type === 'anchor' ? [i] : [])),
  };
}

const edit = (lines: readonly string[], i: number, f: (v: Json) => Json): string[] =>
  lines.map((l, j) => (j === i ? cjson(f(parse(l))) : l));
const replaceText = (lines: readonly string[], i: number, text: string): string[] =>
  lines.map((l, j) => (j === i ? text : l));
const without = (lines: readonly string[], ...drop: number[]): string[] =>
  lines.filter((_, j) => !drop.includes(j));
const insertAfter = (lines: readonly string[], i: number, ...add: string[]): string[] => [
  ...lines.slice(0, i + 1),
  ...add,
  ...lines.slice(i + 1),
];
const swap = (lines: readonly string[], a: number, b: number): string[] =>
  lines.map((l, j) => (j === a ? lines[b]! : j === b ? lines[a]! : l));
const flipHex = (hex: unknown): string => {
  const text = hex as string;
  return (text[0] === '0' ? '1' : '0') + text.slice(1);
};
const withHead =
  (f: (h: Json) => Json) =>
  (v: Json): Json => ({ ...v, head: f(v.head as Json) });

function signed(head: Json, key: KeyObject): Json {
  const { signature: _old, ...unsigned } = head;
  return {
    ...signTreeHead(unsigned as unknown as UnsignedTreeHead, (m) => new Uint8Array(sign(null, m, key))),
  };
}

const entryOf = (c: TamperContext, seq: number) => find(c.lines).entry(seq);
const anchorOf = (c: TamperContext, size: number) => find(c.lines).anchor(size);
const HEADER = 0;

/** Content changes: the recomputed leaf differs, so the chain link and every later root do too. */
const CONTENT: FindingCode[] = [
  'anchor_root_mismatch',
  'chain_mismatch',
  'header_root_mismatch',
  'leaf_mismatch',
];
const dayBefore = (time: unknown): string => new Date(Date.parse(time as string) - 86_400_000).toISOString();
const tombstoneOf = (c: TamperContext): Json => parse(c.lines[entryOf(c, 3)]!).tombstone as Json;
/** An entry blanked as section 7 fixes it under the scenario's tombstone (removed_at included). */
const blank = (c: TamperContext) => {
  const removedAt = tombstoneOf(c).removed_at;
  return {
    record_hash: '0'.repeat(64),
    intent_id: '',
    actor_id: '',
    capability: '',
    grant_id: '',
    tier: 0,
    allowed: false,
    amount_usd: 0,
    occurred_at: removedAt,
    linked_at: removedAt,
  };
};

export const TAMPER_CASES: TamperCase[] = [
  // Hash fields
  {
    id: 'entry-leaf-flipped',
    what: 'one hex digit of entry 7 `leaf`',
    codes: ['leaf_mismatch'],
    file: (c) => joinLines(edit(c.lines, entryOf(c, 7), (v) => ({ ...v, leaf: flipHex(v.leaf) }))),
  },
  {
    id: 'entry-chain-flipped',
    what: 'one hex digit of entry 7 `chain_hash`',
    codes: ['chain_mismatch'],
    file: (c) =>
      joinLines(edit(c.lines, entryOf(c, 7), (v) => ({ ...v, chain_hash: flipHex(v.chain_hash) }))),
  },
  {
    id: 'entry-record-hash-flipped',
    what: 'one hex digit of entry 12 `record_hash`',
    codes: CONTENT,
    file: (c) =>
      joinLines(edit(c.lines, entryOf(c, 12), (v) => ({ ...v, record_hash: flipHex(v.record_hash) }))),
  },
  {
    id: 'redacted-leaf-flipped',
    what: 'one hex digit of the `leaf` of redacted entry 3 (taken as written, so the chain and roots catch it)',
    codes: ['anchor_root_mismatch', 'chain_mismatch', 'header_root_mismatch'],
    file: (c) => joinLines(edit(c.lines, entryOf(c, 3), (v) => ({ ...v, leaf: flipHex(v.leaf) }))),
  },
  {
    id: 'anchor-root-flipped',
    what: 'one hex digit of the anchor at 10 `root_hash`',
    codes: ['anchor_root_mismatch', 'signature_invalid'],
    file: (c) =>
      joinLines(
        edit(
          c.lines,
          anchorOf(c, 10),
          withHead((h) => ({ ...h, root_hash: flipHex(h.root_hash) })),
        ),
      ),
  },
  {
    id: 'header-root-flipped',
    what: 'one hex digit of the header head `root_hash`',
    codes: ['header_root_mismatch', 'signature_invalid'],
    file: (c) =>
      joinLines(
        edit(
          c.lines,
          HEADER,
          withHead((h) => ({ ...h, root_hash: flipHex(h.root_hash) })),
        ),
      ),
  },
  {
    id: 'anchor-root-resigned',
    what: 'the anchor at 10 given another root and signed again with the log key (a key holder rewriting history)',
    codes: ['anchor_root_mismatch'],
    file: (c) =>
      joinLines(
        edit(
          c.lines,
          anchorOf(c, 10),
          withHead((h) => signed({ ...h, root_hash: flipHex(h.root_hash) }, c.logKey)),
        ),
      ),
  },
  {
    id: 'header-signature-flipped',
    what: 'the first base64 digit of the header head signature changed (still 64 bytes)',
    codes: ['signature_invalid'],
    file: (c) =>
      joinLines(
        edit(
          c.lines,
          HEADER,
          withHead((h) => ({
            ...h,
            signature: ((h.signature as string)[0] === 'A' ? 'B' : 'A') + (h.signature as string).slice(1),
          })),
        ),
      ),
  },
  {
    id: 'anchor-signature-flipped',
    what: 'the first base64 digit of the signature of the anchor at 5 (signed by the retired key) changed',
    codes: ['signature_invalid'],
    file: (c) =>
      joinLines(
        edit(
          c.lines,
          anchorOf(c, 5),
          withHead((h) => ({
            ...h,
            signature: ((h.signature as string)[0] === 'A' ? 'B' : 'A') + (h.signature as string).slice(1),
          })),
        ),
      ),
  },
  {
    id: 'head-index-resigned',
    what: 'the header head `index` set to 13 (tree_size stays 14), signed again',
    codes: ['head_index_mismatch'],
    file: (c) =>
      joinLines(
        edit(
          c.lines,
          HEADER,
          withHead((h) => signed({ ...h, index: 13 }, c.logKey)),
        ),
      ),
  },
  // Lines reordered, dropped, duplicated
  {
    id: 'entries-swapped',
    what: 'entries 7 and 8 swapped',
    codes: [
      'anchor_root_mismatch',
      'chain_mismatch',
      'header_root_mismatch',
      'sequence_gap',
      'sequence_out_of_order',
    ],
    file: (c) => joinLines(swap(c.lines, entryOf(c, 7), entryOf(c, 8))),
  },
  {
    id: 'entry-dropped',
    what: 'entry 7 removed',
    codes: [
      'anchor_misplaced',
      'chain_mismatch',
      'entry_count_mismatch',
      'header_tree_size_mismatch',
      'sequence_gap',
    ],
    file: (c) => joinLines(without(c.lines, entryOf(c, 7))),
  },
  {
    id: 'entry-duplicated',
    what: 'entry 7 repeated right after itself',
    codes: [
      'anchor_misplaced',
      'chain_mismatch',
      'entry_count_mismatch',
      'header_tree_size_mismatch',
      'sequence_out_of_order',
    ],
    file: (c) => joinLines(insertAfter(c.lines, entryOf(c, 7), c.lines[entryOf(c, 7)]!)),
  },
  {
    id: 'tail-truncated',
    what: 'the last entry (14) removed',
    codes: ['entry_count_mismatch', 'header_tree_size_mismatch'],
    file: (c) => joinLines(without(c.lines, entryOf(c, 14))),
  },
  {
    id: 'header-dropped',
    what: 'the header line removed',
    codes: ['header_missing'],
    file: (c) => joinLines(without(c.lines, HEADER)),
  },
  {
    id: 'header-repeated',
    what: 'the header repeated at the end of the file',
    codes: ['header_misplaced'],
    file: (c) => joinLines([...c.lines, c.lines[HEADER]!]),
  },
  {
    id: 'empty-file',
    what: 'an empty file',
    codes: ['header_missing'],
    file: () => '',
  },
  // Anchors
  {
    id: 'anchor-moved',
    what: 'the anchor at 10 moved after entry 11',
    codes: ['anchor_misplaced'],
    file: (c) => joinLines(swap(c.lines, anchorOf(c, 10), entryOf(c, 11))),
  },
  {
    id: 'anchor-duplicated',
    what: 'the anchor at 10 repeated right after itself',
    codes: ['anchor_misplaced', 'anchor_out_of_order'],
    file: (c) => joinLines(insertAfter(c.lines, anchorOf(c, 10), c.lines[anchorOf(c, 10)]!)),
  },
  {
    id: 'anchors-swapped',
    what: 'the anchors at 5 and 10 swapped',
    codes: ['anchor_misplaced', 'anchor_out_of_order'],
    file: (c) => joinLines(swap(c.lines, anchorOf(c, 5), anchorOf(c, 10))),
  },
  {
    id: 'anchor-beyond-entries',
    what: 'an anchor for tree size 15, signed with the log key, after the last of 14 entries',
    codes: ['anchor_beyond_entries', 'anchor_misplaced'],
    file: (c) => {
      const last = parse(c.lines[anchorOf(c, 13)]!);
      const head = signed({ ...(last.head as Json), index: 15, tree_size: 15 }, c.logKey);
      return joinLines([...c.lines, cjson({ ...last, head })]);
    },
  },
  {
    id: 'anchor-empty-tree',
    what: 'an anchor over the empty tree (tree size 0, root H("")), signed with the log key, after the header',
    codes: ['anchor_empty_tree'],
    file: (c) => {
      const last = parse(c.lines[anchorOf(c, 13)]!);
      const empty = encodeHex(sha256(new Uint8Array(0)));
      const head = signed({ ...(last.head as Json), index: 0, tree_size: 0, root_hash: empty }, c.logKey);
      return joinLines(insertAfter(c.lines, HEADER, cjson({ ...last, head })));
    },
  },
  {
    id: 'anchors-dropped',
    what: 'every anchor line removed; the header does not claim pre_anchor',
    codes: ['anchor_missing'],
    file: (c) => joinLines(without(c.lines, ...find(c.lines).anchors)),
  },
  {
    id: 'pre-anchor-conflict',
    what: 'the header claims `pre_anchor: true` while the file has anchors',
    codes: ['pre_anchor_conflict'],
    file: (c) => joinLines(edit(c.lines, HEADER, (v) => ({ ...v, pre_anchor: true }))),
  },
  {
    id: 'pre-anchor-required',
    what: 'every anchor removed and `pre_anchor: true` claimed, verified with --require-anchors',
    codes: ['anchors_required'],
    requireAnchors: true,
    file: (c) =>
      joinLines(
        edit(without(c.lines, ...find(c.lines).anchors), HEADER, (v) => ({ ...v, pre_anchor: true })),
      ),
  },
  // Entry fields
  {
    id: 'entry-actor-changed',
    what: 'entry 6 `actor_id` changed from bot to alice',
    codes: CONTENT,
    file: (c) => joinLines(edit(c.lines, entryOf(c, 6), (v) => ({ ...v, actor_id: 'alice' }))),
  },
  {
    id: 'entry-amount-changed',
    what: 'entry 12 `amount_usd` lowered from 1.5 to 0.5',
    codes: CONTENT,
    file: (c) => joinLines(edit(c.lines, entryOf(c, 12), (v) => ({ ...v, amount_usd: 0.5 }))),
  },
  {
    id: 'refusal-turned-allowed',
    what: 'the refusal, entry 5, marked `allowed: true`',
    codes: CONTENT,
    file: (c) => joinLines(edit(c.lines, entryOf(c, 5), (v) => ({ ...v, allowed: true }))),
  },
  {
    id: 'entry-tenant-changed',
    what: 'entry 6 `tenant_id` changed to other',
    codes: [...CONTENT, 'tenant_mismatch'],
    file: (c) => joinLines(edit(c.lines, entryOf(c, 6), (v) => ({ ...v, tenant_id: 'other' }))),
  },
  {
    id: 'entry-sequence-changed',
    what: 'entry 6 `sequence` changed to 60',
    codes: [...CONTENT, 'sequence_gap', 'sequence_out_of_order'],
    file: (c) => joinLines(edit(c.lines, entryOf(c, 6), (v) => ({ ...v, sequence: 60 }))),
  },
  {
    id: 'entry-unknown-field',
    what: 'entry 6 given an extra field `note`',
    codes: [...CONTENT, 'unknown_field'],
    file: (c) => joinLines(edit(c.lines, entryOf(c, 6), (v) => ({ ...v, note: 'x' }))),
  },
  {
    id: 'entry-tier-string',
    what: 'entry 6 `tier` written as the string "1"',
    codes: [...CONTENT, 'schema_violation'],
    file: (c) => joinLines(edit(c.lines, entryOf(c, 6), (v) => ({ ...v, tier: String(v.tier) }))),
  },
  // Encoding and canonical form
  {
    id: 'duplicate-key',
    what: 'entry 6 starts with a duplicate `actor_id` naming alice (JSON.parse keeps the later bot)',
    codes: ['non_canonical_line'],
    file: (c) =>
      joinLines(
        replaceText(c.lines, entryOf(c, 6), c.lines[entryOf(c, 6)]!.replace('{', '{"actor_id":"alice",')),
      ),
  },
  {
    id: 'spaced-line',
    what: 'entry 6 written with a space after every comma',
    codes: ['non_canonical_line'],
    file: (c) =>
      joinLines(replaceText(c.lines, entryOf(c, 6), c.lines[entryOf(c, 6)]!.replaceAll(',"', ', "'))),
  },
  {
    id: 'keys-unsorted',
    what: 'entry 6 with its keys in reverse order',
    codes: ['non_canonical_line'],
    file: (c) => {
      const v = parse(c.lines[entryOf(c, 6)]!);
      return joinLines(
        replaceText(c.lines, entryOf(c, 6), JSON.stringify(Object.fromEntries(Object.entries(v).reverse()))),
      );
    },
  },
  {
    id: 'needless-escape',
    what: 'entry 6 `actor_id` written "\\u0062ot"',
    codes: ['non_canonical_line'],
    file: (c) =>
      joinLines(
        replaceText(
          c.lines,
          entryOf(c, 6),
          c.lines[entryOf(c, 6)]!.replace('"actor_id":"bot"', '"actor_id":"\\u0062ot"'),
        ),
      ),
  },
  {
    id: 'number-form',
    what: 'entry 6 `amount_usd` written 1.50',
    codes: ['non_canonical_line'],
    file: (c) =>
      joinLines(
        replaceText(
          c.lines,
          entryOf(c, 6),
          c.lines[entryOf(c, 6)]!.replace('"amount_usd":1.5,', '"amount_usd":1.50,'),
        ),
      ),
  },
  {
    id: 'unsafe-integer',
    what: 'header `entry_count` 2^53 (canonical, but beyond the safe range)',
    codes: ['unsafe_integer'],
    file: (c) => joinLines(edit(c.lines, HEADER, (v) => ({ ...v, entry_count: 2 ** 53 }))),
  },
  {
    id: 'lone-surrogate',
    what: 'entry 6 `actor_id` "\\ud800"',
    codes: ['lone_surrogate'],
    file: (c) =>
      joinLines(
        replaceText(
          c.lines,
          entryOf(c, 6),
          c.lines[entryOf(c, 6)]!.replace('"actor_id":"bot"', '"actor_id":"\\ud800"'),
        ),
      ),
  },
  {
    id: 'byte-order-mark',
    what: 'a UTF-8 byte order mark before the header',
    codes: ['byte_order_mark'],
    file: (c) => '\ufeff' + joinLines(c.lines),
  },
  {
    id: 'carriage-return',
    what: 'entry 6 ends in CR LF',
    codes: ['carriage_return'],
    file: (c) => joinLines(replaceText(c.lines, entryOf(c, 6), c.lines[entryOf(c, 6)]! + '\r')),
  },
  {
    id: 'blank-line',
    what: 'an empty line after entry 6',
    codes: ['blank_line'],
    file: (c) => joinLines(insertAfter(c.lines, entryOf(c, 6), '')),
  },
  {
    id: 'missing-final-newline',
    what: 'the file does not end in a newline',
    codes: ['missing_final_newline'],
    file: (c) => joinLines(c.lines).slice(0, -1),
  },
  {
    id: 'invalid-utf8',
    what: 'a 0xff byte inside the anchor at 13 `key_id`',
    codes: ['invalid_utf8'],
    file: (c) => {
      const i = anchorOf(c, 13);
      // NUL never appears in JSON text, so it marks the one byte to spoil.
      const bytes = Buffer.from(
        joinLines(
          replaceText(c.lines, i, c.lines[i]!.replace('"key_id":"ed25519-', '"key_id":"ed25519-\u0000')),
        ),
      );
      bytes[bytes.indexOf(0)] = 0xff;
      return new Uint8Array(bytes);
    },
  },
  {
    id: 'invalid-json',
    what: 'the anchor at 13 cut off before its end',
    codes: ['invalid_json'],
    file: (c) => joinLines(replaceText(c.lines, anchorOf(c, 13), c.lines[anchorOf(c, 13)]!.slice(0, -10))),
  },
  {
    id: 'not-an-object',
    what: 'the anchor at 13 replaced by a JSON array',
    codes: ['not_an_object'],
    file: (c) => joinLines(replaceText(c.lines, anchorOf(c, 13), '[1,2]')),
  },
  {
    id: 'unknown-type',
    what: 'the anchor at 13 given `type: "checkpoint"`',
    codes: ['unknown_type'],
    file: (c) => joinLines(edit(c.lines, anchorOf(c, 13), (v) => ({ ...v, type: 'checkpoint' }))),
  },
  {
    id: 'header-schema-wrong',
    what: 'header `schema` "svc.export/v2"',
    codes: ['schema_violation'],
    file: (c) => joinLines(edit(c.lines, HEADER, (v) => ({ ...v, schema: 'svc.export/v2' }))),
  },
  // Keys and signatures
  {
    id: 'wrong-trusted-key',
    what: 'the original file, verified with a key that is not the log key',
    codes: ['key_id_mismatch', 'signature_invalid', 'untrusted_key'],
    trust: 'attacker',
    file: (c) => joinLines(c.lines),
  },
  {
    id: 'embedded-only-key',
    what: "every head signed again with a forger's key, which the header embeds (the auditor pins the real keys)",
    codes: ['key_id_mismatch', 'signature_invalid', 'untrusted_key'],
    file: (c) => {
      const raw = rawPublicKey(c.attackerKey);
      return joinLines(
        c.lines.map((l) => {
          const v = parse(l);
          if (v.type === 'header') {
            return cjson({
              ...v,
              head: signed(v.head as Json, c.attackerKey),
              public_key: encodeBase64(raw),
              signing_key_id: keyIdFor(raw),
            });
          }
          if (v.type === 'anchor')
            return cjson({ ...v, head: signed(v.head as Json, c.attackerKey), key_id: keyIdFor(raw) });
          return l;
        }),
      );
    },
  },
  {
    id: 'header-key-swapped',
    what: "header `public_key` replaced by tenant other's key",
    codes: ['key_id_mismatch', 'untrusted_key'],
    file: (c) => joinLines(edit(c.lines, HEADER, (v) => ({ ...v, public_key: encodeBase64(c.otherKey) }))),
  },
  {
    id: 'header-key-malformed',
    what: 'header `public_key` "AAAA" (3 bytes)',
    codes: ['public_key_malformed'],
    file: (c) => joinLines(edit(c.lines, HEADER, (v) => ({ ...v, public_key: 'AAAA' }))),
  },
  {
    id: 'signing-key-id-wrong',
    what: 'header `signing_key_id` names the retired key',
    codes: ['key_id_mismatch'],
    file: (c) =>
      joinLines(
        edit(c.lines, HEADER, (v) => ({ ...v, signing_key_id: parse(c.lines[anchorOf(c, 5)]!).key_id })),
      ),
  },
  {
    id: 'anchor-key-id-wrong',
    what: 'the anchor at 10 (signed by the new key) claims the retired key id',
    codes: ['key_id_mismatch'],
    file: (c) =>
      joinLines(
        edit(c.lines, anchorOf(c, 10), (v) => ({ ...v, key_id: parse(c.lines[anchorOf(c, 5)]!).key_id })),
      ),
  },
  {
    id: 'signature-not-base64',
    what: 'the header head signature with "!" in place of its first two digits',
    codes: ['signature_encoding'],
    file: (c) =>
      joinLines(
        edit(
          c.lines,
          HEADER,
          withHead((h) => ({ ...h, signature: '!!' + (h.signature as string).slice(2) })),
        ),
      ),
  },
  {
    id: 'signature-63-bytes',
    what: 'the anchor at 5 signature cut to 63 bytes (valid base64)',
    codes: ['signature_length'],
    file: (c) =>
      joinLines(
        edit(
          c.lines,
          anchorOf(c, 5),
          withHead((h) => ({
            ...h,
            signature: Buffer.from(h.signature as string, 'base64')
              .subarray(0, 63)
              .toString('base64'),
          })),
        ),
      ),
  },
  {
    id: 'signature-algorithm-changed',
    what: 'header `signature_algorithm` "rsa"',
    codes: ['algorithm_unsupported'],
    file: (c) => joinLines(edit(c.lines, HEADER, (v) => ({ ...v, signature_algorithm: 'rsa' }))),
  },
  {
    id: 'anchor-algorithm-changed',
    what: 'the anchor at 10 `algorithm` "ecdsa"',
    codes: ['algorithm_unsupported'],
    file: (c) => joinLines(edit(c.lines, anchorOf(c, 10), (v) => ({ ...v, algorithm: 'ecdsa' }))),
  },
  // Log identity
  {
    id: 'header-head-from-other-log',
    what: "the header head replaced by a head tenant other's log signed",
    codes: ['header_tree_size_mismatch', 'log_id_mismatch', 'signature_invalid'],
    file: (c) => joinLines(edit(c.lines, HEADER, (v) => ({ ...v, head: c.otherHead }))),
  },
  {
    id: 'anchor-head-from-other-log',
    what: "the anchor at 10 head replaced by a head tenant other's log signed",
    codes: ['anchor_misplaced', 'anchor_out_of_order', 'log_id_mismatch', 'signature_invalid'],
    file: (c) => joinLines(edit(c.lines, anchorOf(c, 10), (v) => ({ ...v, head: c.otherHead }))),
  },
  {
    id: 'header-tenant-changed',
    what: 'header `tenant_id` changed to other (the log id and entries stay acme)',
    codes: ['chain_mismatch', 'log_id_mismatch', 'tenant_mismatch'],
    file: (c) => joinLines(edit(c.lines, HEADER, (v) => ({ ...v, tenant_id: 'other' }))),
  },
  {
    id: 'legacy-log-id',
    what: 'the anchor at 10 head `log_id` without the svc/log-id/1/ prefix, signed again',
    codes: ['legacy_log_id'],
    file: (c) =>
      joinLines(
        edit(
          c.lines,
          anchorOf(c, 10),
          withHead((h) =>
            signed({ ...h, log_id: (h.log_id as string).replace('svc/log-id/1/', '') }, c.logKey),
          ),
        ),
      ),
  },
  // Header counts
  {
    id: 'entry-count-wrong',
    what: 'header `entry_count` 13',
    codes: ['entry_count_mismatch'],
    file: (c) => joinLines(edit(c.lines, HEADER, (v) => ({ ...v, entry_count: 13 }))),
  },
  {
    id: 'header-head-shorter',
    what: 'the header head replaced by the (validly signed) anchor head at 13',
    codes: ['header_tree_size_mismatch'],
    file: (c) =>
      joinLines(edit(c.lines, HEADER, (v) => ({ ...v, head: parse(c.lines[anchorOf(c, 13)]!).head }))),
  },
  // Redaction
  {
    id: 'redacted-content-left',
    what: 'redacted entry 3 still names its actor',
    codes: ['redacted_content_present'],
    file: (c) => joinLines(edit(c.lines, entryOf(c, 3), (v) => ({ ...v, actor_id: 'bot' }))),
  },
  {
    id: 'redacted-record-hash-edited',
    what: 'redacted entry 3 `record_hash` set to the hash of another entry (nothing hashes it: section 7 fixes it to 64 zeros)',
    codes: ['redacted_content_present'],
    file: (c) =>
      joinLines(
        edit(c.lines, entryOf(c, 3), (v) => ({
          ...v,
          record_hash: parse(c.lines[entryOf(c, 6)]!).record_hash,
        })),
      ),
  },
  {
    id: 'redacted-occurred-at-edited',
    what: "redacted entry 3 `occurred_at` moved a day earlier than the tombstone's `removed_at`",
    codes: ['redacted_content_present'],
    file: (c) =>
      joinLines(edit(c.lines, entryOf(c, 3), (v) => ({ ...v, occurred_at: dayBefore(v.occurred_at) }))),
  },
  {
    id: 'redacted-linked-at-edited',
    what: "redacted entry 3 `linked_at` moved a day earlier than the tombstone's `removed_at`",
    codes: ['redacted_content_present'],
    file: (c) =>
      joinLines(edit(c.lines, entryOf(c, 3), (v) => ({ ...v, linked_at: dayBefore(v.linked_at) }))),
  },
  {
    id: 'tombstone-without-record',
    what: 'entry 7 blanked under a tombstone for 7..7 that no redaction record carries',
    codes: ['redaction_record_missing'],
    file: (c) =>
      joinLines(
        edit(c.lines, entryOf(c, 7), (v) => ({
          ...v,
          ...blank(c),
          tombstone: { ...tombstoneOf(c), from_sequence: 7, to_sequence: 7, record_count: 1 },
        })),
      ),
  },
  {
    id: 'tombstone-below-range',
    what: 'entry 6 carries a tombstone for 8..9, above itself',
    codes: [...CONTENT, 'tombstone_below_range'],
    file: (c) =>
      joinLines(
        edit(c.lines, entryOf(c, 6), (v) => ({
          ...v,
          tombstone: { ...tombstoneOf(c), from_sequence: 8, to_sequence: 9 },
        })),
      ),
  },
  {
    id: 'tombstone-overlap',
    what: 'entry 6 blanked under a tombstone for 4..6, overlapping the redacted 2..4',
    codes: ['redaction_incomplete', 'redaction_record_missing', 'tombstone_overlap'],
    file: (c) =>
      joinLines(
        edit(c.lines, entryOf(c, 6), (v) => ({
          ...v,
          ...blank(c),
          tombstone: { ...tombstoneOf(c), from_sequence: 4, to_sequence: 6 },
        })),
      ),
  },
  {
    id: 'tombstone-malformed',
    what: 'entry 7 carries a tombstone from sequence 0',
    codes: [...CONTENT, 'tombstone_malformed'],
    file: (c) =>
      joinLines(
        edit(c.lines, entryOf(c, 7), (v) => ({
          ...v,
          tombstone: { ...tombstoneOf(c), from_sequence: 0, to_sequence: 1 },
        })),
      ),
  },
  {
    id: 'redaction-record-disallowed',
    what: 'the redaction record, entry 11, marked `allowed: false`',
    codes: [...CONTENT, 'redaction_record_invalid'],
    file: (c) => joinLines(edit(c.lines, entryOf(c, 11), (v) => ({ ...v, allowed: false }))),
  },
  {
    id: 'redaction-incomplete',
    what: 'entry 3 loses its tombstone inside the redacted range 2..4',
    codes: [...CONTENT, 'redaction_incomplete'],
    file: (c) =>
      joinLines(
        edit(c.lines, entryOf(c, 3), (v) => {
          const { tombstone: _t, ...rest } = v;
          return rest;
        }),
      ),
  },
  // Timestamps and witnesses (not verified yet; what is checkable without trust roots is)
  {
    id: 'timestamp-digest-wrong',
    what: 'the anchor at 10 given a placeholder timestamp whose digest is not H(head_payload)',
    codes: ['timestamp_digest_mismatch'],
    file: (c) =>
      joinLines(
        edit(c.lines, anchorOf(c, 10), (v) => ({
          ...v,
          timestamp: {
            authority: 'noop',
            digest: '0'.repeat(64),
            time: (v.head as Json).signed_at,
            noop: true,
          },
        })),
      ),
  },
  {
    id: 'witness-signature-not-base64',
    what: 'the anchor at 10 given a witness cosignature "!!!!"',
    codes: ['malformed_base64'],
    file: (c) =>
      joinLines(
        edit(c.lines, anchorOf(c, 10), (v) => ({
          ...v,
          witnesses: [{ witness_id: 'w1', signature: '!!!!', signed_at: (v.head as Json).signed_at }],
        })),
      ),
  },
];
