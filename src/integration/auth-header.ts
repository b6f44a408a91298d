import type { AuthSpec } from './document.js';
import { hasControlCharacter } from './header-text.js';

/**
 * A credential value fit to go into a header: one line of visible text. Checked before any
 * request is built, so a stray newline in a secret file can never split a header.
 */
export function credentialProblem(value: string, auth: AuthSpec): string | undefined {
  if (value === '') return 'the credential is empty';
  if (value.length > 8192) return 'the credential is longer than 8192 characters';
  if (hasControlCharacter(value)) return 'the credential contains control characters';
  if (auth.type === 'basic' && !value.includes(':')) return 'a basic credential is user:password';
  return undefined;
}

/** The header that carries the credential, as the surface says: bearer, a named header, or basic. */
export function authHeader(auth: AuthSpec, credential: string): [name: string, value: string] {
  switch (auth.type) {
    case 'bearer':
      return ['authorization', `Bearer ${credential}`];
    case 'header':
      return [auth.name, credential];
    case 'basic':
      return ['authorization', `Basic ${Buffer.from(credential, 'utf8').toString('base64')}`];
  }
}
