import type { JsonObject } from './field-readers.js';
import type { FindingCollector } from './findings.js';

/**
 * What a receipt's own fields (outside `proof`) are worth offline. A proof binds one entry
 * line; a receipt field is verified only when it restates a field of that line. The rest of
 * the receipt comes from the full journal record, which `record_hash` commits to without
 * publishing, so no offline check can reach it: those fields are reported as unverified,
 * never passed over in silence. The daemon's published shape is `ReceiptView`
 * (src/api/receipt.ts); a test keeps this table equal to it.
 */

/** Receipt fields that restate the entry line's field of the same name. */
export const RECEIPT_FIELDS_FROM_ENTRY = [
  'sequence',
  'intent_id',
  'actor_id',
  'capability',
  'allowed',
  'amount_usd',
  'occurred_at',
  'linked_at',
  'record_hash',
  'leaf',
] as const;

/** Receipt fields derived from the entry line: the daemon publishes an empty grant id as null. */
export const RECEIPT_FIELDS_DERIVED = ['grant_id', 'redacted'] as const;

type Shape = 'string' | 'string|null' | 'number|null' | 'boolean' | 'object|null';

/** Published fields no proof binds, with the JSON type the daemon writes for each. */
export const RECEIPT_FIELDS_UNBOUND: Readonly<Record<string, Shape>> = {
  receipt_id: 'string',
  kind: 'string',
  task_id: 'string|null',
  action: 'string|null',
  intent: 'string|null',
  effect_key_step: 'string|null',
  outcome: 'string',
  code: 'string|null',
  reason: 'string|null',
  remedy: 'string|null',
  approval_id: 'string|null',
  effect: 'object|null',
  effect_id: 'string|null',
  observed: 'boolean',
};

/**
 * Published fields no proof binds that receipts saved by an earlier daemon do not carry:
 * checked and reported unverified when present, not required.
 */
export const RECEIPT_FIELDS_UNBOUND_LATER: Readonly<Record<string, Shape>> = {
  /** the policy version that decided (issue 27): read from the decision's recorded inputs */
  policy_version: 'number|null',
};

const KNOWN: ReadonlySet<string> = new Set([
  ...RECEIPT_FIELDS_FROM_ENTRY,
  ...RECEIPT_FIELDS_DERIVED,
  ...Object.keys(RECEIPT_FIELDS_UNBOUND),
  ...Object.keys(RECEIPT_FIELDS_UNBOUND_LATER),
  'proof',
]);

function hasShape(value: unknown, shape: Shape): boolean {
  if (value === null) return shape.endsWith('|null');
  if (shape.startsWith('object')) return typeof value === 'object' && !Array.isArray(value);
  return typeof value === shape.split('|')[0];
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Compare the receipt's fields with the entry line the proof binds, refuse fields the
 * receipt never carries, and return the unbound ones, by name, for the report. Every field
 * is required: a receipt missing one is not what the daemon wrote.
 */
export function checkReceiptFields(
  receipt: JsonObject,
  entry: JsonObject,
  redacted: boolean,
  sink: FindingCollector,
): string[] {
  for (const field of Object.keys(receipt)) {
    if (!KNOWN.has(field)) {
      sink.add('unknown_field', null, `unknown field ${JSON.stringify(field)} in the receipt`);
    }
  }
  for (const field of RECEIPT_FIELDS_FROM_ENTRY) {
    if (!same(receipt[field], entry[field])) {
      sink.add('receipt_entry_mismatch', null, `the receipt's ${field} differs from its entry line's`);
    }
  }
  const grant = entry.grant_id === '' ? null : entry.grant_id;
  if (!same(receipt.grant_id, grant)) {
    sink.add(
      'receipt_entry_mismatch',
      null,
      'the receipt\'s grant_id differs from its entry line\'s (null where the line has "")',
    );
  }
  if (receipt.redacted !== redacted) {
    sink.add(
      'receipt_entry_mismatch',
      null,
      `the receipt's redacted is not ${redacted}: its entry line is ${redacted ? '' : 'not '}redacted`,
    );
  }
  const unverified: string[] = [];
  for (const [field, shape] of Object.entries(RECEIPT_FIELDS_UNBOUND)) {
    if (!Object.hasOwn(receipt, field)) {
      sink.add('schema_violation', null, `the receipt has no ${field} (expected ${shape})`);
    } else if (!hasShape(receipt[field], shape)) {
      sink.add('schema_violation', null, `the receipt's ${field} is not ${shape}`);
    } else {
      unverified.push(field);
    }
  }
  for (const [field, shape] of Object.entries(RECEIPT_FIELDS_UNBOUND_LATER)) {
    if (!Object.hasOwn(receipt, field)) continue;
    if (!hasShape(receipt[field], shape)) {
      sink.add('schema_violation', null, `the receipt's ${field} is not ${shape}`);
    } else {
      unverified.push(field);
    }
  }
  return unverified;
}
