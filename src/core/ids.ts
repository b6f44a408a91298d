import { randomBytes } from 'node:crypto';
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

/** A random 128-bit identifier with a readable prefix (`int_…`, `apr_…`). */
export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('hex')}`;
}
