/**
 * Integers as either driver returns them: better-sqlite3 gives numbers, node-postgres
 * gives BIGINT as text. Both adapters read through these so a row maps the same way.
 */
export type DbInt = number | string | bigint;

export const int = (v: DbInt): number => Number(v);

export const intOrNull = (v: DbInt | null): number | null => (v === null ? null : Number(v));

/** Micro-units stay exact: a bigint from SQLite's safe integers, or PostgreSQL's BIGINT text. */
export const micros = (v: DbInt): bigint => BigInt(v);
