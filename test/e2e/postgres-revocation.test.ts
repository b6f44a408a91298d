import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { freshDatabase, pgAvailable } from '../helpers/postgres.js';
import { tmpDir } from '../helpers/tmp.js';

const server = await pgAvailable();

/**
 * A revocation made anywhere is honoured by every replica on the very next request: two
 * built daemons on one database, a token used on one, revoked from the CLI of a third
 * process, refused by both at once (NOTIFY in the revoking transaction, LISTEN in each).
 */
describe.skipIf('skip' in server)(
  'token revocation across replicas on PostgreSQL (built binary, TLS)',
  () => {
    const tmp = tmpDir('svc-e2e-pg-revoke-');
    const daemons: DaemonProcess[] = [];
    const pools: Pool[] = [];
    let database: { url: string; drop(): Promise<void> };
    let env: Record<string, string>;

    beforeAll(async () => {
      database = await freshDatabase();
      env = { SVC_HOME: join(tmp.path, 'home'), SVC_STORE: database.url };
      const init = await runJson<{ ca_cert: string }>(['init', '--tenant', 'acme', '--admin', 'alice'], env);
      const ca = readFileSync(init.ca_cert);
      for (const id of ['replica-a', 'replica-b']) {
        const d = await startDaemonProcess([], { ...env, SVC_REPLICA_ID: id });
        daemons.push(d);
        pools.push(new Pool(d.url, { connect: { ca } }));
      }
    });
    afterAll(async () => {
      for (const p of pools) await p.close();
      for (const d of daemons) await d.stop();
      await database?.drop();
      tmp.cleanup();
    });

    const status = async (pool: Pool, token: string): Promise<number> => {
      const r = await pool.request({
        method: 'GET',
        path: '/v1/receipts',
        headers: { authorization: `Bearer ${token}` },
      });
      await r.body.text();
      return r.statusCode;
    };

    it('refuses a revoked token on every replica at the next request', async () => {
      const issued = await runJson<{ token: string; token_id: string }>(
        ['token', 'issue', '--tenant', 'acme', '--actor', 'alice'],
        env,
      );
      // Served, and served again (what a replica may remember of a verified token), on both.
      for (const pool of pools) {
        expect(await status(pool, issued.token)).toBe(200);
        expect(await status(pool, issued.token)).toBe(200);
      }
      await runJson(['token', 'revoke', '--tenant', 'acme', issued.token_id], env);
      for (const pool of pools) expect(await status(pool, issued.token)).toBe(401);
    });
  },
);
