import { SvcError } from '../core/errors.js';
import type { PgTx } from './postgres/database.js';
import type { Db } from './sqlite/database.js';
import { ident, type TablePlan } from './migrate-plan.js';

export interface TenantProof {
  tenantId: string;
  /** journal entries in the copy, each compared byte for byte with the source */
  entries: number;
}

/** Rows fetched from the PostgreSQL cursor per round trip. */
const FETCH = 1000;

/**
 * Read every table back from both sides in primary-key order and compare row by row, value
 * by value, as bytes: integers as decimal text, blobs as hex, text as is. Both orders are
 * byte order (SQLite's BINARY, PostgreSQL's "C" collation and bytea), so the two streams
 * line up row for row. The first difference is thrown, naming the table, the row's key and
 * the column (never a value: secrets and token hashes are among them).
 */
export async function proveCopy(sqlite: Db, tx: PgTx, plan: TablePlan[]): Promise<TenantProof[]> {
  const entries = new Map<string, number>();
  for (const t of plan) {
    const tenantAt = t.tenantColumn === null ? -1 : t.columns.indexOf(t.tenantColumn);
    await compareTable(sqlite, tx, t, (row) => {
      if (t.name === 'tenants') entries.set(row[tenantAt]!, entries.get(row[tenantAt]!) ?? 0);
      if (t.name === 'journal') entries.set(row[tenantAt]!, (entries.get(row[tenantAt]!) ?? 0) + 1);
    });
  }
  return [...entries].map(([tenantId, n]) => ({ tenantId, entries: n }));
}

async function compareTable(
  sqlite: Db,
  tx: PgTx,
  t: TablePlan,
  seen: (row: (string | null)[]) => void,
): Promise<void> {
  const cols = t.columns.map(ident).join(', ');
  const order = t.primaryKey.map(ident).join(', ');
  const source = (
    sqlite
      .prepare(`SELECT ${cols} FROM ${ident(t.name)} ORDER BY ${order}`)
      .safeIntegers(true)
      .raw(true)
      .iterate() as IterableIterator<unknown[]>
  )[Symbol.iterator]();
  const cursor = `svc_prove_${t.name}`;
  await tx.query(
    `DECLARE ${ident(cursor)} NO SCROLL CURSOR FOR SELECT ${cols} FROM ${ident(t.name)} ORDER BY ${order}`,
  );
  try {
    let index = 0;
    for (;;) {
      const page = await tx.query<Record<string, unknown>>(`FETCH ${FETCH} FROM ${ident(cursor)}`);
      for (const pgRow of page) {
        const next = source.next();
        const copy = t.columns.map((c) => normalise(pgRow[c]));
        if (next.done) throw difference(t, index, copy, 'the copy has a row the source does not');
        const original = next.value.map(normalise);
        const column = t.columns.findIndex((_, i) => original[i] !== copy[i]);
        if (column !== -1) throw difference(t, index, original, `column ${t.columns[column]} differs`);
        seen(original);
        index++;
      }
      if (page.length < FETCH) break;
    }
    const extra = source.next();
    if (!extra.done)
      throw difference(t, index, extra.value.map(normalise), 'the source has a row the copy does not');
  } finally {
    // An unfinished SQLite statement keeps the connection busy: end it whichever way we leave.
    source.return?.();
    await tx.query(`CLOSE ${ident(cursor)}`).catch(() => undefined);
  }
}

/** One value as comparable text; null stays null. */
function normalise(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return `\\x${Buffer.from(v).toString('hex')}`;
  return String(v);
}

function difference(t: TablePlan, index: number, row: (string | null)[], what: string): SvcError {
  const key = t.primaryKey
    .map((k) => {
      const i = t.columns.indexOf(k);
      // a bytea key (a console session's id hash) is a credential's hash: not printed
      return t.pgTypes[i] === 'bytea' ? `${k}=(bytes)` : `${k}=${row[i] ?? 'null'}`;
    })
    .join(', ');
  return new SvcError(
    'internal',
    `the copy does not match the source in table ${t.name} at row ${index + 1} in key order (${key}): ${what}; nothing was committed`,
    { remedy: 'report this with the svc version; the SQLite data dir is unchanged and still the store' },
  );
}
