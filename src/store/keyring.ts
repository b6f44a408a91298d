import { readFileSync, rmSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { SvcError } from '../core/errors.js';
import { newSigningKey, parseSigningKey, rawPublicKey } from '../evidence/keys.js';
import { ed25519Signer } from '../evidence/node-crypto.js';
import { checkPrivateFileMode, writeSecretFile, type DataDir } from './data-dir.js';
import type { HeadSigner } from './evidence-ports.js';
import type { SigningKeyRecord, Store } from './ports.js';

export interface LoadedKey {
  record: SigningKeyRecord;
  privateKey: KeyObject;
}

/**
 * Journal signing keys: private halves live in files (mode 0600) under the data dir,
 * public halves and their status in the store. A key file is written before the row that
 * names it, so the store never points at a key that does not exist.
 */
export class Keyring {
  private readonly cache = new Map<string, KeyObject>();

  constructor(
    private readonly dir: DataDir,
    private readonly store: Store,
  ) {}

  /** Make a key file for a tenant; the caller records it in the store. */
  static mint(dir: DataDir, tenantId: string): { keyId: string; publicKey: string; file: string } {
    const key = newSigningKey();
    const file = dir.keyFile(tenantId, key.keyId);
    writeSecretFile(file, key.privateKeyPem);
    return { keyId: key.keyId, publicKey: key.publicKey, file };
  }

  /** Remove a key file whose store row could not be written. */
  static discard(file: string): void {
    rmSync(file, { force: true });
  }

  /** The tenant's active key, loaded from its file (cached by key id). */
  async active(tenantId: string): Promise<LoadedKey> {
    const record = await this.store.keys.active(tenantId);
    if (!record) throw new SvcError('unavailable', `tenant ${tenantId} has no active signing key`);
    return { record, privateKey: this.load(record) };
  }

  /** Signs tree heads with the tenant's active key; earlier heads keep the id of the key that signed them. */
  async signer(tenantId: string): Promise<HeadSigner> {
    const { record, privateKey } = await this.active(tenantId);
    return { keyId: record.keyId, sign: ed25519Signer(privateKey) };
  }

  /**
   * The key file must hold the private half of the public key the store records: a file copied
   * from another data dir (a restore, a mix-up of tenants) would otherwise sign heads no auditor
   * holding the recorded key can verify, and the journal would look forged from then on.
   */
  private load(record: SigningKeyRecord): KeyObject {
    const { tenantId, keyId } = record;
    const cached = this.cache.get(keyId);
    if (cached) return cached;
    const file = this.dir.keyFile(tenantId, keyId);
    let key: KeyObject;
    try {
      checkPrivateFileMode(file);
      key = parseSigningKey(readFileSync(file, 'utf8'));
    } catch (err) {
      if (err instanceof SvcError) throw err;
      throw new SvcError(
        'unavailable',
        `signing key ${keyId} of tenant ${tenantId} cannot be loaded from ${file}`,
        {
          cause: err,
        },
      );
    }
    if (Buffer.from(rawPublicKey(key)).toString('base64') !== record.publicKey) {
      throw new SvcError(
        'unavailable',
        `the key file ${file} does not hold signing key ${keyId} of tenant ${tenantId}: its public half differs from the one the store records`,
        {
          remedy: `copy ${keyId}.pem from the data dir this database came from (a backup carries no keys); nothing is signed with a key that does not match`,
        },
      );
    }
    this.cache.set(keyId, key);
    return key;
  }
}
