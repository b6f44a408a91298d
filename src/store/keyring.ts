import { readFileSync, rmSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { SvcError } from '../core/errors.js';
import { newSigningKey, parseSigningKey, rawPublicKey } from '../evidence/keys.js';
import { ed25519Signer } from '../evidence/node-crypto.js';
import { checkPrivateFileMode, writeSecretFile, type DataDir } from './data-dir.js';
import type { HeadSigner } from './evidence-ports.js';
import type { SigningKeyRecord, Store } from './ports.js';
import { kekSetOf } from './kek.js';
import type { SealedKeyRow } from './sealed-key-ports.js';
import { openToken } from './pkcs11-token.js';
import type { Ed25519Sign } from '../evidence/crypto-provider.js';

export interface LoadedKey {
  record: SigningKeyRecord;
  sign: Ed25519Sign;
}

/** Every tenant's signing keys, active and retired. */
export async function allSigningKeys(store: Pick<Store, 'tenants' | 'keys'>): Promise<SigningKeyRecord[]> {
  const keys: SigningKeyRecord[] = [];
  for (const t of await store.tenants.list()) keys.push(...(await store.keys.list(t.id)));
  return keys;
}

/** A freshly minted key, written where the data dir keeps private halves; the caller records it in the store. */
export interface MintedKey {
  keyId: string;
  publicKey: string;
  /** undo the write when the store row that names the key could not be written */
  discard(): Promise<void>;
}

/**
 * Journal signing keys: private halves live in a PKCS#11 token (`--pkcs11-*`, generated
 * there and never extractable), or in files (mode 0600) under the data dir, or, on
 * PostgreSQL with a KEK (`--kek-file`), sealed in the database (kek.ts); public halves and
 * their status in the store. The private half is made before the row that names it, so the
 * store never points at a key that does not exist. A key sealed in the database is only ever
 * opened with its KEK: there is no fallback to a file or to anything weaker.
 */
export class Keyring {
  private readonly cache = new Map<string, Ed25519Sign>();

  constructor(
    private readonly dir: DataDir,
    private readonly store: Store,
  ) {}

  /** Make a key for a tenant: in the PKCS#11 token when one is given, else sealed in the database when a KEK is, else a file. */
  static async mint(dir: DataDir, store: Store, tenantId: string): Promise<MintedKey> {
    const token = dir.tokenSettings;
    if (token) {
      const minted = openToken(token).mint(tenantId);
      return { ...minted, discard: async () => minted.discard() };
    }
    const key = newSigningKey();
    const keks = store.sealedKeys && dir.onPostgres ? kekSetOf(dir) : undefined;
    if (store.sealedKeys && keks?.any) {
      const sealedKeys = store.sealedKeys;
      const place = { kind: 'signing' as const, tenantId, keyId: key.keyId };
      const at = new Date().toISOString();
      await sealedKeys.insert({
        ...place,
        ...keks.seal(place, Buffer.from(key.privateKeyPem, 'utf8')),
        createdAt: at,
        sealedAt: at,
      });
      return { keyId: key.keyId, publicKey: key.publicKey, discard: () => sealedKeys.discard(place) };
    }
    if (store.sealedKeys && (await store.sealedKeys.kekCounts()).length > 0)
      throw new SvcError(...KEYS_ARE_SEALED);
    const file = dir.keyFile(tenantId, key.keyId);
    writeSecretFile(file, key.privateKeyPem);
    return {
      keyId: key.keyId,
      publicKey: key.publicKey,
      discard: async () => rmSync(file, { force: true }),
    };
  }

  /**
   * Open every tenant's active key now: a replica whose database holds sealed keys refuses to
   * start without the KEK that opens them, and says which one, instead of starting unable to sign.
   */
  async checkSealed(): Promise<void> {
    if (!this.store.sealedKeys) return;
    if ((await this.store.sealedKeys.kekCounts()).length === 0) return;
    for (const t of await this.store.tenants.list()) await this.active(t.id);
  }

  /** The tenant's active key, loaded from its file (cached by key id). */
  async active(tenantId: string): Promise<LoadedKey> {
    const record = await this.store.keys.active(tenantId);
    if (!record) throw new SvcError('unavailable', `tenant ${tenantId} has no active signing key`);
    return { record, sign: await this.load(record) };
  }

  /** Signs tree heads with the tenant's active key; earlier heads keep the id of the key that signed them. */
  async signer(tenantId: string): Promise<HeadSigner> {
    const { record, sign } = await this.active(tenantId);
    return { keyId: record.keyId, sign };
  }

  /**
   * The key file (or sealed row) must hold the private half of the public key the store records: a file copied
   * from another data dir (a restore, a mix-up of tenants) would otherwise sign heads no auditor
   * holding the recorded key can verify, and the journal would look forged from then on.
   */
  private async load(record: SigningKeyRecord): Promise<Ed25519Sign> {
    const { tenantId, keyId } = record;
    const cached = this.cache.get(keyId);
    if (cached) return cached;
    // A key made in the token is found there (its public half checked against the record);
    // keys made before the token was configured are still opened from where they live.
    const settings = this.dir.tokenSettings;
    const inToken = settings && openToken(settings).signer(keyId, record.publicKey);
    if (inToken) {
      this.cache.set(keyId, inToken);
      return inToken;
    }
    const sealed = await this.store.sealedKeys?.get({ kind: 'signing', tenantId, keyId });
    const key = sealed ? this.openSealed(sealed) : this.readFile(record);
    const where = sealed
      ? `the sealed key in the database`
      : `the key file ${this.dir.keyFile(tenantId, keyId)}`;
    if (Buffer.from(rawPublicKey(key)).toString('base64') !== record.publicKey) {
      throw new SvcError(
        'unavailable',
        `${where} does not hold signing key ${keyId} of tenant ${tenantId}: its public half differs from the one the store records`,
        {
          remedy: sealed
            ? 'restore the sealed_keys row from a backup of this database; nothing is signed with a key that does not match'
            : `copy ${keyId}.pem from the data dir this database came from (a backup carries no keys); nothing is signed with a key that does not match`,
        },
      );
    }
    const sign = ed25519Signer(key);
    this.cache.set(keyId, sign);
    return sign;
  }

  private openSealed(row: SealedKeyRow): KeyObject {
    const pem = kekSetOf(this.dir).open(row, row).toString('utf8');
    try {
      return parseSigningKey(pem);
    } catch (err) {
      throw new SvcError(
        'unavailable',
        `signing key ${row.keyId} of tenant ${row.tenantId} opened but is not an Ed25519 key`,
        { cause: err },
      );
    }
  }

  private readFile(record: SigningKeyRecord): KeyObject {
    const { tenantId, keyId } = record;
    const file = this.dir.keyFile(tenantId, keyId);
    try {
      checkPrivateFileMode(file);
      return parseSigningKey(readFileSync(file, 'utf8'));
    } catch (err) {
      if (err instanceof SvcError) throw err;
      throw new SvcError(
        'unavailable',
        `signing key ${keyId} of tenant ${tenantId} cannot be loaded from ${file}`,
        { cause: err, remedy: this.dir.onPostgres ? `${SEALED_REMEDY}; ${TOKEN_REMEDY}` : TOKEN_REMEDY },
      );
    }
  }
}

const TOKEN_REMEDY =
  'a key made in a PKCS#11 token is used only with --pkcs11-module, --pkcs11-token-label and --pkcs11-pin-file naming that token';

const SEALED_REMEDY =
  'copy the key file from the data dir that made it, or keep keys in the database: `svc store kek import --kek-file FILE` seals them there, and every replica then runs with --kek-file';

/**
 * A deployment whose keys are sealed in the database never gets a key file by mistake: only
 * the host that made it could sign with it, and every other replica would stop signing.
 */
export const KEYS_ARE_SEALED = [
  'usage',
  'this deployment keeps its keys sealed in the database; without --kek-file a new key would be a file on this host only',
  { field: 'kek-file', remedy: 'pass --kek-file FILE (or set SVC_KEK_FILE) with the KEK the replicas hold' },
] as const;
