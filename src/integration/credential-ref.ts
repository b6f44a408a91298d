import { isAbsolute } from 'node:path';
import { invalidField } from '../core/errors.js';
import { SLUG } from '../core/ids.js';

/**
 * Where a surface's credential comes from. A reference names the credential; it is never
 * the credential, so references may be journaled while values never are.
 */
export type CredentialRef =
  { kind: 'env'; name: string } | { kind: 'file'; path: string } | { kind: 'secret'; name: string };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export function parseCredentialRef(field: string, text: string): CredentialRef {
  const colon = text.indexOf(':');
  const kind = colon < 0 ? '' : text.slice(0, colon);
  const rest = colon < 0 ? '' : text.slice(colon + 1);
  if (kind === 'env' && ENV_NAME.test(rest)) return { kind, name: rest };
  // An absolute path, so what the daemon reads never depends on the directory it started in.
  if (kind === 'file' && isAbsolute(rest) && !rest.includes('\0')) return { kind, path: rest };
  if (kind === 'secret' && SLUG.test(rest)) return { kind, name: rest };
  throw invalidField(
    field,
    'a credential reference: env:NAME (an environment variable), file:/absolute/path, or secret:name (`svc secret set`)',
  );
}

export function formatCredentialRef(ref: CredentialRef): string {
  return ref.kind === 'file' ? `file:${ref.path}` : `${ref.kind}:${ref.name}`;
}
