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
 * statement, and with it the transaction.
 */
export async function writeAll(tx: PgTx, parts: WritePart[]): Promise<void> {
  if (parts.length === 0) return;
  const params: unknown[] = [];
  const ctes = parts.map((p, i) => {
    const sql = renumber(p.sql, params.length);
    params.push(...p.params);
    return `w${i} AS (${sql} RETURNING 1)`;
  });
  const counts = parts.map((_, i) => `(SELECT count(*) FROM w${i})::int AS c${i}`).join(', ');
  const [row] = await tx.query<Record<string, number>>(`WITH ${ctes.join(', ')} SELECT ${counts}`, params);
  parts.forEach((p, i) => {
    const expected = p.exactlyOne ? 1 : p.expectRows;
    if (expected !== undefined) checkGuarded(p.what, row?.[`c${i}`] ?? 0, expected);
  });
}

/** `sql` with each `$n` moved up by `offset`, for a statement that carries other parameters first. */
function renumber(sql: string, offset: number): string {
  return offset === 0 ? sql : sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
}

/** `INSERT INTO t (columns) VALUES (one row)` and nothing after it: rows that can share one statement. */
const SINGLE_ROW_INSERT = /^\s*INSERT INTO ([a-z_]+) \(([^)]*)\)\s*VALUES\s*\(([^;]*)\)\s*$/;
const PARAM = /^\$(\d+)$/;
const LITERAL = /^'[a-z_]*'$/;

/**
 * Unguarded single-row INSERTs of the same text merged into one INSERT each, in the order
 * each text first appears; every other part is kept as it is. The rows travel as one JSON
 * array that `json_populate_recordset` turns into the table's own row type (each value
 * through its column type's input, as a parameter's text would be), so the statement's text
 * is the same however many rows it carries: prepared once per connection like the rest of
 * the decision path, where a multi-row VALUES list would be a new text, parsed and planned
 * anew, for every batch size. The rows of a batch are distinct (their keys are new ids and
 * sequences), so one INSERT fails exactly when one of its rows would.
 */
export function mergeInserts(parts: WritePart[]): WritePart[] {
  const out: WritePart[] = [];
  const merged = new Map<
    string,
    { part: WritePart; columns: RowColumn[]; rows: Record<string, unknown>[] }
  >();
  for (const p of parts) {
    const shape = p.exactlyOne || p.expectRows !== undefined ? undefined : rowShape(p.sql);
    if (shape === undefined) {
      out.push(p);
      continue;
    }
    let group = merged.get(p.sql);
    if (group === undefined) {
      const select = shape.columns.map((c) => c.literal ?? `r.${c.name}`).join(', ');
      const names = shape.columns.map((c) => c.name).join(', ');
      const part: WritePart = {
        what: p.what,
        sql: `INSERT INTO ${shape.table} (${names})
          SELECT ${select} FROM json_populate_recordset(NULL::${shape.table}, $1::json) AS r`,
        params: [],
      };
      group = { part, columns: shape.columns, rows: [] };
      merged.set(p.sql, group);
      out.push(part);
    }
    const row: Record<string, unknown> = {};
    for (const c of group.columns) if (c.param !== undefined) row[c.name] = jsonValue(p.params[c.param - 1]);
    group.rows.push(row);
  }
  for (const { part, rows } of merged.values()) part.params = [JSON.stringify(rows)];
  return out;
}

interface RowColumn {
  name: string;
  /** the parameter (from 1) that gives its value */
  param?: number;
  /** or the constant the statement gives it */
  literal?: string;
}

interface RowShape {
  table: string;
  columns: RowColumn[];
}

/** Shapes by statement text: the decision path writes the same dozen texts over and over. */
const shapes = new Map<string, RowShape | null>();

/** The table and the columns of a single-row INSERT whose values are all parameters or quoted constants. */
function rowShape(sql: string): RowShape | undefined {
  let shape = shapes.get(sql);
  if (shape === undefined) {
    shape = parseShape(sql) ?? null;
    // the texts are the code's own, a few dozen: the bound only guards against a mistake
    if (shapes.size < 1000) shapes.set(sql, shape);
  }
  return shape ?? undefined;
}

function parseShape(sql: string): RowShape | undefined {
  const m = SINGLE_ROW_INSERT.exec(sql);
  if (!m) return undefined;
  const names = m[2]!.split(',').map((c) => c.trim());
  const values = m[3]!.split(',').map((v) => v.trim());
  if (names.length !== values.length) return undefined;
  const columns: RowColumn[] = [];
  for (const [i, name] of names.entries()) {
    const v = values[i]!;
    const param = PARAM.exec(v);
    if (param) columns.push({ name, param: Number(param[1]) });
    else if (LITERAL.test(v)) columns.push({ name, literal: v });
    else return undefined;
  }
  return { table: m[1]!, columns };
}

/**
 * A parameter as JSON whose text the column's input reads as node-postgres would send it:
 * bytes as `\x` hex, bigints as their digits, objects as their JSON text.
 */
function jsonValue(v: unknown): unknown {
  if (v instanceof Uint8Array)
    return `\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) throw new TypeError('an array parameter cannot travel in a JSON row');
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return v;
}
