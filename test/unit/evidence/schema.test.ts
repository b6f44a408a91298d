import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exportSchema } from '../../../src/evidence/schema.js';
import { validateExportLine, validateLineOfKind } from '../../../src/evidence/schema-validator.js';
import { vectorPath } from './vector-paths.js';

type Json = Record<string, unknown>;
const LINES = readFileSync(vectorPath('svc-export/export.jsonl'), 'utf8')
  .trimEnd()
  .split('\n')
  .map((line) => JSON.parse(line) as Json);
const header = LINES[0]!;
const entry = LINES[1]!;
const redacted = LINES[3]!;
const anchor = LINES[8]!; // has timestamp and witnesses

/** The field tables of interface-spec.md, transcribed: name → required. */
const TABLES: Record<string, Record<string, boolean>> = {
  header: {
    type: true,
    schema: true,
    log_id: true,
    tenant_id: true,
    exported_at: true,
    entry_count: true,
    head: true,
    public_key: true,
    signing_key_id: true,
    signature_algorithm: true,
    pre_anchor: false,
  },
  entry: {
    type: true,
    tenant_id: true,
    sequence: true,
    record_hash: true,
    intent_id: true,
    actor_id: true,
    capability: true,
    tier: true,
    allowed: true,
    grant_id: true,
    amount_usd: true,
    occurred_at: true,
    linked_at: true,
    tombstone: false,
    chain_hash: true,
    leaf: true,
  },
  anchor: { type: true, head: true, key_id: false, algorithm: false, timestamp: false, witnesses: false },
  treeHead: { log_id: true, index: true, root_hash: true, tree_size: true, signed_at: true, signature: true },
  timestamp: { authority: true, digest: true, time: true, token: false, noop: false, verified: false },
  witness: { witness_id: true, public_key: false, signature: true, signed_at: true, key_holder: false },
  tombstone: {
    from_sequence: true,
    to_sequence: true,
    reason: true,
    authorised_by: true,
    policy_id: false,
    record_count: false,
    receipt_count: false,
    removed_at: true,
  },
};

const defs = exportSchema.$defs as unknown as Record<
  string,
  { properties: Json; required: string[]; additionalProperties: boolean }
>;

describe('the export JSON Schema', () => {
  it('is draft 2020-12 with oneOf over the three line kinds', () => {
    expect(exportSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(exportSchema.oneOf.map((branch) => branch.$ref)).toEqual([
      '#/$defs/header',
      '#/$defs/entry',
      '#/$defs/anchor',
    ]);
  });

  it.each(Object.keys(TABLES))('%s has exactly the fields of its table, closed', (name) => {
    const def = defs[name]!;
    const table = TABLES[name]!;
    expect(Object.keys(def.properties).sort()).toEqual(Object.keys(table).sort());
    expect(def.required.slice().sort()).toEqual(
      Object.keys(table)
        .filter((field) => table[field])
        .sort(),
    );
    expect(def.additionalProperties).toBe(false);
  });

  it('accepts every line of the project vector, whole and by kind', () => {
    for (const line of LINES) {
      expect(validateExportLine(line)).toEqual({ valid: true, errors: [] });
      expect(validateLineOfKind(line.type as 'header', line).valid).toBe(true);
    }
  });

  it.each([
    ['a header', header, 'header'],
    ['an entry', entry, 'entry'],
    ['an anchor', anchor, 'anchor'],
  ] as const)(
    'refuses %s missing each required field and accepts it without each optional one',
    (_what, line, kind) => {
      for (const [field, required] of Object.entries(TABLES[kind]!)) {
        if (!(field in line)) continue;
        const { [field]: _dropped, ...rest } = line;
        expect(validateLineOfKind(kind, rest).valid, field).toBe(!required);
        expect(validateExportLine(rest).valid, field).toBe(!required);
      }
    },
  );

  const failing = (kind: 'header' | 'entry' | 'anchor', line: unknown): { keyword: string; path: string }[] =>
    validateLineOfKind(kind, line).errors.map(({ keyword, path }) => ({ keyword, path }));

  it('refuses unknown fields at every depth', () => {
    expect(failing('entry', { ...entry, note: 'x' })).toEqual([
      { keyword: 'additionalProperties', path: '' },
    ]);
    const head = { ...(anchor.head as Json), extra: 1 };
    expect(failing('anchor', { ...anchor, head })).toEqual([
      { keyword: 'additionalProperties', path: '/head' },
    ]);
    const tombstone = { ...(redacted.tombstone as Json), why: 'x' };
    expect(failing('entry', { ...redacted, tombstone })).toEqual([
      { keyword: 'additionalProperties', path: '/tombstone' },
    ]);
    const witnesses = [{ ...(anchor.witnesses as Json[])[0], x: 1 }];
    expect(failing('anchor', { ...anchor, witnesses })).toEqual([
      { keyword: 'additionalProperties', path: '/witnesses/0' },
    ]);
  });

  it('checks hex hashes, head log ids, safe integers and date-times', () => {
    expect(failing('entry', { ...entry, leaf: (entry.leaf as string).toUpperCase() })).toEqual([
      { keyword: 'pattern', path: '/leaf' },
    ]);
    expect(failing('entry', { ...entry, chain_hash: 'ab' })).toEqual([
      { keyword: 'pattern', path: '/chain_hash' },
    ]);
    const legacy = { ...(anchor.head as Json), log_id: 'log-1' };
    expect(failing('anchor', { ...anchor, head: legacy })).toEqual([
      { keyword: 'pattern', path: '/head/log_id' },
    ]);
    expect(failing('entry', { ...entry, sequence: 2 ** 53 })).toEqual([
      { keyword: 'maximum', path: '/sequence' },
    ]);
    expect(failing('entry', { ...entry, sequence: 1.5 })).toEqual([{ keyword: 'type', path: '/sequence' }]);
    expect(failing('entry', { ...entry, sequence: -1 })).toEqual([{ keyword: 'minimum', path: '/sequence' }]);
    expect(failing('entry', { ...entry, occurred_at: 'yesterday' })).toEqual([
      { keyword: 'format', path: '/occurred_at' },
    ]);
    expect(failing('header', { ...header, schema: 'svc.export/v2' })).toEqual([
      { keyword: 'const', path: '/schema' },
    ]);
  });

  it('refuses an unknown line type as a whole', () => {
    expect(validateExportLine({ ...anchor, type: 'checkpoint' }).valid).toBe(false);
  });
});
