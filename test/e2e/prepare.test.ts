import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const scratch = tmpDir('svc-prepare-');
afterAll(() => scratch.cleanup());

/**
 * A package shaped like the clone whose build only counts its runs, so the real prepare
 * script decides, through npm, whether to build without the minute a real build takes.
 */
function fakeClone(): string {
  const dir = join(scratch.path, 'clone');
  mkdirSync(join(dir, 'src', 'cli'), { recursive: true });
  writeFileSync(join(dir, 'src', 'cli', 'a.ts'), 'export const a = 1;\n');
  const build =
    "node -e \"const fs=require('fs');fs.rmSync('dist',{recursive:true,force:true});fs.mkdirSync('dist');fs.appendFileSync('builds','.');fs.writeFileSync('dist/.build-complete','')\"";
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'clone',
      version: '1.0.0',
      scripts: { build, prepare: `node ${JSON.stringify(join(ROOT, 'bin', 'prepare.mjs'))}` },
    }),
  );
  return dir;
}

function prepare(dir: string): { out: string; builds: number } {
  const r = spawnSync('npm', ['run', 'prepare'], { cwd: dir, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const builds = existsSync(join(dir, 'builds')) ? readFileSync(join(dir, 'builds'), 'utf8').length : 0;
  return { out: r.stdout, builds };
}

describe('prepare (npm install, npm link)', () => {
  it('builds only when dist/ is missing or a source changed since the last complete build', () => {
    const dir = fakeClone();
    const first = prepare(dir);
    expect(first.out).toContain('building dist/ (no complete build in dist/)');
    expect(first.builds).toBe(1);

    // npm link after npm install: nothing changed, so a running quickstart keeps its dist/.
    const again = prepare(dir);
    expect(again.out).toContain('dist/ is up to date with the sources: not rebuilt');
    expect(again.builds).toBe(1);

    const later = new Date(Date.now() + 60_000);
    // What running the Python SDK leaves beside its sources is no input of the build.
    mkdirSync(join(dir, 'src', 'sdk', 'python', '__pycache__'), { recursive: true });
    writeFileSync(join(dir, 'src', 'sdk', 'python', '__pycache__', 'client.cpython-311.pyc'), '');
    utimesSync(join(dir, 'src', 'sdk', 'python', '__pycache__', 'client.cpython-311.pyc'), later, later);
    expect(prepare(dir).builds).toBe(1);

    utimesSync(join(dir, 'src', 'cli', 'a.ts'), later, later);
    const edited = prepare(dir);
    expect(edited.out).toContain('building dist/ (src/cli/a.ts changed since the last build)');
    expect(edited.builds).toBe(2);
  });

  it("is the clone's prepare script, and the build marks dist/ complete", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.prepare).toBe('node bin/prepare.mjs');
    expect(pkg.scripts.build).toMatch(/writeFileSync\('dist\/\.build-complete'/);
    expect(existsSync(join(ROOT, 'dist', '.build-complete'))).toBe(true);
  });
});
