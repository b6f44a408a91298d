/**
 * The published JSON Schema (draft 2020-12) of one line of an `svc.export/v1` file: every
 * field table of interface-spec.md "Evidence export file", objects closed. It checks
 * structure only; order, cross-line rules, hashes and signatures are the verifier's.
 * Integers carry the safe-integer bounds of evidence-format.md §1.
 */

export const EXPORT_SCHEMA_ID = 'urn:svc:schema:export:v1';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const count = { type: 'integer', minimum: 0, maximum: MAX_SAFE } as const;
const hex64 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
// Strict base64 (canonical padding bits) is beyond a pattern; the verifier decodes it.
const base64 = { type: 'string', contentEncoding: 'base64' } as const;

export const exportSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: EXPORT_SCHEMA_ID,
  title: 'svc.export/v1 line',
  description: 'One line of an svc evidence export: a header, an entry or an anchor.',
  oneOf: [{ $ref: '#/$defs/header' }, { $ref: '#/$defs/entry' }, { $ref: '#/$defs/anchor' }],
  $defs: {
    header: {
      type: 'object',
      additionalProperties: false,
      required: [
        'type',
        'schema',
        'log_id',
        'tenant_id',
        'exported_at',
        'entry_count',
        'head',
        'public_key',
        'signing_key_id',
        'signature_algorithm',
      ],
      properties: {
        type: { const: 'header' },
        schema: { const: 'svc.export/v1' },
        log_id: { type: 'string', minLength: 1 },
        tenant_id: { type: 'string', minLength: 1 },
        exported_at: dateTime,
        entry_count: count,
        head: { $ref: '#/$defs/treeHead' },
        public_key: base64,
        signing_key_id: { type: 'string' },
        signature_algorithm: { type: 'string' },
        pre_anchor: { type: 'boolean' },
      },
    },
    entry: {
      type: 'object',
      additionalProperties: false,
      required: [
        'type',
        'tenant_id',
        'sequence',
        'record_hash',
        'intent_id',
        'actor_id',
        'capability',
        'tier',
        'allowed',
        'grant_id',
        'amount_usd',
        'occurred_at',
        'linked_at',
        'chain_hash',
        'leaf',
      ],
      properties: {
        type: { const: 'entry' },
        tenant_id: { type: 'string', minLength: 1 },
        sequence: count,
        record_hash: hex64,
        intent_id: { type: 'string' },
        actor_id: { type: 'string' },
        capability: { type: 'string' },
        tier: { type: 'integer', minimum: -MAX_SAFE, maximum: MAX_SAFE },
        allowed: { type: 'boolean' },
        grant_id: { type: 'string' },
        amount_usd: { type: 'number' },
        occurred_at: dateTime,
        linked_at: dateTime,
        tombstone: { $ref: '#/$defs/tombstone' },
        chain_hash: hex64,
        leaf: hex64,
      },
    },
    anchor: {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'head'],
      properties: {
        type: { const: 'anchor' },
        head: { $ref: '#/$defs/treeHead' },
        key_id: { type: 'string' },
        algorithm: { type: 'string' },
        timestamp: { $ref: '#/$defs/timestamp' },
        witnesses: { type: 'array', items: { $ref: '#/$defs/witness' } },
      },
    },
    treeHead: {
      type: 'object',
      additionalProperties: false,
      required: ['log_id', 'index', 'root_hash', 'tree_size', 'signed_at', 'signature'],
      properties: {
        log_id: { type: 'string', pattern: '^svc/log-id/1/' },
        index: count,
        root_hash: hex64,
        tree_size: count,
        signed_at: dateTime,
        signature: base64,
      },
    },
    timestamp: {
      type: 'object',
      additionalProperties: false,
      required: ['authority', 'digest', 'time'],
      properties: {
        authority: { type: 'string' },
        digest: { type: 'string' },
        time: dateTime,
        token: base64,
        noop: { type: 'boolean' },
        verified: { type: 'string' },
      },
    },
    witness: {
      type: 'object',
      additionalProperties: false,
      required: ['witness_id', 'signature', 'signed_at'],
      properties: {
        witness_id: { type: 'string', minLength: 1 },
        public_key: base64,
        signature: base64,
        signed_at: dateTime,
        key_holder: { type: 'string' },
      },
    },
    tombstone: {
      type: 'object',
      additionalProperties: false,
      required: ['from_sequence', 'to_sequence', 'reason', 'authorised_by', 'removed_at'],
      properties: {
        from_sequence: count,
        to_sequence: count,
        reason: { type: 'string' },
        authorised_by: { type: 'string' },
        policy_id: { type: 'string' },
        record_count: count,
        receipt_count: count,
        removed_at: dateTime,
      },
    },
  },
} as const;
