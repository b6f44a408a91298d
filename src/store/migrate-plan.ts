import { SvcError } from '../core/errors.js';
import type { PgTx } from './postgres/database.js';
import { PG_ONLY_TABLES } from './postgres/schema.js';
import type { Db } from './sqlite/database.js';

/** One table as `svc store migrate` copies and compares it. */
export interface TablePlan {
  name: string;
  /** in the SQLite table's column order */
  columns: string[];
  /** PostgreSQL data_type of each column (`bigint`, `bytea`, `text`, …) */
  pgTypes: string[];
  /** the order rows are compared in; every svc table has a primary key */
  primaryKey: string[];
  /** the column that names the tenant, if the table has one */
  tenantColumn: string | null;
}

/**
 * Tables the PostgreSQL schema keeps for itself: never copied, never counted as content. The
 * replicas a database has seen are its own too: a daemon started on the empty target before
 * the copy leaves its heartbeat there, not data.
 */
export const PG_OWN_TABLES = new Set(['schema_migrations', ...PG_ONLY_TABLES]);

/** A name as an SQL identifier: the names come from the two catalogs, quoted all the same. */
export const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;

interface ColumnInfo {
  name: string;
  pk: number;
}

/**
 * Every SQLite table with its PostgreSQL twin, parents before children (foreign keys), so
 * inserting in this order never refers to a row not yet copied. A SQLite table or column
 * PostgreSQL lacks would be lost on the way: that is refused before anything is written.
 */
export async function tablePlan(sqlite: Db, tx: PgTx): Promise<TablePlan[]> {
  const names = (
    sqlite
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .pluck()
      .all() as string[]
  ).filter((n) => !PG_OWN_TABLES.has(n));
  const pgColumns = new Map<string, Map<string, string>>();
  for (const r of await tx.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns
     WHERE table_schema = current_schema()`,
  )) {
    if (!pgColumns.has(r.table_name)) pgColumns.set(r.table_name, new Map());
    pgColumns.get(r.table_name)!.set(r.column_name, r.data_type);
  }
  const plans = new Map<string, TablePlan>();
  const parents = new Map<string, Set<string>>();
  for (const name of names) {
    const target = pgColumns.get(name);
    if (!target) {
      throw new SvcError(
        'internal',
        `the PostgreSQL schema has no table ${name}, which the SQLite database has`,
        {
          remedy: 'use the svc version that wrote the data dir for both, or upgrade it first',
        },
      );
    }
    const info = sqlite.prepare(`PRAGMA table_info(${ident(name)})`).all() as ColumnInfo[];
    const columns = info.map((c) => c.name);
    for (const c of columns) {
      if (!target.has(c)) {
        throw new SvcError('internal', `the PostgreSQL table ${name} has no column ${c}, which SQLite has`, {
          remedy: 'use the svc version that wrote the data dir for both, or upgrade it first',
        });
      }
    }
    for (const c of target.keys()) {
      if (!columns.includes(c)) {
        throw new SvcError(
          'internal',
          `the PostgreSQL table ${name} has a column ${c} that SQLite does not`,
          {
            remedy: 'use the svc version that wrote the data dir for both, or upgrade it first',
          },
        );
      }
    }
    const primaryKey = info
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    if (primaryKey.length === 0)
      throw new SvcError('internal', `table ${name} has no primary key to compare by`);
    const fks = sqlite.prepare(`PRAGMA foreign_key_list(${ident(name)})`).all() as { table: string }[];
    parents.set(name, new Set(fks.map((f) => f.table).filter((t) => t !== name)));
    plans.set(name, {
      name,
      columns,
      pgTypes: columns.map((c) => target.get(c)!),
      primaryKey,
      tenantColumn: name === 'tenants' ? 'id' : columns.includes('tenant_id') ? 'tenant_id' : null,
    });
  }
  return dependencyOrder(plans, parents);
}

function dependencyOrder(plans: Map<string, TablePlan>, parents: Map<string, Set<string>>): TablePlan[] {
  const ordered: TablePlan[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]): void => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      throw new SvcError('internal', `the foreign keys form a cycle: ${[...path, name].join(' -> ')}`);
    }
    state.set(name, 'visiting');
    for (const parent of parents.get(name) ?? []) if (plans.has(parent)) visit(parent, [...path, name]);
    state.set(name, 'done');
    ordered.push(plans.get(name)!);
  };
  for (const name of [...plans.keys()].sort()) visit(name, []);
  return ordered;
}
