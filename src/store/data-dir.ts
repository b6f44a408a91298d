import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SvcError } from '../core/errors.js';
import { openStore, resolveStoreSpec, type OpenStoreOptions } from './open.js';
import type { Store } from './ports.js';
import { isPostgresUrl } from './postgres/connection-url.js';

/** Which KEK files a process was given, by flag or environment variable (store/kek.ts). */
export interface KekChoice {
  /** `--kek-file` / `$SVC_KEK_FILE`: seals new rows and opens rows sealed under it */
  kekFile?: string | undefined;
  /** `--previous-kek-file` / `$SVC_PREVIOUS_KEK_FILE`: opens rows not yet re-sealed, during a rotation */
  previousKekFile?: string | undefined;
}

/** Which PKCS#11 token holds the signing keys: all three or none (`--pkcs11-*`, `$SVC_PKCS11_*`). */
export interface Pkcs11Choice {
  /** the vendor's PKCS#11 library, such as /usr/lib/softhsm/libsofthsm2.so */
  module?: string | undefined;
  /** the token's label */
  label?: string | undefined;
  /** a file of mode 0600 holding the user PIN */
  pinFile?: string | undefined;
}

/** The three settings, checked: given together or not at all. */
export function pkcs11Settings(c: Pkcs11Choice): Required<Pkcs11Choice> | undefined {
  const given = [c.module, c.label, c.pinFile].filter((v) => v !== undefined && v !== '');
  if (given.length === 0) return undefined;
  if (given.length < 3) {
    const missing = (
      [
        ['pkcs11-module', c.module],
        ['pkcs11-token-label', c.label],
        ['pkcs11-pin-file', c.pinFile],
      ] as const
    ).find(([, v]) => v === undefined || v === '')![0];
    throw new SvcError(
      'usage',
      `--${missing}: a PKCS#11 token needs its module, its label and its PIN file`,
      {
        field: missing,
        remedy:
          'pass --pkcs11-module, --pkcs11-token-label and --pkcs11-pin-file together (or $SVC_PKCS11_MODULE, $SVC_PKCS11_TOKEN_LABEL and $SVC_PKCS11_PIN_FILE)',
      },
    );
  }
  return c as Required<Pkcs11Choice>;
}

/** `--data-dir`, else `$SVC_HOME`, else `./.svc` (DESIGN.md). */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  const chosen = flag ?? (env.SVC_HOME !== undefined && env.SVC_HOME !== '' ? env.SVC_HOME : '.svc');
  return resolve(cwd, chosen);
}

/**
 * Where everything lives inside a data dir; one place so daemon and CLI agree. The store is
 * the data dir's SQLite file unless `storeChoice` (`--store` / `$SVC_STORE`) names a
 * PostgreSQL database; the data dir then still holds the signing keys, the secret key and
 * the deployment certificate, and every replica runs with the same data dir contents.
 */
export class DataDir {
  /** A SQLite file path or a PostgreSQL URL (may carry a password: never print it). */
  readonly store: string;

  constructor(
    readonly root: string,
    storeChoice?: string,
    /** the KEK files given (store/kek.ts reads them when a key is sealed or opened) */
    readonly kek: KekChoice = {},
    /** the PKCS#11 token that holds signing keys, if any (store/pkcs11-token.ts) */
    readonly pkcs11: Pkcs11Choice = {},
  ) {
    // A half-given token is refused here, before anything is written.
    pkcs11Settings(pkcs11);
    this.store = resolveStoreSpec(storeChoice, this.database);
    if ((kek.kekFile !== undefined || kek.previousKekFile !== undefined) && !this.onPostgres) {
      // Keys sealed in the database exist so replicas need no shared disk; on SQLite the data
      // dir is the one place anyway, and keys stay files in it.
      throw new SvcError(
        'usage',
        '--kek-file: sealed keys live in a PostgreSQL store; SQLite keeps signing keys and the secret key as files (mode 0600) in the data dir',
        {
          field: 'kek-file',
          remedy: 'leave out --kek-file and SVC_KEK_FILE, or pass --store postgres://... (or set SVC_STORE)',
        },
      );
    }
  }

  /** The PKCS#11 token's settings when one holds the signing keys (store/pkcs11-token.ts opens it). */
  get tokenSettings(): Required<Pkcs11Choice> | undefined {
    return pkcs11Settings(this.pkcs11);
  }

  get onPostgres(): boolean {
    return isPostgresUrl(this.store);
  }

  /** The PostgreSQL URL when the store is there: what another `DataDir` of this deployment is given. */
  get postgresUrl(): string | undefined {
    return this.onPostgres ? this.store : undefined;
  }

  get database(): string {
    return join(this.root, 'svc.db');
  }
  get tlsDir(): string {
    return join(this.root, 'tls');
  }
  get tlsCert(): string {
    return join(this.tlsDir, 'deployment-cert.pem');
  }
  get tlsKey(): string {
    return join(this.tlsDir, 'deployment-key.pem');
  }
  keyFile(tenantId: string, keyId: string): string {
    return join(this.root, 'keys', tenantId, `${keyId}.pem`);
  }
  get tenantAssets(): string {
    return join(this.root, 'tenant-assets');
  }

  /**
   * Initialised: on SQLite, its database exists; on PostgreSQL (the database is elsewhere),
   * the data dir holds the deployment certificate that `svc init` writes first.
   */
  exists(): boolean {
    return existsSync(this.onPostgres ? this.tlsCert : this.database);
  }

  /** Create the directory owner-only: it holds private keys. */
  create(): void {
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
    chmodSync(this.root, 0o700);
  }

  /** Open the store of an initialised data dir, or say how to make one. */
  async openStore(opts: OpenStoreOptions = {}): Promise<Store> {
    if (!this.exists()) {
      throw new SvcError('not_initialized', `no svc data dir at ${this.root}`, {
        remedy: this.onPostgres
          ? 'run `svc init --store ...` once, or give every replica a copy of the data dir `svc init` made (keys, secret key, certificate)'
          : existsSync(this.tlsCert)
            ? 'this data dir has no SQLite database: if it serves a PostgreSQL store, pass --store or set SVC_STORE'
            : 'run `svc init` first, or point --data-dir / SVC_HOME at an initialised data dir',
      });
    }
    return openStore(this.store, opts);
  }
}

/**
 * Write a secret file with mode 0600, atomically (temp file, fsync, rename), and never
 * over an existing file: a key that exists is never silently replaced.
 */
export function writeSecretFile(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (existsSync(path)) throw new SvcError('already_exists', `${path} already exists`);
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** Refuse key material that others can read: a leaked journal key forges history. */
export function checkPrivateFileMode(path: string): void {
  const mode = statSync(path).mode & 0o077;
  if (mode !== 0) {
    throw new SvcError(
      'unavailable',
      `${path} is readable by group or others (mode ${(statSync(path).mode & 0o777).toString(8)})`,
      {
        remedy: `chmod 600 ${path}`,
      },
    );
  }
}
