import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**', 'dist/**'],
    // oclif writes through process.stdout; let it through so command tests can read it.
    disableConsoleIntercept: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker per core but one, so a 2-core machine ran the suite one
    // file at a time; most e2e files wait on the processes they start, so two at once share the
    // cores without starving either. Each test owns its ports (0), dirs and data, so files
    // are independent.
    maxWorkers: 2,
    // Reserves a directory for a private PostgreSQL server, started only if a test asks.
    globalSetup: ['test/helpers/postgres-setup.ts'],
  },
});
