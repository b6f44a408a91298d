import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Pure layers do no I/O: store, sockets, files, processes and clocks come in as arguments.
const ioModules = [
  'fs',
  'node:fs',
  'fs/promises',
  'node:fs/promises',
  'net',
  'node:net',
  'http',
  'node:http',
  'https',
  'node:https',
  'http2',
  'node:http2',
  'tls',
  'node:tls',
  'child_process',
  'node:child_process',
  'dgram',
  'node:dgram',
  'worker_threads',
  'node:worker_threads',
  'better-sqlite3',
  'pg',
  'fastify',
  'undici',
  'pino',
  'dns',
  'node:dns',
  'readline',
  'node:readline',
  'node:readline/promises',
  'cluster',
  'node:cluster',
  'nodemailer',
];
// The folders of src/ that reach the outside world: the store, sockets and listeners, files,
// processes, terminals, providers and peers. A pure layer imports none of them, even the
// parts of one that happen to be pure today: they are free to do I/O tomorrow.
const ioFolders = [
  'store', // SQLite and PostgreSQL
  'daemon', // the daemon's listener and wiring
  'http', // the listener toolkit
  'console', // the console's listener, sessions and asset files
  'cli', // terminals, prompts, the daemon client
  'connectors', // outbound provider calls
  'channels', // team-chat and collaboration-suite callbacks and key fetches
  'tls', // certificates on disk
  'io', // bounded file reads and capped HTTP answers
  'provisioning', // the data dir, key files, tenant assets
  'integration', // the broker, sealed secrets, credential files
  'export', // export files on disk
  'verifier', // the offline verifier's files and flags (the verifier core is evidence/verify)
  'witness', // the witness listener and its state file
  'sdk', // the HTTP client
  'mcp', // the MCP facade and its transports
  'notify', // outbound notifications
];
const ioPackagePatterns = ['@fastify/*', '@oclif/*', '@inquirer/*', '@modelcontextprotocol/*'];
const pureLayerRule = pureLayerRuleWith(ioFolders.map((folder) => `**/${folder}/**`));
/**
 * core/notify (event types, the outbox's rules) is core itself, while src/notify is the I/O
 * layer of the same name. An import names only a relative path, so in core/ the notify/ I/O
 * folder is told apart by its depth: from a file `depth` folders below src/core it is
 * `../` repeated depth + 1 times, then `notify/`.
 */
function coreRuleAt(depth) {
  return pureLayerRuleWith([
    ...ioFolders.filter((f) => f !== 'notify').map((folder) => `**/${folder}/**`),
    `${'../'.repeat(depth + 1)}notify/**`,
  ]);
}
function pureLayerRuleWith(ioGroup) {
  return {
    'no-restricted-imports': [
      'error',
      {
        paths: ioModules.map((name) => ({
          name,
          message: 'core/, policy/ and evidence/ do no I/O (DESIGN.md).',
        })),
        patterns: [
          {
            group: ioGroup,
            message: 'core/, policy/ and evidence/ may not import the I/O layers (DESIGN.md).',
          },
          { group: ioPackagePatterns, message: 'core/, policy/ and evidence/ do no I/O (DESIGN.md).' },
        ],
      },
    ],
  };
}

// A store adapter reads and writes; the use cases, and the business errors they raise, run
// once in core (issue 24). An adapter may still report that the store failed: 'unavailable'
// and 'internal' anywhere, and any code in the files that turn driver errors, the commit
// queue, locks, migrations and replica ownership into coded errors.
const STORE_FAILURE_CODES = ['unavailable', 'internal'];
export const storeFailureFiles = [
  'src/store/{sqlite,postgres}/database.ts', // driver errors: unique and foreign-key violations, busy, unreachable
  'src/store/{sqlite,postgres}/commit-queue.ts', // a commit that failed or a queue that broke
  'src/store/sqlite/write-lock.ts', // the data dir held by another daemon
  'src/store/postgres/store.ts', // the pool cannot reach the server
  'src/store/postgres/migrate.ts', // the schema is ahead of or behind this build
  'src/store/postgres/replica.ts', // the replica id: malformed, or held by another live daemon
  'src/store/postgres/connection-url.ts', // the store URL as written: its hosts, ports and svc's settings
];
// Adapters that may still raise business errors because a use case runs inside them: none
// since issue 24 moved every use case to core. An entry names the use case that must move;
// test/unit/lint/store-errors.test.ts fails on an entry that no longer offends.
export const useCasesInAdapters = {};
const storeErrorRule = {
  'no-restricted-syntax': [
    'error',
    {
      // A literal code other than a store failure, or a code computed at run time.
      selector: `NewExpression[callee.name='SvcError']:not([arguments.0.value=/^(${STORE_FAILURE_CODES.join('|')})$/])`,
      message:
        "a store adapter only reads and writes: raise business errors from the use case in core (issue 24); an adapter reports store failures ('unavailable', 'internal') only",
    },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test/vectors/**', 'oclif.manifest.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortController: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  { files: ['src/policy/**', 'src/evidence/**'], rules: pureLayerRule },
  { files: ['src/core/*.ts'], rules: coreRuleAt(0) },
  { files: ['src/core/*/*.ts'], rules: coreRuleAt(1) },
  { files: ['src/core/*/*/*.ts'], rules: coreRuleAt(2) },
  { files: ['src/core/*/*/*/**'], rules: pureLayerRule },
  {
    // The daemon is its routes and wiring; the HTTP toolkit (src/http) and the wire contract
    // (src/api) are what the console, CLI, witness and MCP share with it (DESIGN.md).
    files: ['src/**'],
    ignores: ['src/daemon/**', 'src/core/**', 'src/policy/**', 'src/evidence/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/daemon/**'],
              message: 'only commands/ import src/daemon/; share through src/http or src/api (DESIGN.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // The verifier shares no code with the producer: only evidence primitives (DESIGN.md).
    files: ['src/evidence/verify/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ioModules.map((name) => ({
            name,
            message: 'the verifier core does no I/O; streams come in as arguments.',
          })),
          patterns: [
            {
              // Every I/O layer, as for the pure layers (this rule replaces theirs for these
              // files), and core and the exporter: a verifier sharing the producer's code shares its bugs.
              group: [...ioFolders.map((folder) => `**/${folder}/**`), '**/exporter*', '**/core/**'],
              message: 'the verifier imports only the evidence primitives (DESIGN.md).',
            },
            { group: ioPackagePatterns, message: 'the verifier core does no I/O.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/store/sqlite/**', 'src/store/postgres/**'],
    ignores: [...storeFailureFiles, ...Object.keys(useCasesInAdapters)],
    rules: storeErrorRule,
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } } },
  {
    files: ['bin/**/*.js', 'test/bench/**/*.mjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
