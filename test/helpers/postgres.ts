import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { redactUrl } from '../../src/store/postgres/connection-url.js';
import { startServer } from './postgres-server.js';

/**
 * The PostgreSQL server tests run against: `SVC_TEST_POSTGRES` (a URL whose user may
 * create databases) when set, else a private server started once per test run (by the
 * first worker that asks; the run's globalSetup stops it). When neither can be had the
 * answer is `{ skip: reason }`, printed once, so a skipped suite is never silent:
 *
 *   const server = await pgAvailable();
 *   describe.skipIf('skip' in server)('...', () => { ... });
 */
export type PgServer = { url: string } | { skip: string };

let server: Promise<PgServer> | undefined;

export function pgAvailable(): Promise<PgServer> {
  server ??= find().then((found) => {
    if ('skip' in found) console.warn(`PostgreSQL tests skipped: ${found.skip}`);
    return found;
  });
  return server;
}

/** A uniquely named, empty database on the test server, and how to drop it afterwards. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const found = await pgAvailable();
  if ('skip' in found) throw new Error(`no PostgreSQL server for tests: ${found.skip}`);
  const name = `svc_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await admin(found.url, `CREATE DATABASE "${name}"`);
  const url = new URL(found.url);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    drop: async () => {
      if (dropped) return;
      dropped = true;
      // FORCE ends connections a failed test left open, so the drop never hangs.
      await admin(found.url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function find(): Promise<PgServer> {
  const given = process.env.SVC_TEST_POSTGRES;
  if (given) {
    try {
      await admin(given, 'SELECT 1');
      return { url: given };
    } catch (err) {
      return { skip: `SVC_TEST_POSTGRES=${redactUrl(given)} does not answer: ${(err as Error).message}` };
    }
  }
  let root: string | undefined;
  try {
    root = inject('svcPostgresRoot');
  } catch {
    root = undefined;
  }
  if (!root) return { skip: 'no test server directory (run through vitest with its globalSetup)' };
  return await shared(root, inject('svcPostgresOwner'));
}

/**
 * One server for every worker of the run: the worker that creates `claim` first starts it
 * and publishes its URL (or why it failed) by an atomic rename; the others wait for that.
 */
async function shared(root: string, ownerPid: number): Promise<PgServer> {
  const urlFile = join(root, 'url');
  const failedFile = join(root, 'failed');
  let claimed = false;
  try {
    closeSync(openSync(join(root, 'claim'), 'wx'));
    claimed = true;
  } catch {
    claimed = false;
  }
  if (claimed) {
    try {
      const { url } = await startServer(root, { ownerPid });
      writeFileSync(`${urlFile}.tmp`, url);
      renameSync(`${urlFile}.tmp`, urlFile);
      return { url };
    } catch (err) {
      const reason = (err as Error).message;
      writeFileSync(`${failedFile}.tmp`, reason);
      renameSync(`${failedFile}.tmp`, failedFile);
      return { skip: reason };
    }
  }
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (existsSync(urlFile)) return { url: readFileSync(urlFile, 'utf8') };
    if (existsSync(failedFile)) return { skip: readFileSync(failedFile, 'utf8') };
    await new Promise((r) => setTimeout(r, 100));
  }
  return { skip: 'another test worker started the PostgreSQL server and did not finish within 120 s' };
}
