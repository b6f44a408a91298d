import { format, resolveConfig } from 'prettier';
import { daemonOpenApi } from '../../src/daemon/app.js';
import { describeOnlyDeps } from '../../src/daemon/describe-only.js';

type Schema = Record<string, unknown>;

export const WIRE_FILE = 'src/sdk/wire.ts';

/** Components keep their names, except the one that would shadow the global `Error`. */
const typeName = (component: string) => (component === 'Error' ? 'ErrorBody' : component);
const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const key = (k: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k));

/** A JSON Schema (the subset zod 4 emits) as a TypeScript type expression. */
export function tsType(s: Schema): string {
  if (typeof s.$ref === 'string') return typeName(s.$ref.replace('#/components/schemas/', ''));
  if (Array.isArray(s.anyOf)) return (s.anyOf as Schema[]).map(tsType).join(' | ');
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return (s.enum as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(s.type)) return (s.type as string[]).map((t) => tsType({ ...s, type: t })).join(' | ');
  switch (s.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${tsType((s.items as Schema | undefined) ?? {})}>`;
    case 'object': {
      const props = (s.properties as Record<string, Schema> | undefined) ?? {};
      const required = new Set((s.required as string[] | undefined) ?? []);
      const fields = Object.entries(props).map(
        ([k, v]) => `${key(k)}${required.has(k) ? '' : '?'}: ${tsType(v)};`,
      );
      const extra = s.additionalProperties;
      if (fields.length === 0)
        return `Record<string, ${extra && typeof extra === 'object' ? tsType(extra as Schema) : 'unknown'}>`;
      return `{ ${fields.join(' ')} }`;
    }
    default:
      return 'unknown';
  }
}

/**
 * The SDK's wire types, generated from the daemon's OpenAPI document: every named schema,
 * and the body, query and success response of each operation the SDK names.
 */
export async function wireTypes(): Promise<string> {
  const doc = daemonOpenApi(describeOnlyDeps()) as {
    paths: Record<string, Record<string, Schema>>;
    components: { schemas: Record<string, Schema> };
  };
  const out: string[] = [
    "/* Generated from the daemon's OpenAPI document by test/helpers/sdk-wire.ts: do not edit.",
    ' * Regenerate with `UPDATE_SNAPSHOTS=1 npx vitest run test/unit/sdk/wire.test.ts`; the test',
    ' * fails whenever the daemon and these types disagree. */',
    '',
  ];
  for (const [name, schema] of Object.entries(doc.components.schemas).sort(([a], [b]) => a.localeCompare(b)))
    out.push(`export type ${typeName(name)} = ${tsType(schema)};`);
  const ops: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const id = op.operationId as string;
      // Generated ids (getV1…) belong to routes no SDK method covers.
      if (/^(get|post)[A-Z]/.test(id) || id === 'ready') continue;
      ops.push(`  ${id}: { method: '${method.toUpperCase()}', path: '${path}' },`);
      const T = pascal(id);
      const body = (op.requestBody as Schema | undefined)?.content as Record<string, Schema> | undefined;
      const bodySchema = body?.['application/json']?.schema as Schema | undefined;
      if (bodySchema) out.push(`export type ${T}Body = ${tsType(bodySchema)};`);
      const query = ((op.parameters as Schema[] | undefined) ?? []).filter((p) => p.in === 'query');
      if (query.length > 0) {
        const fields = query.map((p) => `${key(p.name as string)}?: ${tsType(p.schema as Schema)};`);
        out.push(`export type ${T}Query = { ${fields.join(' ')} };`);
      }
      const responses = op.responses as Record<string, Schema>;
      const ok = responses['200'] ?? responses['201'];
      const content = ok?.content as Record<string, Schema> | undefined;
      const okSchema = content?.['application/json']?.schema as Schema | undefined;
      if (okSchema) out.push(`export type ${T}Response = ${tsType(okSchema)};`);
    }
  }
  out.push('', '/** Method and path of every operation the SDK names, by operationId. */');
  out.push(`export const OPERATIONS = {\n${ops.sort().join('\n')}\n} as const;`);
  const config = (await resolveConfig(WIRE_FILE)) ?? {};
  return format(out.join('\n') + '\n', { ...config, filepath: WIRE_FILE });
}
