import { LINE_KINDS, type LineKind } from '../export-line.js';
import { validateLineOfKind, type SchemaError } from '../schema-validator.js';
import type { FindingCode, FindingCollector } from './findings.js';
import type { DecodedLine } from './line-decoder.js';

/**
 * §8 structure: dispatch on `type`, then the published schema for that kind. A few schema
 * failures have their own finding codes because the spec names them: unknown fields
 * (objects are closed), integers beyond 2^53 (§1) and legacy head log ids (§2).
 */
export function checkLineSchema(
  line: DecodedLine,
  sink: FindingCollector,
): { kind: LineKind | undefined; valid: boolean } {
  const type = line.value.type;
  if (typeof type !== 'string' || !(LINE_KINDS as readonly string[]).includes(type)) {
    const shown = type === undefined ? 'no type' : `type ${JSON.stringify(type)}`;
    sink.add('unknown_type', line.number, `line has ${shown}; expected header, entry or anchor`);
    return { kind: undefined, valid: false };
  }
  const kind = type as LineKind;
  return { kind, valid: checkSchemaOfKind(kind, line.value, sink, line.number) };
}

/**
 * One object against the published schema for `kind`, findings named by their JSON pointer
 * under `at` (a receipt's `/proof/entry`, say); `line` is where the sink files them.
 */
export function checkSchemaOfKind(
  kind: LineKind,
  value: unknown,
  sink: FindingCollector,
  line: number | null,
  at = '',
): boolean {
  const { valid, errors } = validateLineOfKind(kind, value);
  for (const error of errors) {
    const [code, message] = describe({ ...error, path: at + error.path });
    sink.add(code, line, message);
  }
  return valid;
}

function describe(error: SchemaError): [FindingCode, string] {
  const where = error.path === '' ? 'the line' : error.path;
  const limit = error.params.limit;
  if (error.keyword === 'additionalProperties') {
    return ['unknown_field', `unknown field ${JSON.stringify(error.params.additionalProperty)} in ${where}`];
  }
  if (
    (error.keyword === 'maximum' || error.keyword === 'minimum') &&
    Math.abs(Number(limit)) === Number.MAX_SAFE_INTEGER
  ) {
    return ['unsafe_integer', `${where} is beyond the safe integer range (|n| <= 2^53 - 1)`];
  }
  if (error.keyword === 'pattern' && error.path.endsWith('/head/log_id')) {
    return ['legacy_log_id', `${where} lacks the svc/log-id/1/ prefix: legacy material`];
  }
  return ['schema_violation', `${where} ${error.message}`];
}
