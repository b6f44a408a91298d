import { decodeHex } from '../encoding.js';

/**
 * Typed reads of untrusted parsed JSON. A check that gets `undefined` skips the part that
 * needs the value; the schema check has already reported why it is missing or wrong.
 */

export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function asSafeInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}

/** A 64-digit lowercase hex field as its 32 bytes. */
export function asHash(value: unknown): Uint8Array | undefined {
  const bytes = typeof value === 'string' ? decodeHex(value) : undefined;
  return bytes?.length === 32 ? bytes : undefined;
}
