import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SvcError } from '../core/errors.js';
import { checkPrivateFileMode, writeSecretFile, type DataDir, type KekChoice } from './data-dir.js';
import type { SealedKeyBytes, SealedKeyPlace } from './sealed-key-ports.js';

/**
 * A key-encryption key (KEK): 32 random bytes the operator keeps on each replica's host, in a
 * file of mode 0600, never in the database. It seals the keys that live in the database
 * (tenant signing keys, the secret-sealing key) with AES-256-GCM.
 */
export interface Kek {
  /** `kek-` + 16 hex digits of a labelled SHA-256 of the key: names it, reveals nothing */
  readonly id: string;
  /** the file it came from and the flag that named it, for messages */
  readonly source: string;
  readonly key: Buffer;
}

const KEK_BYTES = 32;

/** Labelled so a KEK's id never equals the id another use of the same bytes would print. */
export function kekIdOf(key: Buffer): string {
  return `kek-${createHash('sha256').update('svc-kek-id/v1\n').update(key).digest('hex').slice(0, 16)}`;
}

/** Read a KEK file: mode 0600 (refused otherwise), base64 of exactly 32 bytes. */
export function readKekFile(flag: string, path: string): Kek {
  try {
    checkPrivateFileMode(path);
  } catch (err) {
    if (err instanceof SvcError) {
      throw new SvcError('unavailable', `--${flag}: ${err.reason}`, {
        field: flag,
        ...(err.remedy !== undefined ? { remedy: err.remedy } : {}),
      });
    }
    throw new SvcError('usage', `--${flag}: ${path} cannot be read`, {
      field: flag,
      remedy: 'make one with `svc store kek create --out FILE`',
      cause: err,
    });
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new SvcError('usage', `--${flag}: ${path} cannot be read`, { field: flag, cause: err });
  }
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
  if (key.length !== KEK_BYTES) {
    throw new SvcError(
      'usage',
      `--${flag}: ${path} does not hold a key-encryption key (base64 of 32 bytes)`,
      {
        field: flag,
        remedy: 'make one with `svc store kek create --out FILE`',
      },
    );
  }
  return { id: kekIdOf(key), source: `${path} (--${flag})`, key };
}

/** A new KEK file (mode 0600, never over an existing file); answers its id. */
export function createKekFile(path: string): string {
  const key = randomBytes(KEK_BYTES);
  writeSecretFile(path, `${key.toString('base64')}\n`);
  return kekIdOf(key);
}

const describe = (p: SealedKeyPlace): string =>
  p.kind === 'signing'
    ? `signing key ${p.keyId} of tenant ${p.tenantId}`
    : `the secret-sealing key ${p.keyId}`;

/**
 * The place and the KEK id are the additional data, so a sealed key copied to another row
 * (another tenant, another key id) or relabelled with another KEK id does not open.
 */
const aad = (p: SealedKeyPlace, kekId: string): Buffer =>
  Buffer.from(`svc-sealed-key/v1\n${p.kind}\n${p.tenantId}\n${p.keyId}\n${kekId}`, 'utf8');

/**
 * The KEKs one process holds: the current one (seals, opens) and, during a rotation, the
 * previous one (opens only). A row names the KEK that sealed it, so the one to use is chosen
 * by id and a missing or wrong KEK is named, never guessed.
 */
export class KekSet {
  private constructor(
    private readonly current: Kek | undefined,
    private readonly previous: Kek | undefined,
  ) {}

  static read(choice: KekChoice): KekSet {
    const current = choice.kekFile === undefined ? undefined : readKekFile('kek-file', choice.kekFile);
    const previous =
      choice.previousKekFile === undefined
        ? undefined
        : readKekFile('previous-kek-file', choice.previousKekFile);
    if (previous && !current) {
      throw new SvcError('usage', '--previous-kek-file needs --kek-file: the KEK that seals from now on', {
        field: 'kek-file',
      });
    }
    return new KekSet(current, previous?.id === current?.id ? undefined : previous);
  }

  static none(): KekSet {
    return new KekSet(undefined, undefined);
  }

  get any(): boolean {
    return this.current !== undefined;
  }

  /** The id new rows are sealed under, if this process holds a KEK. */
  get currentId(): string | undefined {
    return this.current?.id;
  }

  get ids(): string[] {
    return [this.current?.id, this.previous?.id].filter((id): id is string => id !== undefined);
  }

  /** Seal under the current KEK; without one, say which flag is missing. */
  seal(place: SealedKeyPlace, plaintext: Buffer): SealedKeyBytes {
    const kek = this.current;
    if (!kek) {
      throw new SvcError('usage', `sealing ${describe(place)} needs a key-encryption key`, {
        field: 'kek-file',
        remedy: 'pass --kek-file FILE (or set SVC_KEK_FILE)',
      });
    }
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', kek.key, nonce);
    cipher.setAAD(aad(place, kek.id));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { kekId: kek.id, sealed: Buffer.concat([nonce, body, cipher.getAuthTag()]) };
  }

  /** Open a sealed row with the KEK it names; a missing KEK, a wrong one, or altered bytes are refused by name. */
  open(place: SealedKeyPlace, row: SealedKeyBytes): Buffer {
    const kek = [this.current, this.previous].find((k) => k?.id === row.kekId);
    if (!kek) {
      const held = this.ids;
      throw new SvcError(
        'unavailable',
        held.length === 0
          ? `${describe(place)} is sealed in the database under key-encryption key ${row.kekId}, and this process was given no key-encryption key`
          : `${describe(place)} is sealed under key-encryption key ${row.kekId}; this process holds ${held.join(' and ')}`,
        {
          field: 'kek-file',
          remedy:
            held.length === 0
              ? `pass --kek-file FILE (or set SVC_KEK_FILE) with the KEK whose id is ${row.kekId}; nothing signs or opens secrets without it`
              : `pass the KEK whose id is ${row.kekId} as --kek-file (or as --previous-kek-file while a rotation is under way)`,
        },
      );
    }
    const bytes = Buffer.from(row.sealed);
    try {
      if (bytes.length < 12 + 16) throw new Error('short');
      const decipher = createDecipheriv('aes-256-gcm', kek.key, bytes.subarray(0, 12));
      decipher.setAAD(aad(place, kek.id));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]);
    } catch {
      throw new SvcError(
        'unavailable',
        `${describe(place)} does not open under key-encryption key ${kek.id}: its sealed bytes were altered or moved from another row`,
        {
          remedy:
            'restore the row from a backup of the database; nothing is signed with a key that does not open',
        },
      );
    }
  }
}

const loaded = new WeakMap<DataDir, KekSet>();

/** The KEKs a data dir was given, read once on first use (a bad file fails then, by flag). */
export function kekSetOf(dir: DataDir): KekSet {
  let set = loaded.get(dir);
  if (!set) {
    set = KekSet.read(dir.kek);
    loaded.set(dir, set);
  }
  return set;
}
