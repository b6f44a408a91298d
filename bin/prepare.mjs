#!/usr/bin/env node
// npm runs `prepare` on every `npm install` and `npm link` in the clone. The build starts by
// deleting dist/, so a rebuild under a running `svc quickstart` started from this clone would
// pull its modules away mid-run: build only when dist/ is missing or a source changed since the
// last complete build (`npm run build` always builds).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Written by `npm run build` as its last step: dist/ is whole from then on. */
const STAMP = join('dist', '.build-complete');
/** What the build reads: a change to any of these makes dist/ stale. */
const INPUTS = ['src', 'commands', 'package.json', 'tsconfig.json'];
/**
 * The kinds of file tsc and vite read. What Python or Go leave beside the SDK sources
 * (__pycache__, build/) is not an input: running the SDK examples must not cause a rebuild.
 */
const BUILD_INPUT = /\.(ts|tsx|mts|cts|js|mjs|cjs|json|css|html)$/;

/** The first input newer than the last complete build, or the reason there is none to compare. */
function staleBecause(root) {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) return 'no complete build in dist/';
  const built = statSync(stamp).mtimeMs;
  for (const input of INPUTS) {
    const path = join(root, input);
    if (!existsSync(path)) continue;
    const files = statSync(path).isDirectory()
      ? readdirSync(path, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile() && BUILD_INPUT.test(e.name))
          .map((e) => join(e.parentPath, e.name))
      : [path];
    const newer = files.find((f) => statSync(f).mtimeMs > built);
    if (newer !== undefined) return `${newer.slice(root.length + 1)} changed since the last build`;
  }
  return undefined;
}

const root = process.cwd();
const why = staleBecause(root);
if (why === undefined) {
  console.log('dist/ is up to date with the sources: not rebuilt (`npm run build` rebuilds it)');
} else {
  console.log(`building dist/ (${why}): TypeScript, the console pages and the command manifest`);
  const npm = process.env.npm_execpath;
  const r =
    npm === undefined
      ? spawnSync('npm', ['run', 'build'], { stdio: 'inherit' })
      : spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
