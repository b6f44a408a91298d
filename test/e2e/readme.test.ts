import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import {
  fixedPorts,
  indexedPages,
  manualPages,
  shellBlocks,
  withPorts,
  type ShellBlock,
} from '../helpers/doc-blocks.js';
import { freePort } from '../helpers/free-port.js';
import { svcOnPath } from '../helpers/path-shim.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The doc test of the README and the manual. Every ```sh block of README.md, then of each page
 * the manual's index (docs/README.md) links, in the index's order, runs in order in one bash
 * session (variables and functions carry from block to block and from page to page;
 * `set -e -o pipefail`), in a fresh working dir against what the README's first command
 * stands for: `svc quickstart` (data dir ./.svc, tenant demo) on a free port, with `svc` and
 * `svc-verify` on PATH as `npm link` puts them, and `svc quickstart --env` exported
 * (SVC_HOME, SVC_ENDPOINT, SVC_CA_CERT, SVC_TOKEN of the human admin, AGENT_TOKEN of
 * demo-agent). `<!-- doctest: skip -->` skips the next block; `<!-- doctest: background -->`
 * starts it in its own process group, waits until it says it is listening (or 'Press
 * Ctrl-C'), and stops it at the end. The reader works in the clone; the working dir links the
 * clone's `src/` so the SDK examples run as written without the examples' files landing in
 * the repository. The fixed ports the pages tell their reader to open (8092 MCP, 8093
 * console) are rewritten to ports of the test's own, so the test passes while a reader's
 * walk-through runs on the same machine. A failure names its page and line
 * (`docs/cli.md:120`). A page under docs/ that the index does not link fails the test, so
 * no example escapes it.
 */
const DOCS = join(ROOT, 'docs');

/** A block with the page it comes from; `at` is what names it in a failure and a state file. */
interface PageBlock extends ShellBlock {
  page: string;
  at: string;
}
const READY = /listening on|Press Ctrl-C to stop/;

describe('README and manual examples', () => {
  const tmp = tmpDir('svc-readme-');
  const cwd = join(tmp.path, 'work');
  const path = svcOnPath(join(tmp.path, 'bin'));
  const env: Record<string, string> = {};
  const background: ChildProcess[] = [];
  /** process groups the README's background blocks started */
  const started: number[] = [];

  const spawnBash = (script: string, extra: { detached?: boolean } = {}) =>
    spawn('bash', ['-c', script], {
      cwd,
      env: { ...process.env, ...env, PATH: path, NO_COLOR: '1', FORCE_COLOR: '0', SVC_HOME: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...extra,
    });

  /** Start a long-running command and wait until it says it is ready. */
  const startBackground = (script: string, what: string) =>
    new Promise<ChildProcess>((resolve, reject) => {
      const child = spawnBash(script, { detached: true });
      background.push(child);
      let out = '';
      const timer = setTimeout(() => reject(new Error(`${what} did not get ready: ${out}`)), 60_000);
      const seen = (d: Buffer) => {
        out += d.toString();
        if (READY.test(out)) {
          clearTimeout(timer);
          resolve(child);
        }
      };
      child.stdout!.on('data', seen);
      child.stderr!.on('data', seen);
      child.on('close', (code) => {
        clearTimeout(timer);
        reject(new Error(`${what} exited ${code} before it was ready: ${out}`));
      });
    });

  beforeAll(async () => {
    mkdirSync(cwd);
    symlinkSync(join(ROOT, 'src'), join(cwd, 'src'));
    // What `npm install && npx svc quickstart` stands for, on a free port.
    await startBackground(
      `exec "${process.execPath}" "${BIN}" quickstart --listen 127.0.0.1:0 --console-listen 127.0.0.1:0`,
      'svc quickstart',
    );
    const exports = await new Promise<string>((resolve, reject) => {
      const child = spawnBash('svc quickstart --env');
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`--env exited ${code}`))));
    });
    for (const m of exports.matchAll(/^export (\w+)='([^']*)'/gm)) env[m[1]!] = m[2]!;
    expect(Object.keys(env).sort()).toEqual([
      'AGENT_TOKEN',
      'SVC_CA_CERT',
      'SVC_ENDPOINT',
      'SVC_HOME',
      'SVC_TOKEN',
    ]);
  }, 120_000);

  afterAll(() => {
    for (const pid of started) {
      try {
        process.kill(-pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    for (const child of background.reverse()) {
      if (child.exitCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // already gone
        }
      }
    }
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        tmp.cleanup();
        resolve();
      }, 2000),
    );
  });

  it('the index names every page of docs/, and every page it names exists', () => {
    const indexed = indexedPages(readFileSync(join(DOCS, 'README.md'), 'utf8'));
    const onDisk = readdirSync(DOCS).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(
      onDisk.filter((f) => !indexed.includes(f)),
      'pages docs/README.md does not link',
    ).toEqual([]);
    expect(
      indexed.filter((f) => !onDisk.includes(f)),
      'pages docs/README.md links that do not exist',
    ).toEqual([]);
  });

  it('every shell example runs as written, in order, page after page', async () => {
    const pages = manualPages(ROOT);
    const written: PageBlock[] = pages.flatMap((page, i) =>
      shellBlocks(readFileSync(join(ROOT, page), 'utf8')).map((b) => ({ ...b, page, at: `${i}-${b.line}` })),
    );
    const ports = new Map<number, number>();
    for (const port of fixedPorts(written)) ports.set(port, await freePort());
    const blocks = withPorts(written, ports) as PageBlock[];
    expect(blocks.filter((b) => b.mode === 'run').length).toBeGreaterThan(10);
    const state = join(tmp.path, 'state');
    mkdirSync(state);
    // One session: a block's variables and functions are there for the next.
    const parts: string[] = ['set -e -o pipefail'];
    for (const b of blocks) {
      if (b.mode === 'skip') continue;
      const at = (ext: string) => `"${join(state, `${b.at}.${ext}`)}"`;
      parts.push(`echo ${b.at} > "${state}/current"`);
      if (b.mode === 'background') {
        // Its own process group, so the end of the test stops it and everything it started.
        writeFileSync(join(state, `${b.at}.sh`), b.code + '\n');
        parts.push(
          `setsid bash ${at('sh')} > ${at('bg')} 2>&1 &`,
          `echo $! >> "${state}/bg.pids"`,
          `__ok=; for __i in $(seq 1 300); do if grep -Eq '${READY.source}' ${at('bg')}; then __ok=1; break; fi; sleep 0.2; done`,
          `[ -n "$__ok" ] || { cp ${at('bg')} ${at('err')}; false; }`,
        );
      } else {
        parts.push(`{\n${b.code}\n} > ${at('out')} 2> ${at('err')}`);
      }
    }
    parts.push(`echo done > "${state}/current"`);
    writeFileSync(join(state, 'readme.sh'), parts.join('\n') + '\n');
    const result = await new Promise<{ code: number | null }>((resolve) => {
      const child = spawnBash(`source "${join(state, 'readme.sh')}"`);
      child.on('close', (code) => resolve({ code }));
    });
    if (existsSync(join(state, 'bg.pids'))) {
      for (const pid of readFileSync(join(state, 'bg.pids'), 'utf8').split('\n').filter(Boolean)) {
        started.push(Number(pid));
      }
    }
    const current = readFileSync(join(state, 'current'), 'utf8').trim();
    if (result.code !== 0 || current !== 'done') {
      const read = (ext: string) =>
        existsSync(join(state, `${current}.${ext}`))
          ? readFileSync(join(state, `${current}.${ext}`), 'utf8')
          : '';
      const block = blocks.find((b) => b.at === current);
      throw new Error(
        `${block ? `${block.page}:${block.line}` : current}: the example failed (exit ${result.code})\n--- block ---\n${block?.code ?? ''}\n--- stderr ---\n${read('err')}\n--- stdout ---\n${read('out').slice(-4000)}`,
      );
    }
    // A reader runs these in the clone: whatever they write (keys, credentials, a session
    // cookie, data dirs) must be ignored by git there, never offered to a commit.
    const left = readdirSync(cwd)
      .filter((f) => f !== 'src')
      .map((f) => (statSync(join(cwd, f)).isDirectory() ? `${f}/` : f));
    const check = spawnSync(
      'git',
      ['-C', ROOT, 'check-ignore', '--no-index', '--verbose', '--non-matching', ...left],
      {
        encoding: 'utf8',
      },
    );
    const notIgnored = check.stdout
      .split('\n')
      .filter((l) => l.startsWith('::'))
      .map((l) => l.split('\t')[1]);
    expect(notIgnored, 'files the examples write that .gitignore does not cover').toEqual([]);
  }, 1_500_000);
});
