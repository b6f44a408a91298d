import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

interface PackResult {
  filename: string;
  files: { path: string }[];
}
interface Manifest {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
const ADDON = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');

const scratch = tmpDir('svc-package-');
afterAll(() => scratch.cleanup());
const PREFIX = join(scratch.path, 'prefix');
const INSTALLED = join(PREFIX, 'lib', 'node_modules', 'svc');
// A directory outside the clone, with a home and a data dir of its own.
const OUTSIDE = join(scratch.path, 'elsewhere');
const HOME = join(scratch.path, 'home');
const USER_ENV = {
  ...process.env,
  HOME,
  SVC_HOME: join(HOME, 'svc-data'),
  SVC_STORE: '',
  NO_COLOR: '1',
  // The installed svc first, then the Node.js running this test; the clone's bin is not on it.
  PATH: [join(PREFIX, 'bin'), dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(
    delimiter,
  ),
};

function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv },
): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.error) throw r.error;
  return r;
}

/** The newest file of a folder that the build reads (bin/prepare.mjs: BUILD_INPUT). */
function newestUnder(dir: string): { file: string; mtimeMs: number } {
  let newest = { file: dir, mtimeMs: 0 };
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || !/\.(ts|tsx|mts|cts|js|mjs|cjs|json|css|html)$/.test(e.name)) continue;
    const file = join(e.parentPath, e.name);
    const { mtimeMs } = statSync(file);
    if (mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  }
  return newest;
}

let pack: PackResult;

beforeAll(() => {
  // `npm pack` would run `prepare` (a full build): pack the dist/ the suite built, once it is
  // known to be the build of these sources.
  const stamp = join(ROOT, 'dist', '.build-complete');
  if (!existsSync(stamp)) throw new Error('dist/ is not a complete build: run `npm run build` first');
  for (const dir of ['src', 'commands']) {
    const newest = newestUnder(join(ROOT, dir));
    if (newest.mtimeMs > statSync(stamp).mtimeMs)
      throw new Error(`${newest.file} is newer than dist/: run \`npm run build\` first`);
  }
  const r = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch.path], {
    cwd: ROOT,
  });
  expect(r.status, r.stderr).toBe(0);
  pack = (JSON.parse(r.stdout) as PackResult[])[0]!;
}, 120_000);

describe("the clone's first command", () => {
  it('npm start runs the quickstart, and Ctrl-C stops it', async () => {
    const home = join(scratch.path, 'npm-start');
    // Its own process group, as a terminal runs it: Ctrl-C reaches npm and the quickstart alike.
    const child = spawn(
      'npm',
      ['start', '--', '--listen', '127.0.0.1:0', '--console-listen', '127.0.0.1:0'],
      {
        cwd: ROOT,
        env: { ...process.env, SVC_HOME: home, SVC_STORE: '', NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    );
    let out = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      child.on('close', (code, signal) => r({ code, signal })),
    );
    await new Promise<void>((resolve, reject) => {
      const seen = (d: Buffer) => {
        out += d.toString();
        if (out.includes('Press Ctrl-C to stop.')) resolve();
      };
      child.stdout.on('data', seen);
      child.stderr.on('data', seen);
      void exited.then((e) => reject(new Error(`npm start exited ${e.code ?? e.signal}: ${out}`)));
    });
    expect(out).toContain(`svc quickstart: the demo is running (new data dir ${home})`);
    process.kill(-child.pid!, 'SIGINT');
    // npm ends itself with the signal it was sent, as a shell expects of Ctrl-C; the quickstart
    // under it stops as it does when run directly.
    const end = await exited;
    expect(end.code === 0 || end.signal === 'SIGINT', JSON.stringify(end)).toBe(true);
    expect(out).toContain('svc quickstart: stopped (the data dir is kept');
  });
});

describe('the npm package', () => {
  it('carries what runs, the console pages and the SDK sources, and nothing else', () => {
    const files = pack.files.map((f) => f.path);
    for (const needed of [
      'package.json',
      'README.md',
      'oclif.manifest.json',
      'bin/run.js',
      'bin/svc-verify.js',
      'dist/console-ui/index.html',
      'dist/src/sdk/index.js',
      'dist/src/sdk/index.d.ts',
      'src/sdk/examples/agent.mjs',
      'src/sdk/python/pyproject.toml',
      'src/sdk/python/svc_sdk/client.py',
      'src/sdk/python/examples/agent.py',
      'src/sdk/go/go.mod',
      'src/sdk/go/client.go',
      'src/sdk/go/examples/agent/main.go',
    ])
      expect(files).toContain(needed);
    expect(files.some((f) => /^dist\/console-ui\/assets\/.+\.js$/.test(f))).toBe(true);
    // Every command the manifest lists is in the package.
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, { relativePath: string[] }>;
    };
    for (const c of Object.values(manifest.commands)) expect(files).toContain(c.relativePath.join('/'));
    // Nothing else: no source map (its sources are not shipped), test, TypeScript source, dev
    // entry point, nor what Python or Go leave beside the SDK sources.
    const shipped = [
      /^(package\.json|README\.md|oclif\.manifest\.json|bin\/run\.js|bin\/svc-verify\.js)$/,
      /^dist\/(commands|src)\/.+\.(js|d\.ts)$/,
      /^dist\/console-ui\/(index\.html|assets\/[^/]+)$/,
      /^src\/sdk\/examples\/[^/]+\.mjs$/,
      /^src\/sdk\/go\/(go\.mod|[^/]+\.go|examples\/.+\.go)$/,
      /^src\/sdk\/python\/(pyproject\.toml|svc_sdk\/[^/]+\.py|examples\/[^/]+\.py)$/,
    ];
    const unwanted = files.filter((f) => f.endsWith('_test.go') || !shipped.some((re) => re.test(f)));
    expect(unwanted).toEqual([]);
  });

  describe('installed globally into its own prefix', () => {
    beforeAll(() => {
      mkdirSync(OUTSIDE, { recursive: true });
      mkdirSync(HOME, { recursive: true });
      // A global install never installs devDependencies. --prefer-offline takes every tarball
      // from the cache the clone's install filled; a global install also asks for full package
      // documents, which `npm ci` does not cache, and those come from the registry once.
      // --ignore-scripts skips better-sqlite3's compile from source (1 to 4 minutes on two
      // cores): the clone's own `npm install` proves the compile; this test proves the package,
      // so it puts the clone's addon, built by the same compiler for the same Node.js, in place.
      const r = run(
        'npm',
        [
          'install',
          '--global',
          '--prefix',
          PREFIX,
          '--prefer-offline',
          '--ignore-scripts',
          '--no-audit',
          '--no-fund',
          join(scratch.path, pack.filename),
        ],
        { cwd: OUTSIDE },
      );
      expect(r.status, r.stderr).toBe(0);
      const version = (dir: string) =>
        (
          JSON.parse(
            readFileSync(join(dir, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8'),
          ) as Manifest
        ).version;
      // The addon's ABI is that of its own better-sqlite3 release: copy only between equal ones.
      expect(version(INSTALLED)).toBe(version(ROOT));
      mkdirSync(dirname(join(INSTALLED, ADDON)), { recursive: true });
      copyFileSync(join(ROOT, ADDON), join(INSTALLED, ADDON));
    }, 300_000);

    it('holds no development dependency', () => {
      const prod = new Set(Object.keys(PKG.dependencies));
      for (const dev of ['typescript', 'vitest', 'vite', 'eslint', 'oclif', 'prettier', 'fast-check']) {
        expect(prod.has(dev)).toBe(false);
        expect(existsSync(join(INSTALLED, 'node_modules', dev)), dev).toBe(false);
      }
    });

    it('answers svc --version from a directory outside the clone', () => {
      const r = run('svc', ['--version'], { cwd: OUTSIDE, env: USER_ENV });
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(new RegExp(`^svc/${PKG.version.replace(/\./g, '\\.')} linux-`));
    });

    it('prints a unit that starts the installed svc', () => {
      const r = run('svc', ['daemon', 'unit', '--config', '/etc/svc/svc.yaml'], {
        cwd: OUTSIDE,
        env: USER_ENV,
      });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        `ExecStart=${join(PREFIX, 'bin', 'svc')} daemon start --config /etc/svc/svc.yaml --data-dir /var/lib/svc`,
      );
    });

    it('runs svc quickstart --tour, serves the console pages and answers the shipped SDK examples', async () => {
      const child = spawn(
        'svc',
        ['quickstart', '--tour', '--listen', '127.0.0.1:0', '--console-listen', '127.0.0.1:0'],
        { cwd: OUTSIDE, env: USER_ENV, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      const exited = new Promise<number | null>((r) => child.on('close', r));
      try {
        await new Promise<void>((resolve, reject) => {
          const seen = (d: Buffer) => {
            out += d.toString();
            if (out.includes('Press Ctrl-C to stop.')) resolve();
          };
          child.stdout.on('data', seen);
          child.stderr.on('data', seen);
          void exited.then((c) => reject(new Error(`quickstart exited ${c}: ${out}`)));
        });
        expect(out).toContain(`new data dir ${USER_ENV.SVC_HOME}`);
        expect(out).toMatch(/8\. verified {2}pass against the pinned key/);

        // The console's built pages come from the package.
        const consoleUrl = /console {2}(https:\/\/\S+)/.exec(out)![1]!;
        const ca = readFileSync(/CA file {2}(\S+)/.exec(out)![1]!, 'utf8');
        const dispatcher = new Agent({ connect: { ca } });
        try {
          const page = await request(`${consoleUrl}/`, { dispatcher });
          const html = await page.body.text();
          expect(page.statusCode).toBe(200);
          const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
          expect(script, html).toBeDefined();
          const asset = await request(`${consoleUrl}${script}`, { dispatcher });
          await asset.body.dump();
          expect(asset.statusCode).toBe(200);
        } finally {
          await dispatcher.close();
        }

        // The SDK examples run from the package, as the agent.
        const env = run('svc', ['quickstart', '--env'], { cwd: OUTSIDE, env: USER_ENV });
        expect(env.status, env.stderr).toBe(0);
        const exported = Object.fromEntries(
          [...env.stdout.matchAll(/^export (\w+)=(?:'([^']*)'|(\S*))/gm)].map((m) => [m[1], m[2] ?? m[3]]),
        ) as Record<string, string>;
        const agentEnv = { ...USER_ENV, ...exported, SVC_TOKEN: exported.AGENT_TOKEN };
        expect(agentEnv.SVC_TOKEN).toBeTruthy();
        const ts = run('node', [join(INSTALLED, 'src', 'sdk', 'examples', 'agent.mjs')], {
          cwd: OUTSIDE,
          env: agentEnv,
        });
        expect(ts.status, ts.stderr).toBe(0);
        expect(ts.stdout).toMatch(/^allowed: intent int_/m);
        const py = run('python3', [join(INSTALLED, 'src', 'sdk', 'python', 'examples', 'agent.py')], {
          cwd: OUTSIDE,
          env: {
            ...agentEnv,
            PYTHONPATH: join(INSTALLED, 'src', 'sdk', 'python'),
            PYTHONDONTWRITEBYTECODE: '1',
          },
        });
        expect(py.status, py.stderr).toBe(0);
        expect(py.stdout).toMatch(/^allowed: intent int_/m);
      } finally {
        child.kill('SIGINT');
      }
      expect(await exited, out).toBe(0);
      expect(out).toContain('svc quickstart: stopped');
    }, 120_000);
  });
});
