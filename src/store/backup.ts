import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  createReadStream,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { SvcError } from '../core/errors.js';
import type { DataDir } from './data-dir.js';
import { checkJournals, type TenantJournalCheck } from './journal-check.js';
import { openStore } from './open.js';

export const BACKUP_FORMAT = 'svc.backup/v1';

const headSchema = z
  .object({ tree_size: z.number().int().nonnegative(), root_hash: z.string(), key_id: z.string() })
  .strict();

const manifestSchema = z
  .object({
    format: z.literal(BACKUP_FORMAT),
    svc_version: z.string(),
    created_at: z.string(),
    file: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits'),
    size: z.number().int().nonnegative(),
    tenants: z.array(
      z
        .object({
          tenant_id: z.string(),
          entries: z.number().int().nonnegative(),
          head: headSchema.nullable(),
        })
        .strict(),
    ),
    not_included: z.array(z.string()),
  })
  .strict();

export type BackupManifest = z.infer<typeof manifestSchema>;

/**
 * What a data dir holds besides its database, which a backup of the database leaves out on
 * purpose: the journal signing keys, the key that seals stored secrets, the deployment's TLS
 * certificate and key, and tenant assets. Kept apart so a database copy sent offsite never
 * travels with the keys that sign its journal and open its sealed secrets.
 */
const BESIDE_DATABASE = ['keys', 'secrets.key', 'tls', 'tenant-assets'];

export const manifestPath = (file: string): string => `${file}.manifest.json`;

/**
 * A consistent copy of the data dir's SQLite database while the daemon may be writing
 * (SQLite's online backup API), checked before it is kept: `PRAGMA integrity_check`, then
 * every tenant's journal against its last signed head. Written to a temp name beside the
 * target and renamed, with its manifest; on any failure neither is left behind.
 */
export async function backupDataDir(
  dir: DataDir,
  to: string,
  opts: { force: boolean; version: string; now: () => Date },
): Promise<{ file: string; manifest: BackupManifest; checks: TenantJournalCheck[] }> {
  if (!existsSync(dir.database)) {
    throw new SvcError('not_initialized', `no SQLite database in the data dir ${dir.root}`, {
      remedy:
        'point --data-dir at an initialised data dir; a PostgreSQL store is backed up with pg_dump (see docs/operations.md "Backup and restore")',
    });
  }
  const file = resolve(to);
  const manifestFile = manifestPath(file);
  if (file === resolve(dir.database) || dirname(file) === resolve(dir.root)) {
    throw new SvcError('usage', `--to: ${file} is inside the data dir; expected a path outside it`, {
      field: 'to',
    });
  }
  for (const path of [file, manifestFile]) {
    if (existsSync(path) && !opts.force) {
      throw new SvcError('already_exists', `--to: ${path} already exists`, {
        field: 'to',
        remedy: 'choose another file, or pass --force to replace it',
      });
    }
  }
  if (!existsSync(dirname(file))) {
    throw new SvcError('usage', `--to: the directory ${dirname(file)} does not exist`, { field: 'to' });
  }
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const tmpManifest = `${tmp}.manifest`;
  try {
    const source = new Database(dir.database, { readonly: true, fileMustExist: true });
    try {
      await source.backup(tmp);
    } finally {
      source.close();
    }
    const checks = await checkCopy(tmp);
    const { sha256, size } = await digest(tmp);
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      svc_version: opts.version,
      created_at: opts.now().toISOString(),
      file: basename(file),
      sha256,
      size,
      tenants: checks.map((c) => ({ tenant_id: c.tenant_id, entries: c.entries, head: c.head })),
      not_included: besideDatabase(dir.root),
    };
    writeFileSync(tmpManifest, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    fsyncFile(tmpManifest);
    renameSync(tmp, file);
    renameSync(tmpManifest, manifestFile);
    return { file, manifest, checks };
  } catch (err) {
    for (const path of [tmp, `${tmp}-wal`, `${tmp}-shm`, tmpManifest]) rmSync(path, { force: true });
    throw err;
  }
}

/**
 * Put a backup into a new data dir: refuses a target that holds anything, checks the file
 * against its manifest's sha256 and size (the copy's bytes, after copying), then checks the
 * restored database as a backup is checked and that each tenant's last signed head is the one
 * the manifest names. On any failure the restored database is removed again.
 */
export async function restoreBackup(
  file: string,
  root: string,
): Promise<{ root: string; manifest: BackupManifest; checks: TenantJournalCheck[] }> {
  const source = resolve(file);
  if (!existsSync(source)) {
    throw new SvcError('not_found', `FILE: no backup at ${source}`, { field: 'file' });
  }
  const manifest = readManifest(manifestPath(source));
  const target = resolve(root);
  if (existsSync(target) && (!statSync(target).isDirectory() || readdirSync(target).length > 0)) {
    throw new SvcError('already_exists', `--data-dir: ${target} is not empty`, {
      field: 'data-dir',
      remedy: 'restore into a new or empty directory; a restore never mixes into an existing data dir',
    });
  }
  const created = !existsSync(target);
  mkdirSync(target, { recursive: true, mode: 0o700 });
  const database = join(target, 'svc.db');
  const tmp = `${database}.${process.pid}.tmp`;
  try {
    copyFileSync(source, tmp);
    fsyncFile(tmp);
    const { sha256, size } = await digest(tmp);
    if (sha256 !== manifest.sha256 || size !== manifest.size) {
      throw new SvcError(
        'unavailable',
        `FILE: ${source} is not the file its manifest names (sha256 ${sha256}, ${size} bytes; the manifest says ${manifest.sha256}, ${manifest.size} bytes)`,
        {
          field: 'file',
          code: 'backup_mismatch',
          remedy: 'restore from an intact copy of the backup and its manifest',
        },
      );
    }
    renameSync(tmp, database);
    const checks = await checkCopy(database);
    for (const expected of manifest.tenants) {
      const got = checks.find((c) => c.tenant_id === expected.tenant_id);
      if (got === undefined || JSON.stringify(got.head) !== JSON.stringify(expected.head)) {
        throw new SvcError(
          'unavailable',
          `tenant ${expected.tenant_id}: the restored journal's last signed head is not the one the manifest names`,
          { code: 'backup_mismatch', field: 'file' },
        );
      }
    }
    return { root: target, manifest, checks };
  } catch (err) {
    for (const path of [tmp, database, `${database}-wal`, `${database}-shm`]) rmSync(path, { force: true });
    if (created) rmSync(target, { recursive: true, force: true });
    throw err;
  }
}

/** `PRAGMA integrity_check`, then every tenant's journal against its last signed head. */
async function checkCopy(file: string): Promise<TenantJournalCheck[]> {
  const db = new Database(file, { fileMustExist: true });
  try {
    const problems = db.pragma('integrity_check', { simple: false }) as { integrity_check: string }[];
    const text = problems.map((p) => p.integrity_check);
    if (text.length !== 1 || text[0] !== 'ok') {
      throw new SvcError(
        'unavailable',
        `the copy fails SQLite's integrity check: ${text.slice(0, 3).join('; ')}`,
        {
          code: 'journal_corrupt',
        },
      );
    }
  } finally {
    db.close();
  }
  const store = await openStore(file);
  try {
    return await checkJournals(store);
  } finally {
    await store.close();
  }
}

function readManifest(path: string): BackupManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new SvcError('invalid_request', `manifest: cannot read ${path}: ${(err as Error).message}`, {
      field: 'manifest',
      remedy: 'a backup is restored with the FILE.manifest.json `svc store backup` wrote beside it',
    });
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SvcError(
      'invalid_request',
      `manifest: ${path}: field ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      { field: 'manifest' },
    );
  }
  return parsed.data;
}

async function digest(file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return { sha256: hash.digest('hex'), size: statSync(file).size };
}

function fsyncFile(path: string): void {
  const fd = openSync(path, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The files of BESIDE_DATABASE the data dir holds, relative to it, sorted. */
function besideDatabase(root: string): string[] {
  const found: string[] = [];
  const walk = (path: string): void => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path)) walk(join(path, name));
    } else {
      found.push(relative(root, path));
    }
  };
  for (const name of BESIDE_DATABASE) walk(join(root, name));
  return found.sort();
}
