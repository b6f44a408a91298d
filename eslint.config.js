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
];
const pureLayerRule = {
  'no-restricted-imports': [
    'error',
    {
      paths: ioModules.map((name) => ({
        name,
        message: 'core/, policy/ and evidence/ do no I/O (DESIGN.md).',
      })),
      patterns: [
        {
          group: [
            '**/store/**',
            '**/daemon/**',
            '**/cli/**',
            '**/console/**',
            '**/connectors/**',
            '**/channels/**',
            '**/tls/**',
            '**/http/**',
          ],
          message: 'core/, policy/ and evidence/ may not import the I/O layers (DESIGN.md).',
        },
      ],
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
  { files: ['src/core/**', 'src/policy/**', 'src/evidence/**'], rules: pureLayerRule },
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
              group: [
                '**/store/**',
                '**/daemon/**',
                '**/cli/**',
                '**/export/**',
                '**/exporter*',
                '**/core/**',
              ],
              message: 'the verifier imports only the evidence primitives (DESIGN.md).',
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } } },
  {
    files: ['bin/**/*.js', 'test/bench/**/*.mjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
