import { SvcError } from '../core/errors.js';
import type { PgDb, PgTx } from './postgres/database.js';
import { migrate } from './postgres/migrate.js';
import type { Db } from './sqlite/database.js';
import { ident, PG_OWN_TABLES, tablePlan, type TablePlan } from './migrate-plan.js';
import { proveExports } from './migrate-export-proof.js';
import { proveCopy, type TenantProof } from './migrate-proof.js';
import { PgJournalExports } from './postgres/journal-export.js';
import { SqliteJournalExports } from './sqlite/journal-export.js';
import { insertSealedKey } from './postgres/sealed-keys.js';
import type { SealedKeyRow } from './sealed-key-ports.js';

export interface MigrationReport {
  /** rows copied per table, in the order they were copied */
  tables: { table: string; rows: number }[];
  /** per tenant: journal entries copied, and the export lines found identical from both stores */
  tenants: (TenantProof & { exportLines: number })[];
}

export interface MigrationProgress {
  onTable?(table: string, rows: number): void;
}

export interface MigrationExtras {
  /** key files sealed under a KEK (`--seal-keys`), stored in the same transaction as the copy */
  sealedKeys?: readonly SealedKeyRow[];
}

/** Parameters per INSERT stay well under PostgreSQL's 65 535, and a batch stays small in memory. */
const MAX_PARAMS = 30_000;
const MAX_BATCH_ROWS = 500;

/** One `svc store migrate` at a time per target: the emptiness check and the copy hold it together. */
const MIGRATE_LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('svc:store-migrate', 0))";

/**
 * Copy the SQLite database into an empty PostgreSQL database and prove the copy row by row
 * in the same PostgreSQL transaction: a refusal, a failure or a difference rolls everything
 * back, so the target is either a copy or as empty as it was. After the commit each
 * tenant's export is produced from both stores and compared (migrate-export-proof.ts). The SQLite
 * side is read inside one read transaction (one state of the file, even if a daemon still
 * writes). Rows stream through in batches: memory holds one batch, whatever the size.
 */
export async function migrateToPostgres(
  sqlite: Db,
  pg: PgDb,
  progress: MigrationProgress = {},
  extras: MigrationExtras = {},
): Promise<MigrationReport> {
  await refuseForeignDatabase(pg);
  await migrate(pg);
  let copied: { tables: MigrationReport['tables']; tenants: TenantProof[] };
  sqlite.exec('BEGIN');
  try {
    copied = await pg.tx(async (tx) => {
      await tx.query(MIGRATE_LOCK);
      const plan = await tablePlan(sqlite, tx);
      await refuseNonEmpty(tx);
      const tables: MigrationReport['tables'] = [];
      // The activity counts are copied as SQLite has them (a redaction blanks a record after it
      // was counted, so counting the copied journal again would not give the same figures);
      // the trigger is off for this transaction only, so it counts nothing twice.
      await tx.query('ALTER TABLE journal DISABLE TRIGGER journal_activity_count');
      for (const table of plan) {
        const rows = await copyTable(sqlite, tx, table);
        tables.push({ table: table.name, rows });
        progress.onTable?.(table.name, rows);
      }
      await tx.query('ALTER TABLE journal ENABLE TRIGGER journal_activity_count');
      await advanceSequences(tx);
      for (const row of extras.sealedKeys ?? []) await insertSealedKey(tx, row);
      return { tables, tenants: await proveCopy(sqlite, tx, plan) };
    });
  } finally {
    sqlite.exec('ROLLBACK');
  }
  // Then what an auditor receives: each tenant's export, through the exporter's writer, from both.
  const exports = await proveExports(
    new SqliteJournalExports(sqlite.name),
    new PgJournalExports(pg),
    copied.tenants.map((t) => t.tenantId),
  );
  return {
    tables: copied.tables,
    tenants: copied.tenants.map((t, i) => ({ ...t, exportLines: exports[i]!.lines })),
  };
}

/** A database with tables but no svc schema belongs to something else: nothing is created in it. */
async function refuseForeignDatabase(pg: PgDb): Promise<void> {
  const tables = await pg.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
     WHERE table_schema = current_schema() ORDER BY table_name`,
  );
  const names = tables.map((t) => t.table_name);
  if (names.length > 0 && !names.includes('schema_migrations')) {
    throw new SvcError(
      'conflict',
      `the target database is not empty: it holds ${names.length} tables that are not svc's (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''})`,
      { field: 'to', remedy: 'create an empty database for svc (CREATE DATABASE svc) and migrate into it' },
    );
  }
}

async function refuseNonEmpty(tx: PgTx): Promise<void> {
  const tables = await tx.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const found: string[] = [];
  for (const { table_name: name } of tables) {
    if (PG_OWN_TABLES.has(name)) continue;
    const [row] = await tx.query<{ n: string }>(`SELECT count(*) AS n FROM ${ident(name)}`);
    if (Number(row?.n ?? 0) > 0) found.push(`${name} (${row!.n} rows)`);
  }
  if (found.length > 0) {
    const tenants = await tx.query<{ id: string }>('SELECT id FROM tenants ORDER BY id LIMIT 6');
    const named =
      tenants.length === 0
        ? ''
        : `tenants ${tenants
            .slice(0, 5)
            .map((t) => t.id)
            .join(', ')}${tenants.length > 5 ? ', …' : ''}; `;
    throw new SvcError(
      'conflict',
      `the target database is not empty: it holds ${named}rows in ${found.length} tables: ${found.slice(0, 5).join(', ')}${found.length > 5 ? ', …' : ''}`,
      {
        field: 'to',
        remedy: 'migrate into a new, empty database; svc store migrate never merges into existing data',
      },
    );
  }
}

/**
 * A column PostgreSQL numbers itself (`notify_staged.seq`) was copied with SQLite's numbers:
 * its sequence moves past the largest, or the next insert would reuse one.
 */
async function advanceSequences(tx: PgTx): Promise<void> {
  const serials = await tx.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'`,
  );
  for (const { table_name: t, column_name: c } of serials) {
    await tx.query(
      `SELECT setval(pg_get_serial_sequence($1, $2), COALESCE((SELECT max(${ident(c)}) FROM ${ident(t)}), 0) + 1, false)`,
      [t, c],
    );
  }
}

async function copyTable(sqlite: Db, tx: PgTx, table: TablePlan): Promise<number> {
  const width = table.columns.length;
  const batchRows = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor(MAX_PARAMS / width)));
  const select = sqlite
    .prepare(`SELECT ${table.columns.map(ident).join(', ')} FROM ${ident(table.name)}`)
    .safeIntegers(true)
    .raw(true);
  const head = `INSERT INTO ${ident(table.name)} (${table.columns.map(ident).join(', ')}) VALUES `;
  let batch: unknown[][] = [];
  let copied = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const tuples = batch.map(
      (_, r) => `(${table.columns.map((__, c) => `$${r * width + c + 1}`).join(', ')})`,
    );
    await tx.query(head + tuples.join(', '), batch.flat());
    copied += batch.length;
    batch = [];
  };
  for (const row of select.iterate() as IterableIterator<unknown[]>) {
    batch.push(row.map(toParam));
    if (batch.length === batchRows) await flush();
  }
  await flush();
  return copied;
}

/** SQLite integers arrive as bigints (they exceed 2^53), which the driver takes as decimal text. */
function toParam(v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}
