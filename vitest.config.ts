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
    // Reserves a directory for a private PostgreSQL server, started only if a test asks.
    globalSetup: ['test/helpers/postgres-setup.ts'],
  },
});
