import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { leakScan } from './leak-scan.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/run.js', import.meta.url));

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment variables whose values are secrets: the leak scan remembers them. */
const SECRET_NAME = /SECRET|PASSWORD|PASSPHRASE|(^|_)TOKEN$/;

/**
 * Remember the secrets a spawned process is given (secret-named environment values and
 * `--from-file` contents), so no output of this test file may print them.
 */
function rememberSecrets(args: string[], env: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !SECRET_NAME.test(name)) continue;
    if (/^(\/|env:|file:|secret:)/.test(value)) continue;
    leakScan.remember(value, `the value of ${name}`);
  }
  const i = args.indexOf('--from-file');
  const file = i >= 0 ? args[i + 1] : undefined;
  if (file !== undefined) {
    try {
      leakScan.remember(readFileSync(file, 'utf8').replace(/\n$/, ''), `the contents of ${file}`);
    } catch {
      // the command itself reports an unreadable file
    }
  }
}

/** Run the built `svc` binary as a user would, with no TTY. */
export function runSvc(args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  rememberSecrets(args, env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      // A CLI may print a token it was asked to issue; never a secret it was given, nor a private key.
      try {
        leakScan.check(`${stdout}\n${stderr}`, `svc ${args.slice(0, 2).join(' ')}`, { tokens: false });
      } catch (err) {
        reject(err as Error);
        return;
      }
      resolve({ code, stdout, stderr });
    });
  });
}

export async function runJson<T = Record<string, unknown>>(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<T> {
  const r = await runSvc([...args, '--json'], env);
  if (r.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stdout} ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export interface DaemonProcess {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stdout: () => string;
  /** SIGTERM and wait for the exit code */
  stop: () => Promise<number | null>;
}

/** Start `svc daemon start` and wait until it says where it listens. */
export function startDaemonProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<DaemonProcess> {
  rememberSecrets(args, env);
  const listen = args.some((a) => /^--?listen(=|$)/.test(a)) ? [] : ['--listen', '127.0.0.1:0'];
  return startListener('daemon', ['daemon', 'start', ...listen, ...args], env);
}

/** Start `svc console start` and wait until it says where it listens. */
export function startConsoleProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<DaemonProcess> {
  rememberSecrets(args, env);
  return startListener('console', ['console', 'start', '--listen', '127.0.0.1:0', ...args], env);
}

/** Start `svc witness serve` and wait until it says where it listens. */
export function startWitnessProcess(args: string[]): Promise<DaemonProcess> {
  return startListener('witness', ['witness', 'serve', '--listen', '127.0.0.1:0', ...args], {});
}

/** Start `svc notify listen` and wait until it says where it listens. */
export function startNotifyListenProcess(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<DaemonProcess> {
  return startListener('notify listen', ['notify', 'listen', ...args], env);
}

/** Spawn a long-running command of the built binary and wait until it says where it listens. */
function startListener(
  what: string,
  argv: string[],
  env: Record<string, string | undefined>,
): Promise<DaemonProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const exited = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not start: ${err}`));
    }, 20_000);
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1] as string,
          child,
          stderr: () => err,
          stdout: () => out,
          stop: async () => {
            child.kill('SIGTERM');
            const code = await exited;
            // Whatever the process printed, tokens included, must hold no credential.
            leakScan.check(`${out}\n${err}`, `a ${what} process`);
            return code;
          },
        });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited ${code} before listening: ${err}`));
    });
  });
}
