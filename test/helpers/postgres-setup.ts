import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopServer } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the run's private PostgreSQL server lives, started on first use (postgres.ts). */
    svcPostgresRoot: string;
    /** The test runner's process: the server is stopped if it dies without its teardown. */
    svcPostgresOwner: number;
  }
}

/**
 * vitest globalSetup: reserve a directory for this run's PostgreSQL server. Nothing starts
 * here, so a run without PostgreSQL tests pays nothing; the first test that asks starts
 * the server (test/helpers/postgres.ts), and the teardown below stops it and removes it.
 */
export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  project.provide('svcPostgresRoot', root);
  project.provide('svcPostgresOwner', process.pid);
  return () => {
    try {
      stopServer(root);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };
}
