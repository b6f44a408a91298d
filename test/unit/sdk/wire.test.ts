import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../src/sdk/wire.js';
import { SDK_METHODS } from '../../../src/sdk/client.js';
import { ROOT } from '../../helpers/cli.js';
import { WIRE_FILE, tsType, wireTypes } from '../../helpers/sdk-wire.js';

describe('SDK wire types against the daemon OpenAPI document', () => {
  it('src/sdk/wire.ts is exactly what the OpenAPI document generates', async () => {
    const generated = await wireTypes();
    const path = join(ROOT, WIRE_FILE);
    if (process.env.UPDATE_SNAPSHOTS) writeFileSync(path, generated);
    expect(readFileSync(path, 'utf8'), 'regenerate with UPDATE_SNAPSHOTS=1').toBe(generated);
  });

  it('every SDK method has its operation, named by operationId, and every named operation its method', () => {
    expect([...SDK_METHODS].sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  it('translates the JSON Schema forms zod emits', () => {
    expect(tsType({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toBe('string | null');
    expect(tsType({ type: ['integer', 'null'] })).toBe('number | null');
    expect(tsType({ type: 'string', enum: ['a', 'b'] })).toBe('"a" | "b"');
    expect(tsType({ type: 'object', additionalProperties: {} })).toBe('Record<string, unknown>');
    expect(
      tsType({ type: 'object', properties: { a: { type: 'boolean' }, 'b-c': {} }, required: ['a'] }),
    ).toBe('{ a: boolean; "b-c"?: unknown; }');
    expect(tsType({ $ref: '#/components/schemas/Error' })).toBe('ErrorBody');
    expect(tsType({ type: 'array', items: { const: 'x' } })).toBe('Array<"x">');
  });
});
