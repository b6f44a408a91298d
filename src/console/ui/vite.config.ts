import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { PRECOMPILED_ID, precompiledSchemaValidator } from './precompiled-schema.js';

const root = fileURLToPath(new URL('.', import.meta.url));

/** The verifier's schema validator, swapped for validators generated at build time (no eval in the page). */
function precompiledSchema(): Plugin {
  return {
    name: 'svc-precompiled-schema',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source.endsWith('/schema-validator.js') && importer?.includes('/src/evidence/'))
        return PRECOMPILED_ID;
      return null;
    },
    load(id) {
      return id === PRECOMPILED_ID ? precompiledSchemaValidator() : null;
    },
  };
}

/**
 * The console pages, bundled at build time into dist/console-ui: hashed file names, no
 * inline script, no eval, nothing fetched from a CDN, so the page runs under
 * `script-src 'self'`. JSX is compiled ahead of time for Preact.
 */
export default defineConfig({
  root,
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  plugins: [precompiledSchema()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../../dist/console-ui', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
});
