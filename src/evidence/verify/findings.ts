import { ATTESTATION_FINDING_CODES } from './attestation-findings.js';

/**
 * Every finding the verifier can report. Codes are stable: tools and the tamper suite
 * match on them, so a code is never renamed or reused; README.md documents each one.
 * Every finding fails the export.
 */
export const FINDING_CODES = {
  // File and parsing rules (evidence-format.md §8)
  byte_order_mark: 'a line starts with a UTF-8 byte order mark',
  carriage_return: 'a line holds a carriage return (CR) byte',
  blank_line: 'an empty line',
  missing_final_newline: 'the last line does not end in \\n',
  line_too_long: 'a line is longer than 1 MiB; it is not parsed',
  nesting_too_deep: 'a line nests arrays or objects more than 32 deep; it is not parsed',
  invalid_utf8: 'a line is not valid UTF-8',
  invalid_json: 'a line is not JSON',
  not_an_object: 'a line is JSON but not an object',
  non_canonical_line:
    'a line is not byte-identical to CJSON(JSON.parse(line)) (duplicate keys, key order, spacing, escapes, numbers)',
  lone_surrogate: 'a string escapes a lone UTF-16 surrogate, which has no canonical form',
  unknown_type: 'a line whose type is not header, entry or anchor',
  unknown_field: 'an object holds a field the schema does not define',
  unsafe_integer: 'an integer field is beyond ±(2^53 - 1)',
  schema_violation: 'a field is missing or has the wrong type or format',
  // Header and log identity (§2, §6)
  header_missing: 'line 1 is not a header line',
  header_misplaced: 'a header line after line 1',
  log_id_mismatch: 'a log id differs from the one derived from the header tenant_id',
  legacy_log_id: 'a tree head log id without the svc/log-id/1/ prefix (legacy material)',
  tenant_mismatch: "an entry's tenant_id differs from the header's",
  entry_count_mismatch: 'the header entry_count differs from the number of entry lines',
  header_tree_size_mismatch: 'the header head tree_size differs from the number of entry lines',
  header_root_mismatch: 'the header head root_hash differs from the root over all leaves',
  // Keys and signatures (§1, §6)
  untrusted_key: 'the header public_key is not one of the keys given out of band',
  public_key_malformed: 'the header public_key is not strict base64 of a usable 32-byte Ed25519 key',
  key_id_mismatch: 'a key id does not name the key it should',
  algorithm_unsupported: 'a signature algorithm other than ed25519',
  signature_encoding: 'a head signature is not strict base64',
  signature_length: 'a head signature does not decode to 64 bytes',
  signature_invalid: 'a head signature does not verify under any trusted key',
  malformed_base64: 'a timestamp token or witness field is not strict base64',
  // Entries, chain and tree (§3, §4, §5)
  sequence_gap: 'entry sequences skip one or more numbers',
  sequence_out_of_order: 'an entry sequence repeats or goes back',
  leaf_mismatch: 'an entry leaf differs from H(preimage)',
  chain_mismatch: 'an entry chain_hash differs from H(0x01 || previous chain hash || leaf)',
  // Anchors (§6)
  anchor_misplaced: 'an anchor does not stand directly after the entry its tree_size names',
  anchor_out_of_order: 'anchor tree sizes do not increase',
  anchor_empty_tree: 'an anchor over the empty tree (tree_size 0)',
  anchor_beyond_entries: 'an anchor tree_size exceeds the number of entries in the file',
  anchor_root_mismatch: 'an anchor root_hash differs from the root over the first tree_size leaves',
  head_index_mismatch: 'a tree head index differs from its tree_size',
  anchor_missing: 'no anchor line and pre_anchor is not true',
  pre_anchor_conflict: 'pre_anchor is true but the file has anchor lines',
  anchors_required: 'a pre-anchor export while anchors were required',
  timestamp_digest_mismatch: "a timestamp digest differs from H(head_payload) of its anchor's head",
  // Tombstones and redaction (§7)
  tombstone_malformed: 'a tombstone range is not 1 <= from_sequence <= to_sequence',
  tombstone_below_range: 'a tombstone on an entry below its own range',
  tombstone_overlap: 'redaction ranges overlap',
  redacted_content_present: 'a redacted entry holds a value section 7 does not fix',
  redaction_incomplete: 'an entry inside a redaction range is not redacted under it',
  redaction_record_missing: 'redacted entries with no later redaction record carrying the same tombstone',
  redaction_record_invalid: 'a redaction record that is not an allowed svc.journal.redact entry',
  // Timestamps and witnesses (§6.1, §6.2)
  ...ATTESTATION_FINDING_CODES,
} as const;

export type FindingCode = keyof typeof FINDING_CODES;

export interface Finding {
  code: FindingCode;
  /** 1-based line number, or null for the file as a whole (an empty file). */
  line: number | null;
  message: string;
}

/** Where a check reports: the verifier's sink, or the list one inspected line carries. */
export interface FindingCollector {
  add(code: FindingCode, line: number | null, message: string): void;
}

/** Collects findings; beyond `max` it only counts, so a hostile file cannot exhaust memory. */
export class FindingSink implements FindingCollector {
  readonly findings: Finding[] = [];
  omitted = 0;

  constructor(private readonly max: number) {}

  add(code: FindingCode, line: number | null, message: string): void {
    if (this.findings.length < this.max) this.findings.push({ code, line, message });
    else this.omitted += 1;
  }

  addAll(findings: readonly Finding[]): void {
    for (const f of findings) this.add(f.code, f.line, f.message);
  }

  get total(): number {
    return this.findings.length + this.omitted;
  }
}
