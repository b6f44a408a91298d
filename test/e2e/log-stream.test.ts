import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const logger = pathToFileURL(join(ROOT, 'dist', 'src/http/logger.js')).href;

/** A process with a listener's logger (the built one), running `then` after its first line. */
const script = (then: string) => `
  const { default: Fastify } = await import('fastify');
  const { loggerOptions } = await import(${JSON.stringify(logger)});
  const app = Fastify({ logger: loggerOptions(undefined) });
  app.log.info({ marker: 'first' }, 'logged');
  ${then}
`;

const parsed = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

// The daemon's log lines are written a turn of the event loop at a time (src/http/log-stream.ts):
// never held past that turn, and never lost to a normal exit.
describe('the listeners’ log stream', () => {
  it('writes a line logged just before process.exit, in the same turn', () => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script('process.exit(0);')], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(parsed(r.stdout)).toContainEqual(expect.objectContaining({ marker: 'first', msg: 'logged' }));
  });

  it('writes a line of an idle process at once, not when a buffer fills or the process ends', async () => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', script('setTimeout(() => process.exit(0), 60_000);')],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      const line = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line within 10 s; stdout: ${out}`)), 10_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) {
            clearTimeout(timer);
            resolve(out);
          }
        });
      });
      expect(parsed(line)).toContainEqual(expect.objectContaining({ marker: 'first' }));
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
