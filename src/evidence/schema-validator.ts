import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { ErrorObject, FormatDefinition, ValidateFunction } from 'ajv/dist/2020.js';
import type { LineKind } from './export-line.js';
import { EXPORT_SCHEMA_ID, exportSchema } from './schema.js';
import { fastDateTime, regExp } from './schema-speed.js';

/** One schema violation: where (JSON pointer into the line), which keyword, and ajv's words. */
export interface SchemaError {
  path: string;
  keyword: string;
  message: string;
  /** ajv's keyword parameters, e.g. `additionalProperty`, `limit`, `pattern`. */
  params: Record<string, unknown>;
}

export interface SchemaResult {
  valid: boolean;
  errors: SchemaError[];
}

interface Validators {
  line: ValidateFunction;
  byKind: Record<LineKind, ValidateFunction>;
}

let validators: Validators | undefined;

// Compiled on first use: ajv code generation costs more than the rest of an import.
function compile(): Validators {
  if (validators) return validators;
  // ajv and ajv-formats are CommonJS; under NodeNext their callable is `.default`.
  // The schema's patterns are ASCII, where the `u` flag changes nothing but the speed.
  const ajv = new Ajv2020Module.default({
    allErrors: true,
    strict: true,
    unicodeRegExp: false,
    code: { regExp },
  });
  addFormatsModule.default(ajv);
  ajv.addFormat('date-time', fastDateTime(fullFormats['date-time'] as FormatDefinition<string>));
  ajv.addSchema(exportSchema);
  const def = (name: string): ValidateFunction => ajv.compile({ $ref: `${EXPORT_SCHEMA_ID}#/$defs/${name}` });
  validators = {
    line: ajv.getSchema(EXPORT_SCHEMA_ID)!,
    byKind: { header: def('header'), entry: def('entry'), anchor: def('anchor') },
  };
  return validators;
}

function result(validate: ValidateFunction, value: unknown): SchemaResult {
  const valid = validate(value);
  return { valid, errors: valid ? [] : (validate.errors ?? []).map(toSchemaError) };
}

function toSchemaError(error: ErrorObject): SchemaError {
  return {
    path: error.instancePath,
    keyword: error.keyword,
    message: error.message ?? error.keyword,
    params: { ...error.params },
  };
}

/** Validate one parsed line against the whole published schema (`oneOf` header, entry, anchor). */
export function validateExportLine(value: unknown): SchemaResult {
  return result(compile().line, value);
}

/**
 * Validate a line against the definition for its kind. Errors then name the field at
 * fault, where `oneOf` would report every branch; the verifier dispatches on `type` first.
 */
export function validateLineOfKind(kind: LineKind, value: unknown): SchemaResult {
  return result(compile().byKind[kind], value);
}
