import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { SvcError } from '../core/errors.js';
import { parseSigningKey } from '../evidence/keys.js';

/**
 * The witness's own Ed25519 key (PKCS#8 PEM, mode 0600). `create` makes one when the file
 * is absent, and never overwrites: a witness that lost its key is a new witness.
 */
export function witnessKey(file: string, opts: { create: boolean }): { key: KeyObject; created: boolean } {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new SvcError('unavailable', `cannot read the witness key ${file}: ${(err as Error).message}`);
    }
    if (!opts.create) {
      throw new SvcError('not_found', `no witness key at ${file}`, {
        field: 'key-file',
        remedy: `run \`svc witness key --key-file ${file}\` to make one`,
      });
    }
    const { privateKey } = generateKeyPairSync('ed25519');
    // 'wx': fail rather than replace a key another process wrote meanwhile.
    const fd = openSync(file, 'wx', 0o600);
    try {
      writeSync(fd, privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return { key: privateKey, created: true };
  }
  try {
    return { key: parseSigningKey(pem), created: false };
  } catch (err) {
    throw new SvcError(
      'usage',
      `--key-file ${file}: expected an Ed25519 PKCS#8 PEM private key (${(err as Error).message})`,
      {
        field: 'key-file',
      },
    );
  }
}
