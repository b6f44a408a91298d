import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../bench/wait-for.mjs';

const children: ReturnType<typeof spawn>[] = [];

/** A child node process running `code`. */
function child(code: string) {
  const p = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(p);
  return p;
}

afterEach(() => {
  for (const p of children.splice(0)) p.kill('SIGKILL');
});

describe('the bench’s wait for a child to come up', () => {
  it('resolves with the capture once the child prints it, on stdout or stderr', async () => {
    const out = child(
      `setTimeout(() => console.log('listening on http://127.0.0.1:1234'), 100); setInterval(() => {}, 1000);`,
    );
    await expect(waitFor(out, /listening on (\S+)/, 30_000)).resolves.toBe('http://127.0.0.1:1234');
    const err = child(`console.error('listening on http://127.0.0.1:99'); setInterval(() => {}, 1000);`);
    await expect(waitFor(err, /listening on (\S+)/, 30_000)).resolves.toBe('http://127.0.0.1:99');
  });

  it('rejects with what the child printed when it exits first', async () => {
    const dead = child(`console.error('cannot open the database'); process.exit(3);`);
    await expect(waitFor(dead, /listening on (\S+)/, 30_000)).rejects.toThrow(
      /exited 3: cannot open the database/,
    );
  });

  it('rejects when the child stays up but never says so, instead of waiting for ever', async () => {
    const silent = child(`console.log('starting'); setInterval(() => {}, 1000);`);
    await expect(waitFor(silent, /listening on (\S+)/, 300)).rejects.toThrow(
      /no match for \/listening on \(\\S\+\)\/ after 300 ms; the child printed: starting/,
    );
  });
});
