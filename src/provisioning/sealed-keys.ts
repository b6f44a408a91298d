import { existsSync, readFileSync } from 'node:fs';
import { SvcError } from '../core/errors.js';
import { parseSigningKey, rawPublicKey } from '../evidence/keys.js';
import { SecretBox, secretKeyFile } from '../integration/secret-box.js';
import { checkPrivateFileMode, type DataDir } from '../store/data-dir.js';
import { KekSet, kekSetOf } from '../store/kek.js';
import { allSigningKeys } from '../store/keyring.js';
import type { SigningKeyRecord, Store } from '../store/ports.js';
import type { KekCount, SealedKeyRepo, SealedKeyRow } from '../store/sealed-key-ports.js';

export interface FileKeysSealed {
  rows: SealedKeyRow[];
  /** retired keys whose file is gone: they never sign again, so nothing is lost */
  missing: string[];
}

/**
 * The data dir's key files sealed under the current KEK, read and checked before anything is
 * written: each file must be mode 0600 and hold the private half of the public key the store
 * records; an active key without its file is refused (it would sign nothing).
 */
export function sealFileKeys(
  dir: DataDir,
  keks: KekSet,
  keys: SigningKeyRecord[],
  at: string,
): FileKeysSealed {
  const rows: SealedKeyRow[] = [];
  const missing: string[] = [];
  for (const k of keys) {
    const file = dir.keyFile(k.tenantId, k.keyId);
    if (!existsSync(file)) {
      if (k.status === 'active') {
        throw new SvcError(
          'not_found',
          `the active signing key ${k.keyId} of tenant ${k.tenantId} has no file at ${file}`,
          {
            remedy: 'point --data-dir at the data dir that holds the key files',
          },
        );
      }
      missing.push(k.keyId);
      continue;
    }
    checkPrivateFileMode(file);
    const pem = readFileSync(file, 'utf8');
    if (Buffer.from(rawPublicKey(parseSigningKey(pem))).toString('base64') !== k.publicKey) {
      throw new SvcError('conflict', `${file} does not hold signing key ${k.keyId}: its public half differs`);
    }
    const place = { kind: 'signing' as const, tenantId: k.tenantId, keyId: k.keyId };
    rows.push({
      ...place,
      ...keks.seal(place, Buffer.from(pem, 'utf8')),
      createdAt: k.createdAt,
      sealedAt: at,
    });
  }
  if (existsSync(secretKeyFile(dir.root))) {
    const box = SecretBox.open(dir.root, { create: false });
    const place = { kind: 'secrets' as const, tenantId: '', keyId: box.keyId };
    rows.push({ ...place, ...keks.seal(place, box.exportKey()), createdAt: at, sealedAt: at });
  }
  return { rows, missing };
}

export interface ImportResult {
  kek_id: string;
  sealed: { kind: 'signing' | 'secrets'; tenant_id: string | null; key_id: string }[];
  already_sealed: number;
  missing_retired: string[];
}

function sealedStore(dir: DataDir, store: Store): SealedKeyRepo {
  if (!dir.onPostgres || !store.sealedKeys) {
    throw new SvcError(
      'usage',
      'sealed keys live in a PostgreSQL store; SQLite keeps key files in the data dir',
      {
        field: 'store',
        remedy: 'pass --store postgres://... (or set SVC_STORE)',
      },
    );
  }
  return store.sealedKeys;
}

/**
 * `svc store kek import`: a PostgreSQL deployment's key files sealed into the database, so
 * replicas need only the KEK. Keys already sealed are left as they are; running it again
 * seals what is left. The files stay: remove them from each replica once it runs with --kek-file.
 */
export async function importFileKeys(dir: DataDir, store: Store, now: Date): Promise<ImportResult> {
  const repo = sealedStore(dir, store);
  const keks = kekSetOf(dir);
  const { rows, missing } = sealFileKeys(dir, keks, await allSigningKeys(store), now.toISOString());
  const out: ImportResult = {
    kek_id: keks.currentId as string,
    sealed: [],
    already_sealed: 0,
    missing_retired: missing,
  };
  for (const row of rows) {
    if (row.kind === 'secrets') {
      const winner = await repo.secretKey(row);
      if (winner?.keyId !== row.keyId) {
        throw new SvcError(
          'conflict',
          `the database already holds another secret-sealing key (${winner?.keyId ?? 'none'}) than ${secretKeyFile(dir.root)} (${row.keyId})`,
        );
      }
      if (
        winner.kekId === row.kekId &&
        Buffer.compare(Buffer.from(winner.sealed), Buffer.from(row.sealed)) === 0
      ) {
        out.sealed.push({ kind: 'secrets', tenant_id: null, key_id: row.keyId });
      } else out.already_sealed += 1;
      continue;
    }
    if (await repo.get(row)) {
      out.already_sealed += 1;
      continue;
    }
    await repo.insert(row);
    out.sealed.push({ kind: 'signing', tenant_id: row.tenantId, key_id: row.keyId });
  }
  return out;
}

export interface KekRotation {
  kek_id: string;
  resealed: number;
  batches: number;
  /** rows per KEK after the rotation: only kek_id's once it is complete */
  keks: { kek_id: string; rows: number }[];
}

/**
 * `svc store kek rotate`: every row not sealed under --kek-file is opened (with the KEK it
 * names: --previous-kek-file, or --kek-file itself) and sealed again under --kek-file, a
 * transaction per batch, so replicas keep reading through it. A row under a KEK this
 * process does not hold stops the rotation with that KEK's id, its batch rolled back.
 */
export async function rotateKek(
  dir: DataDir,
  store: Store,
  o: { batch: number; now: () => Date },
): Promise<KekRotation> {
  const repo = sealedStore(dir, store);
  const keks = kekSetOf(dir);
  const target = keks.currentId;
  if (target === undefined) {
    throw new SvcError('usage', '--kek-file: the KEK to re-seal under is required', { field: 'kek-file' });
  }
  let resealed = 0;
  let batches = 0;
  for (;;) {
    const n = await repo.resealBatch(
      target,
      o.batch,
      (row) => keks.seal(row, keks.open(row, row)),
      o.now().toISOString(),
    );
    if (n === 0) break;
    resealed += n;
    batches += 1;
  }
  const counts: KekCount[] = await repo.kekCounts();
  return { kek_id: target, resealed, batches, keks: counts.map((c) => ({ kek_id: c.kekId, rows: c.rows })) };
}

/** `svc store migrate --seal-keys`: seals the source data dir's key files under the KEK in `kekFile`. */
export function fileKeySealer(kekFile: string): (dir: DataDir, keys: SigningKeyRecord[]) => SealedKeyRow[] {
  // Read now: a bad KEK file is refused before the copy starts.
  const keks = KekSet.read({ kekFile });
  return (dir, keys) => sealFileKeys(dir, keks, keys, new Date().toISOString()).rows;
}
