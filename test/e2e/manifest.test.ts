import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { committedSnapshot } from '../helpers/snapshot-file.js';
import { tmpDir } from '../helpers/tmp.js';

const HOW = 'SVC_UPDATE_SNAPSHOTS=1 npx vitest run test/e2e/manifest.test.ts';

interface Manifest {
  version: string;
  commands: Record<
    string,
    {
      flags: Record<string, Record<string, unknown>>;
      args: Record<string, Record<string, unknown>>;
      enableJsonFlag?: boolean;
    }
  >;
}

/** Generate the manifest afresh from the built dist/, in a scratch copy of the package root. */
function freshManifest(scratch: string): Manifest {
  copyFileSync(join(ROOT, 'package.json'), join(scratch, 'package.json'));
  cpSync(join(ROOT, 'dist'), join(scratch, 'dist'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(scratch, 'node_modules'));
  execFileSync(process.execPath, [join(ROOT, 'node_modules/oclif/bin/run.js'), 'manifest'], {
    cwd: scratch,
    stdio: 'pipe',
  });
  return JSON.parse(readFileSync(join(scratch, 'oclif.manifest.json'), 'utf8')) as Manifest;
}

/** What must never disappear silently: every command's flags and args, and its --json switch. */
function surface(m: Manifest): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const id of Object.keys(m.commands).sort()) {
    const c = m.commands[id]!;
    const flags: Record<string, unknown> = {};
    for (const name of Object.keys(c.flags).sort()) {
      const f = c.flags[name]!;
      flags[name] = {
        type: f.type,
        ...(f.char ? { char: f.char } : {}),
        ...(f.required ? { required: true } : {}),
        ...(f.multiple ? { multiple: true } : {}),
        ...(f.options ? { options: f.options } : {}),
        ...(f.default !== undefined ? { default: f.default } : {}),
        ...(Array.isArray(f.dependsOn) && f.dependsOn.length ? { dependsOn: f.dependsOn } : {}),
        ...(Array.isArray(f.exclusive) && f.exclusive.length ? { exclusive: f.exclusive } : {}),
      };
    }
    out[id] = { flags, args: Object.keys(c.args ?? {}), json: c.enableJsonFlag ?? false };
  }
  return out;
}

describe('command surface', () => {
  const scratch = tmpDir('svc-manifest-');
  afterAll(() => scratch.cleanup());
  let fresh: Manifest;

  it('the committed oclif.manifest.json is what the build generates', () => {
    fresh = freshManifest(scratch.path);
    let committed: string;
    try {
      committed = execFileSync('git', ['show', ':oclif.manifest.json'], { cwd: ROOT, encoding: 'utf8' });
    } catch {
      throw new Error('oclif.manifest.json is not committed: run `npm run build` and commit it');
    }
    expect(JSON.parse(committed), 'oclif.manifest.json is stale: run `npm run build` and commit it').toEqual(
      fresh,
    );
  });

  it('no flag, argument or --json switch disappears silently (test/snapshots/commands.json)', () => {
    fresh ??= freshManifest(scratch.path);
    const now = surface(fresh);
    const snapshot = committedSnapshot(join(ROOT, 'test/snapshots/commands.json'), now, HOW);
    expect(now, `the command surface changed: if on purpose, run ${HOW} and commit the snapshot`).toEqual(
      snapshot,
    );
  });
});
