import { SvcError } from '../errors.js';

export const ASSET_PREFIX = '/tenant-assets/';

/**
 * A file name the managed store holds: content-addressed (SHA-256 hex of the bytes) with
 * the extension of the sniffed type, so a name can carry neither a path nor a lie.
 */
export const MANAGED_ASSET_NAME = /^[0-9a-f]{64}\.(?:png|jpg|webp|woff2|woff|ttf|otf)$/;

/** A file name an operator may give in a theme file: one plain segment, no dot-dot. */
const PROVISIONED_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

/** Any C0 control character or DEL. */
export const hasControl = (s: string): boolean =>
  [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

const refused = (field: string, reason: string) =>
  new SvcError('invalid_request', `${field}: ${reason}`, {
    field,
    code: 'asset_url_refused',
    remedy: `point it at a file under ${ASSET_PREFIX}, e.g. ${ASSET_PREFIX}logo.png, and place the file with \`svc theme install --assets DIR\``,
  });

/**
 * The asset name a theme URL names. Only `/tenant-assets/{name}` is accepted: an external
 * or CDN address would make every operator's browser fetch from a third party, and a path
 * that can traverse (also encoded, also with backslashes) could reach outside the store.
 */
export function assetNameOf(field: string, url: unknown): string {
  if (typeof url !== 'string' || url.length === 0)
    throw refused(field, `expected a path under ${ASSET_PREFIX}`);
  if (url.length > 200) throw refused(field, 'expected at most 200 characters');
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//')) {
    throw refused(
      field,
      `external URLs are refused (${url.slice(0, 60)}); only ${ASSET_PREFIX}{name} is served`,
    );
  }
  if (/%|\\|\.\.|[?#]/.test(url) || hasControl(url)) {
    throw refused(
      field,
      'path traversal, encoded characters, backslashes, queries and fragments are refused',
    );
  }
  if (!url.startsWith(ASSET_PREFIX)) throw refused(field, `expected a path under ${ASSET_PREFIX}`);
  const name = url.slice(ASSET_PREFIX.length);
  if (!PROVISIONED_NAME.test(name) || name.length > 100) {
    throw refused(
      field,
      'expected one file name (letters, digits, dot, dash, underscore) after /tenant-assets/',
    );
  }
  return name;
}
