import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { BIN, ROOT } from './cli.js';
import { tmpDir } from './tmp.js';

/** Debian's chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = join(ROOT, 'test', 'artifacts', 'console');

/**
 * The SPKI pin of a certificate, for `--ignore-certificate-errors-spki-list`: the browser
 * then trusts exactly the deployment certificate, as `SVC_CA_CERT` does for the CLI.
 */
export function spkiPin(certPem: string | Buffer): string {
  const spki = createPublicKey(certPem).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

/** Headless chromium with an empty user data dir, trusting only the pinned certificate. */
export async function launchChromium(
  pin: string,
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = tmpDir('svc-chromium-');
  const context = await chromium.launchPersistentContext(profile.path, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      `--ignore-certificate-errors-spki-list=${pin}`,
    ],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    context,
    close: async () => {
      await context.close();
      profile.cleanup();
    },
  };
}

export const chromiumAvailable = (): boolean => existsSync(CHROMIUM);

export interface ConsoleProcess {
  url: string;
  child: ChildProcess;
  /** everything it printed on stderr so far */
  stderr: () => string;
  /** its log lines (pino JSON, one a line) so far */
  stdout: () => string;
  stop: () => Promise<number | null>;
}

/** Start `svc console start` (the built binary) and wait until it says where it listens. */
export function startConsoleProcess(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<ConsoleProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'console', 'start', '--listen', '127.0.0.1:0', ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    const exited = new Promise<number | null>((res) => child.on('close', (code) => res(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`console did not start: ${err}`));
    }, 20_000);
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => {
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
            return exited;
          },
        });
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`console exited ${code}: ${err}`));
    });
  });
}

export const readText = (path: string) => readFileSync(path, 'utf8');

/** Collects the page's script errors and Content-Security-Policy refusals into `errors`: a test ends expecting none. */
export function watchPageErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text()))
      errors.push(msg.text());
  });
}

/** A process whose stdout is pino JSON log lines: the console's or the daemon's. */
export interface LoggingProcess {
  stdout: () => string;
}

/**
 * The log lines at error level or above (pino level >= 50) of each named process, each
 * followed by the completion line of the same request (which names its method, path and
 * status); a request answered 500 is named even when its error line carries only its id.
 */
export function errorLogLines(procs: Record<string, LoggingProcess | undefined>): string[] {
  const lines: string[] = [];
  for (const [name, proc] of Object.entries(procs)) {
    const logged = (proc?.stdout() ?? '').split('\n').flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { level?: number; reqId?: string; res?: unknown } | null;
        return typeof entry === 'object' && entry !== null ? [{ line, entry }] : [];
      } catch {
        return [];
      }
    });
    const failed = new Set<string>();
    for (const { line, entry } of logged) {
      const reqId = entry.reqId;
      const serious = (entry.level ?? 0) >= 50;
      if (serious && reqId !== undefined) failed.add(reqId);
      if (serious || (reqId !== undefined && failed.has(reqId) && entry.res !== undefined))
        lines.push(`${name}: ${line}`);
    }
  }
  return lines;
}

/**
 * Expects that no page had a script error or a CSP refusal (see `watchPageErrors`); when one
 * did, the failure also prints what the servers logged at error level, so a reply the page
 * choked on (a 500, say) is named by its route and its error.
 */
export function expectNoPageErrors(
  errors: string[],
  procs: Record<string, LoggingProcess | undefined>,
): void {
  if (errors.length === 0) return;
  const logged = errorLogLines(procs);
  expect(
    errors,
    `script errors on the page; the servers logged at error level:\n${logged.length ? logged.join('\n') : '(nothing)'}\n`,
  ).toEqual([]);
}

/**
 * Signs in with `token` on the console, landing on `hash`: whoever is signed in is signed out
 * first, and it returns once the console's shell shows. A sign-in that does not get there
 * fails here, with what the page shows and what the console process printed, instead of as a
 * later step's timeout.
 */
export async function signInAs(page: Page, server: ConsoleProcess, token: string, hash = ''): Promise<void> {
  await page.goto(`${server.url}/${hash}`);
  // The page first asks whether a session is still open: wait for its answer either way.
  await page.locator('#token, #sign-out').first().waitFor();
  if (await page.locator('#sign-out').count()) {
    await page.locator('#sign-out').click();
    await page.locator('#token').waitFor();
  }
  await page.locator('#token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  try {
    await page.locator('#sign-out').waitFor({ timeout: 20_000 });
  } catch (err) {
    const shown = await page
      .locator('body')
      .innerText()
      .catch(() => '(nothing)');
    throw new Error(
      `the sign-in did not reach the console; the page shows ${JSON.stringify(shown.slice(0, 600))}; the console printed:\n${server.stderr().slice(-3000)}\nand logged at error level:\n${errorLogLines({ console: server }).join('\n') || '(nothing)'}`,
      { cause: err },
    );
  }
}
