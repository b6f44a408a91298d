import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { SvcError } from '../core/errors.js';
import type { DataDir } from '../store/data-dir.js';
import { kekSetOf } from '../store/kek.js';
import { KEYS_ARE_SEALED } from '../store/keyring.js';
import type { Store } from '../store/ports.js';
import { SecretBox, secretKeyFile } from './secret-box.js';

const PLACE = { kind: 'secrets' as const, tenantId: '' };

/**
 * The box that seals and opens secrets. On PostgreSQL its key may live in the database,
 * sealed under the KEK (envelope: secrets stay sealed under their key, and only that key's
 * row is re-sealed when the KEK rotates); otherwise it is the data dir's `secrets.key`.
 * Once the database holds the key, it is only ever opened with the KEK, never from a file.
 */
export async function openSecretBox(
  dir: DataDir,
  store: Store,
  opts: { create: boolean },
): Promise<SecretBox> {
  const sealedKeys = dir.onPostgres ? store.sealedKeys : undefined;
  if (!sealedKeys) return SecretBox.open(dir.root, opts);
  const keks = kekSetOf(dir);
  const row = await sealedKeys.secretKey();
  if (row) return boxOf(keks.open({ ...PLACE, keyId: row.keyId }, row), row.keyId);
  if (!keks.any) {
    if (opts.create && (await sealedKeys.kekCounts()).length > 0) throw new SvcError(...KEYS_ARE_SEALED);
    return SecretBox.open(dir.root, opts);
  }
  if (existsSync(secretKeyFile(dir.root))) {
    // Making a second key would leave every secret sealed under the file's key unreadable.
    throw new SvcError(
      'conflict',
      `the data dir holds ${secretKeyFile(dir.root)}, and the database no secret key yet: secrets sealed under that file would not open`,
      { remedy: 'carry the file keys into the database first: `svc store kek import --kek-file FILE`' },
    );
  }
  if (!opts.create) {
    throw new SvcError('unavailable', 'the database holds no secret-sealing key yet', {
      remedy: 'store a secret with `svc secret set --kek-file FILE` (it makes the key)',
    });
  }
  const fresh = SecretBox.fromKey(randomBytes(32));
  const place = { ...PLACE, keyId: fresh.keyId };
  const at = new Date().toISOString();
  // Another process may have made one first: the winner's key is the one used by everyone.
  const winner = await sealedKeys.secretKey({
    ...place,
    ...keks.seal(place, fresh.exportKey()),
    createdAt: at,
    sealedAt: at,
  });
  if (!winner) throw new SvcError('internal', 'the secret-sealing key was not stored');
  return boxOf(keks.open({ ...PLACE, keyId: winner.keyId }, winner), winner.keyId);
}

function boxOf(key: Buffer, keyId: string): SecretBox {
  const box = SecretBox.fromKey(key);
  if (box.keyId !== keyId) {
    throw new SvcError('unavailable', `the sealed secret-sealing key does not match its id ${keyId}`);
  }
  return box;
}
