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

const RANDOM_BYTES = 10;
// A decision mints three or four ids; one CSPRNG call per id cost more than the hashing of
// its record. The bytes are drawn from the same generator in blocks and each is handed out
// once, then the block is refilled: what an id is worth as a secret does not change.
const POOL_IDS = 256;
const pool = Buffer.alloc(RANDOM_BYTES * POOL_IDS);
let next = pool.length;

/**
 * A new identifier with a readable prefix (`int_…`, `apr_…`): 48 bits of the time in
 * milliseconds, then 80 random bits, in 32 hex digits.
 *
 * Why time first: ids are index keys. Random keys land on a random page of their index each,
 * so every decision dirtied (and wrote to the WAL, then to the database) a page per id; keys
 * that grow with time append to the same few pages, which a batch of decisions shares. The
 * cost: an id shows when it was minted (its receipt shows that anyway). 80 random bits keep
 * it unguessable and unique (two ids in one millisecond collide with odds 2^-80).
 */
export function newId(prefix: string): string {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  const hex = pool.toString('hex', next, next + RANDOM_BYTES);
  // Zeroed once read, so no later read of the pool can reproduce an id already handed out.
  pool.fill(0, next, next + RANDOM_BYTES);
  next += RANDOM_BYTES;
  return `${prefix}_${timeHex(Date.now())}${hex}`;
}

/** 12 hex digits of milliseconds: enough until the year 10889. */
function timeHex(ms: number): string {
  return ms.toString(16).padStart(12, '0');
}
