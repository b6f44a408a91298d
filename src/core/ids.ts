import { randomFillSync } from 'node:crypto';
import { invalidField } from './errors.js';

/** semantics.md: tenant, actor and other registered ids are slugs. */
export const SLUG = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export function checkSlug(field: string, value: unknown): string {
  if (typeof value !== 'string' || !SLUG.test(value)) {
    throw invalidField(
      field,
      'a slug of 1 to 63 characters: lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
    );
  }
  return value;
}

const ID_BYTES = 16;
// A decision mints three or four ids; one CSPRNG call per id cost more than the hashing of
// its record. The bytes are drawn from the same generator in blocks and each is handed out
// once, then the block is refilled: what an id is worth as a secret does not change.
const POOL_IDS = 256;
const pool = Buffer.alloc(ID_BYTES * POOL_IDS);
let next = pool.length;

/** A random 128-bit identifier with a readable prefix (`int_…`, `apr_…`). */
export function randomId(prefix: string): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const hex = pool.toString('hex', next, next + ID_BYTES);
  // Zeroed once read, so no later read of the pool can reproduce an id already handed out.
  pool.fill(0, next, next + ID_BYTES);
  next += ID_BYTES;
  return `${prefix}_${hex}`;
}
