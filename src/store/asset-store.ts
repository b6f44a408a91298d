import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { join, sep } from 'node:path';
import { SvcError } from '../core/errors.js';
import { readBoundedFile } from '../io/bounded-file.js';
import { MANAGED_ASSET_NAME } from '../core/theme/asset-url.js';
import { CONTENT_TYPES, EXTENSIONS, sniffMedia, type MediaKind } from '../core/theme/media.js';
import type { DataDir } from './data-dir.js';

export type StoredKind = keyof typeof CONTENT_TYPES;

/** The largest file provisioning places (a font, provisioning/theme.ts): nothing larger is served. */
const MAX_MANAGED_FILE = 4 * 1024 * 1024;

export interface ManagedAsset {
  name: string;
  kind: StoredKind;
  contentType: string;
  bytes: number;
}

/**
 * The managed tenant-asset store: `<data dir>/tenant-assets/<tenant>/<sha256>.<ext>`,
 * directories 0700, files 0600. Files are named by their content, so a name never changes
 * meaning and an older theme revision keeps the files it named.
 */
export class AssetStore {
  constructor(private readonly dir: DataDir) {}

  private tenantDir(tenantId: string): string {
    return join(this.dir.tenantAssets, tenantId);
  }

  /** Place bytes whose kind was already sniffed; idempotent for the same content. */
  put(tenantId: string, bytes: Uint8Array, kind: StoredKind): ManagedAsset {
    const name = `${createHash('sha256').update(bytes).digest('hex')}.${EXTENSIONS[kind]}`;
    const dir = this.tenantDir(tenantId);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir.tenantAssets, 0o700);
    chmodSync(dir, 0o700);
    const path = join(dir, name);
    if (!existsSync(path)) {
      const tmp = `${path}.${process.pid}.tmp`;
      const fd = openSync(tmp, 'w', 0o600);
      try {
        writeSync(fd, bytes);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, path);
    }
    return { name, kind, contentType: CONTENT_TYPES[kind], bytes: bytes.length };
  }

  /**
   * A managed file of the tenant, or undefined. Only names of the managed form are looked
   * up at all, so no request path reaches the file system unchecked; the kind is sniffed
   * again from the bytes rather than trusted from the extension.
   */
  read(tenantId: string, name: string): { bytes: Buffer; contentType: string } | undefined {
    if (!MANAGED_ASSET_NAME.test(name)) return undefined;
    const path = join(this.tenantDir(tenantId), name);
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return undefined;
    }
    if (!stat.isFile()) return undefined;
    let bytes: Buffer;
    try {
      bytes = readBoundedFile('name', path, MAX_MANAGED_FILE);
    } catch {
      return undefined;
    }
    const kind: MediaKind = sniffMedia(bytes);
    if (kind === 'svg' || kind === 'unknown') return undefined;
    return { bytes, contentType: CONTENT_TYPES[kind] };
  }
}

/**
 * Read an operator's asset file named in a theme, from inside `root` only: the resolved
 * path (symlinks followed) must stay under `root`, and it must be a regular file.
 */
export function readProvidedAsset(field: string, root: string, name: string, maxBytes: number): Uint8Array {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    throw new SvcError('not_found', `--assets: ${root} does not exist`, { field: 'assets' });
  }
  let real: string;
  try {
    real = realpathSync(join(realRoot, name));
  } catch {
    throw new SvcError('not_found', `${field}: ${name} is not in ${root}`, {
      field,
      remedy: `put ${name} in ${root}, or correct the name in the theme file`,
    });
  }
  if (!real.startsWith(realRoot + sep)) {
    throw new SvcError('invalid_request', `${field}: ${name} resolves outside ${root}`, {
      field,
      code: 'asset_url_refused',
    });
  }
  return readBoundedFile(field, real, maxBytes);
}
