import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../core/errors.js';
import { checkPrivateFileMode, writeSecretFile } from '../store/data-dir.js';

export interface SealedSecret {
  /** which key sealed it: the first 16 hex digits of SHA-256 of the key */
  keyId: string;
  /** nonce (12 bytes) | ciphertext | GCM tag (16 bytes) */
  sealed: Uint8Array;
}

/** The key file's place: in the data dir, beside the database and never inside it. */
export const secretKeyFile = (dataDir: string): string => join(dataDir, 'secrets.key');

/**
 * Secrets at rest: AES-256-GCM under a key kept in its own file (mode 0600). The database
 * holds only sealed bytes, so a copy of the database alone reveals no credential. Each
 * secret is bound to its tenant and name as additional data: a sealed value moved to
 * another row does not open.
 */
export class SecretBox {
  readonly keyId: string;

  private constructor(private readonly key: Buffer) {
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  /** A box over key bytes held elsewhere (the database, sealed under a KEK: secret-key-source.ts). */
  static fromKey(key: Buffer): SecretBox {
    if (key.length !== 32) throw new SvcError('unavailable', 'the secret-sealing key is not a 256-bit key');
    return new SecretBox(key);
  }

  /** The key's bytes, to be sealed under a KEK; never printed or logged. */
  exportKey(): Buffer {
    return Buffer.from(this.key);
  }

  /** The data dir's key; `create` makes one (0600) when there is none yet. */
  static open(dataDir: string, opts: { create: boolean }): SecretBox {
    const file = secretKeyFile(dataDir);
    if (!existsSync(file)) {
      if (!opts.create) {
        throw new SvcError('unavailable', `no secret key at ${file}`, {
          remedy:
            'store a secret with `svc secret set` (it makes the key), or restore the key file from backup',
        });
      }
      try {
        writeSecretFile(file, `${randomBytes(32).toString('base64')}\n`);
      } catch (err) {
        // Another process made it first: use theirs.
        if (!(err instanceof SvcError && err.kind === 'already_exists')) throw err;
      }
    }
    checkPrivateFileMode(file);
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new SvcError('unavailable', `${file} does not hold a 256-bit key`);
    return new SecretBox(key);
  }

  seal(tenantId: string, name: string, value: string): SealedSecret {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(aad(tenantId, name));
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return { keyId: this.keyId, sealed: Buffer.concat([nonce, body, cipher.getAuthTag()]) };
  }

  open(tenantId: string, name: string, s: SealedSecret): string {
    if (s.keyId !== this.keyId) {
      throw new SvcError('unavailable', `secret ${name} was sealed with another key (${s.keyId})`, {
        remedy: 'restore the secrets.key that sealed it, or set the secret again',
      });
    }
    const bytes = Buffer.from(s.sealed);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
      decipher.setAAD(aad(tenantId, name));
      decipher.setAuthTag(bytes.subarray(bytes.length - 16));
      return Buffer.concat([
        decipher.update(bytes.subarray(12, bytes.length - 16)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SvcError('unavailable', `secret ${name} does not open: it was altered or moved`, {
        remedy: 'set the secret again with `svc secret set`',
      });
    }
  }
}

const aad = (tenantId: string, name: string) => Buffer.from(`svc-secret/v1\n${tenantId}\n${name}`, 'utf8');
