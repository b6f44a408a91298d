import { checkGuarded } from '../../core/guarded-write.js';
import type { PgTx } from './database.js';

/**
 * One write of a transaction: its SQL (a data-modifying statement with its own $1..$n, no
 * RETURNING) and its parameters. `exactlyOne` marks a guarded write that must change one
 * row, or the decision it belongs to was made on state that no longer holds.
 */
export interface WritePart {
  what: string;
  sql: string;
  params: unknown[];
  exactlyOne?: boolean;
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
    const offset = params.length;
    params.push(...p.params);
    const sql = p.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    return `w${i} AS (${sql} RETURNING 1)`;
  });
  const counts = parts.map((_, i) => `(SELECT count(*) FROM w${i})::int AS c${i}`).join(', ');
  const [row] = await tx.query<Record<string, number>>(`WITH ${ctes.join(', ')} SELECT ${counts}`, params);
  parts.forEach((p, i) => {
    if (p.exactlyOne) checkGuarded(p.what, row?.[`c${i}`] ?? 0);
  });
}
