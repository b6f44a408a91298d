import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/**
 * A private PostgreSQL server for one test run, in `root` (a fresh temporary directory):
 * initdb as the `postgres` OS user when we run as root (the server refuses root), listening
 * on 127.0.0.1 only at a port the OS picked, its unix socket inside `root`, trust
 * authentication on loopback only, fsync left on (durability is what the tests check).
 */
export async function startServer(root: string, opts: { ownerPid?: number } = {}): Promise<{ url: string }> {
  const bin = serverBinDir();
  const asServer = serverUser(root);
  const data = join(root, 'data');
  // --no-sync only skips initdb's final flush of the new cluster files; the running server
  // keeps fsync and synchronous_commit on.
  run(asServer, join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth-host=trust',
    '--auth-local=trust',
    '-E',
    'UTF8',
    '--no-locale',
    '--no-sync',
  ]);
  return startOnFreePort(root, asServer, bin, ['-c fsync=on'], 'server', opts);
}

/**
 * A streaming-replication standby of the server at `primaryUrl`, in `root`: a base backup
 * taken with `pg_basebackup -R` (it writes the primary_conninfo and standby.signal), started
 * as a hot standby on a port of its own. It keeps following the primary until promoted.
 */
export async function startStandby(
  root: string,
  primaryUrl: string,
  opts: { ownerPid?: number } = {},
): Promise<{ url: string }> {
  const bin = serverBinDir();
  const asServer = serverUser(root);
  const data = join(root, 'data');
  const primary = new URL(primaryUrl);
  run(asServer, join(bin, 'pg_basebackup'), [
    '-D',
    data,
    '-h',
    primary.hostname,
    '-p',
    primary.port,
    '-U',
    'postgres',
    '-R',
    '-X',
    'stream',
    '--no-sync',
  ]);
  return startOnFreePort(root, asServer, bin, ['-c hot_standby=on'], 'standby', opts);
}

/**
 * Start the cluster in `root`/data listening on 127.0.0.1 only, at a port the OS picked.
 * The port is free when the OS names it; another process may take it before the server
 * binds, so a failed start is retried on a new port.
 */
async function startOnFreePort(
  root: string,
  asServer: ReturnType<typeof serverUser>,
  bin: string,
  settings: string[],
  what: string,
  opts: { ownerPid?: number },
): Promise<{ url: string }> {
  const data = join(root, 'data');
  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const options = [
      '-c listen_addresses=127.0.0.1',
      `-c port=${port}`,
      `-c unix_socket_directories=${root}`,
      ...settings,
      '-c max_connections=300',
    ].join(' ');
    const started = runStatus(asServer, join(bin, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(root, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      options,
      'start',
    ]);
    if (started.ok) {
      if (opts.ownerPid !== undefined) watch(opts.ownerPid, asServer, join(bin, 'pg_ctl'), root);
      return { url: `postgresql://postgres@127.0.0.1:${port}/postgres` };
    }
    lastError = `${started.output}\n${tail(join(root, 'server.log'))}`;
  }
  throw new Error(`the test PostgreSQL ${what} did not start: ${lastError}`);
}

/** Stop the server started in `root`, if one is running. */
export function stopServer(root: string): void {
  const data = join(root, 'data');
  if (!existsSync(join(data, 'postmaster.pid'))) return;
  const bin = serverBinDir();
  runStatus(serverUser(root), join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
}

/**
 * Ask the server in `root` to shut down in smart mode and return at once: it refuses new
 * connections (SQLSTATE 57P03) and waits for the open sessions to end. `restartServer`
 * ends it (a fast stop, then a start).
 */
export function beginSmartStop(root: string): void {
  const bin = serverBinDir();
  const r = runStatus(serverUser(root), join(bin, 'pg_ctl'), [
    '-D',
    join(root, 'data'),
    '-m',
    'smart',
    '-W',
    'stop',
  ]);
  if (!r.ok) throw new Error(`pg_ctl stop -m smart failed: ${r.output}`);
}

/**
 * Start the server in `root` again after `stopServer`, on the same port with the same
 * options: `pg_ctl restart` reads them back from postmaster.opts, and starts a stopped server.
 */
export function restartServer(root: string): void {
  const data = join(root, 'data');
  const bin = serverBinDir();
  const r = runStatus(serverUser(root), join(bin, 'pg_ctl'), [
    '-D',
    data,
    '-l',
    join(root, 'server.log'),
    '-w',
    '-t',
    '60',
    'restart',
  ]);
  if (!r.ok)
    throw new Error(
      `the test PostgreSQL server did not start again: ${r.output}\n${tail(join(root, 'server.log'))}`,
    );
}

/**
 * Run `pg_ctl` on the server in `root` without blocking the event loop, so load a test
 * keeps running meets the stop, restart or promotion mid-flight (the functions above block).
 * Rejects with pg_ctl's output and the log's tail when it fails.
 */
export function pgCtl(root: string, args: string[]): Promise<void> {
  const argv = [...serverUser(root), join(serverBinDir(), 'pg_ctl'), '-D', join(root, 'data'), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`pg_ctl ${args.join(' ')} failed: ${output}\n${tail(join(root, 'server.log'))}`));
    });
  });
}

/**
 * A test run that is killed never reaches its teardown; on a shared machine its server
 * would run on. A detached watchdog stops the server and removes `root` once `ownerPid`
 * (the test runner) is gone; after a normal teardown it finds nothing left to do.
 */
function watch(ownerPid: number, prefix: string[], pgCtl: string, root: string): void {
  const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const stop = [...prefix, pgCtl, '-D', join(root, 'data'), '-m', 'immediate', 'stop'].map(q).join(' ');
  const script = `while kill -0 ${ownerPid} 2>/dev/null; do sleep 2; done; ${stop} >/dev/null 2>&1; rm -rf ${q(root)}`;
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
}

/** The newest installed PostgreSQL's server binaries (Debian keeps them off PATH). */
export function serverBinDir(): string {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v) && existsSync(join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(debian, versions[0], 'bin');
  }
  const viaConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const dir = viaConfig.status === 0 ? viaConfig.stdout.trim() : '';
  if (dir && existsSync(join(dir, 'initdb'))) return dir;
  throw new Error('no PostgreSQL server binaries found (install the Debian package postgresql)');
}

/** The command prefix that runs a server binary as a user PostgreSQL accepts. */
function serverUser(root: string): string[] {
  if (process.getuid?.() !== 0) return [];
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (id.status !== 0 || gid.status !== 0) {
    throw new Error('running as root and there is no postgres OS user to run the server as');
  }
  chownSync(root, Number(id.stdout.trim()), Number(gid.stdout.trim()));
  return ['runuser', '-u', 'postgres', '--'];
}

function run(prefix: string[], cmd: string, args: string[]): void {
  const r = runStatus(prefix, cmd, args);
  if (!r.ok) throw new Error(`${cmd} failed: ${r.output}`);
}

function runStatus(prefix: string[], cmd: string, args: string[]): { ok: boolean; output: string } {
  const argv = [...prefix, cmd, ...args];
  const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8', timeout: 120_000 });
  return {
    ok: r.status === 0,
    output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`,
  };
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '';
  }
}
