import { checkGuarded } from '../../core/guarded-write.js';
import type { PgTx } from './database.js';

/**
 * One write of a transaction: its SQL (a data-modifying statement with its own $1..$n, no
 * RETURNING) and its parameters. `exactlyOne` marks a guarded write that must change one
 * row, or the decision it belongs to was made on state that no longer holds; `expectRows`
 * names another count a guarded write over several rows must change.
 */
export interface WritePart {
  what: string;
  sql: string;
  params: unknown[];
  exactlyOne?: boolean;
  expectRows?: number;
}

/**
 * Several independent writes (distinct rows, none reading another's result) as one
 * statement of data-modifying CTEs: one round trip instead of one per write, inside the
 * caller's transaction. PostgreSQL runs every CTE to completion; a failed one fails the
 * statement, and with it the transaction. `run` sends the statement: prepared by default
 * (the decision path's statements repeat), unprepared for a text built once.
 */
export async function writeAll(
  tx: PgTx,
  parts: WritePart[],
  run: (sql: string, params: unknown[]) => Promise<Record<string, number>[]> = (sql, params) =>
    tx.query(sql, params),
): Promise<void> {
  if (parts.length === 0) return;
  const params: unknown[] = [];
  const ctes = parts.map((p, i) => {
    const sql = renumber(p.sql, params.length);
    params.push(...p.params);
    return `w${i} AS (${sql} RETURNING 1)`;
  });
  const counts = parts.map((_, i) => `(SELECT count(*) FROM w${i})::int AS c${i}`).join(', ');
  const [row] = await run(`WITH ${ctes.join(', ')} SELECT ${counts}`, params);
  parts.forEach((p, i) => {
    const expected = p.exactlyOne ? 1 : p.expectRows;
    if (expected !== undefined) checkGuarded(p.what, row?.[`c${i}`] ?? 0, expected);
  });
}

/** `sql` with each `$n` moved up by `offset`, for a statement that carries other parameters first. */
function renumber(sql: string, offset: number): string {
  return offset === 0 ? sql : sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}

/** `INSERT INTO t (columns) VALUES (one row)` and nothing after it: rows that can share one VALUES list. */
const SINGLE_ROW_INSERT = /^(\s*INSERT INTO [^(]+\([^)]*\)\s*VALUES\s*)(\([^;]*\))\s*$/;

/**
 * Unguarded single-row INSERTs of the same text merged into one multi-row INSERT each, in the
 * order each text first appears; every other part is kept as it is. A batch of decisions then
 * writes a table with one statement (and one executor start) however many rows it adds.
 * The rows of a batch are distinct (their keys are new ids and sequences), so one INSERT
 * fails exactly when one of its rows would.
 */
export function mergeInserts(parts: WritePart[]): WritePart[] {
  const out: WritePart[] = [];
  const merged = new Map<string, { part: WritePart; head: string; rows: string[] }>();
  for (const p of parts) {
    const m = p.exactlyOne || p.expectRows !== undefined ? null : SINGLE_ROW_INSERT.exec(p.sql);
    if (!m) {
      out.push(p);
      continue;
    }
    const group = merged.get(p.sql);
    if (group === undefined) {
      const part: WritePart = { what: p.what, sql: '', params: [...p.params] };
      merged.set(p.sql, { part, head: m[1]!, rows: [m[2]!] });
      out.push(part);
      continue;
    }
    group.rows.push(renumber(m[2]!, group.part.params.length));
    group.part.params.push(...p.params);
  }
  for (const { part, head, rows } of merged.values()) part.sql = `${head}${rows.join(', ')}`;
  return out;
}
