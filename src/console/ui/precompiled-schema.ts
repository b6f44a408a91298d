/**
 * Build-time only (imported by vite.config.ts, never by the page): the export schema's
 * validators generated as plain code with ajv's standalone mode. ajv otherwise compiles
 * validators at run time with `new Function`, which the console's CSP (no eval) forbids;
 * compiled here, the page runs the same schema, and the same ajv-formats `date-time`
 * check, without evaluating code.
 */
import Ajv2020Module, { _ } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { EXPORT_SCHEMA_ID, exportSchema } from '../../evidence/schema.js';

export const PRECOMPILED_ID = '\0svc-precompiled-schema-validator';

export function precompiledSchemaValidator(): string {
  const ajv = new Ajv2020Module.default({
    allErrors: true,
    strict: true,
    unicodeRegExp: false,
    code: { source: true, esm: true, formats: _`__svcFormats` },
  });
  ajv.addFormat('date-time', true);
  ajv.addSchema(exportSchema);
  const code = standaloneModule.default(ajv, {
    line: EXPORT_SCHEMA_ID,
    header: `${EXPORT_SCHEMA_ID}#/$defs/header`,
    entry: `${EXPORT_SCHEMA_ID}#/$defs/entry`,
    anchor: `${EXPORT_SCHEMA_ID}#/$defs/anchor`,
  });
  return [
    "import { fullFormats as __svcFormats } from 'ajv-formats/dist/formats.js';",
    code,
    `
function toSchemaError(error) {
  return { path: error.instancePath, keyword: error.keyword, message: error.message ?? error.keyword, params: { ...error.params } };
}
function result(validate, value) {
  const valid = validate(value);
  return { valid, errors: valid ? [] : (validate.errors ?? []).map(toSchemaError) };
}
const byKind = { header, entry, anchor };
export function validateExportLine(value) { return result(line, value); }
export function validateLineOfKind(kind, value) { return result(byKind[kind], value); }
`,
  ].join('\n');
}
