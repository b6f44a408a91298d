import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN_DIR = fileURLToPath(new URL('../../bin/', import.meta.url));

/**
 * A directory with `svc` and `svc-verify` shims running the built binaries, as `npm link`
 * would put them on PATH; returns the PATH to use.
 */
export function svcOnPath(dir: string, path = process.env.PATH ?? ''): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, file] of [
    ['svc', 'run.js'],
    ['svc-verify', 'svc-verify.js'],
  ] as const) {
    const shim = join(dir, name);
    writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${join(BIN_DIR, file)}" "$@"\n`);
    chmodSync(shim, 0o755);
  }
  return `${dir}${delimiter}${path}`;
}
