import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PgTx } from './database.js';
import type { OutboxSignal } from '../outbox-signal.js';

const names = new Map<string, string>();

/** A stable statement name per SQL text: the driver prepares it once per connection. */
function nameOf(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `svc_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  return name;
}

/**
 * Queries on one connection as named prepared statements. The decision path runs the same
 * dozen statements for every decision; planning the state read alone costs more than
 * executing it, so each is parsed and planned once per pooled connection and then only
 * bound and executed.
 */
export function preparedTx(client: pg.PoolClient): PgTx {
  return {
    query: async <R>(sql: string, params?: unknown[]) =>
      (await client.query({ name: nameOf(sql), text: sql, values: params ?? [] })).rows as R[],
  };
}

/**
 * One READ COMMITTED transaction on a pooled connection, its statements prepared (see
 * above): what `PgDb.tx` does, for the hot path. A connection whose rollback fails is
 * destroyed, never handed to the next caller.
 */
export async function preparedTransaction<T>(
  pool: pg.Pool,
  fn: (tx: PgTx) => Promise<T>,
  outbox?: OutboxSignal,
  /** statements (no parameters) sent with BEGIN in the same round trip, such as `SET LOCAL` */
  setup?: string,
): Promise<T> {
  const client = await pool.connect();
  const ignore = () => undefined;
  // A checked-out connection the server drops emits 'error'; the failed query rejects by itself.
  client.on('error', ignore);
  const release = (err?: Error) => {
    client.off('error', ignore);
    client.release(err);
  };
  try {
    // One simple-protocol message: BEGIN and its settings cost one round trip together.
    await client.query(`BEGIN ISOLATION LEVEL READ COMMITTED${setup ? `; ${setup}` : ''}`);
    let wroteEvent = false;
    const tx: PgTx = {
      ...preparedTx(client),
      eventWritten: () => {
        wroteEvent = true;
      },
    };
    const value = await fn(tx);
    await client.query('COMMIT');
    release();
    if (wroteEvent) outbox?.committed();
    return value;
  } catch (err) {
    try {
      await client.query('ROLLBACK');
      release();
    } catch (rollbackErr) {
      release(rollbackErr as Error);
    }
    throw err;
  }
}
