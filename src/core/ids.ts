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

// Random bytes are drawn from the CSPRNG 4 KiB at a time and each byte is handed out once,
// as node's randomUUID does: a decision mints several ids, and one call into the CSPRNG
// per id (with its own buffer) cost more than the rest of the id.
const pool = Buffer.alloc(4096);
let used = pool.length;

/** A random 128-bit identifier with a readable prefix (`int_…`, `apr_…`). */
export function randomId(prefix: string): string {
  if (used + 16 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString('hex', used, used + 16);
  used += 16;
  return `${prefix}_${hex}`;
}
