import { execFileSync } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * An operator's input file that is not a file of sensible size (finding 10): the built
 * binary refuses it from the opened descriptor's fstat, before reading, naming the flag;
 * /dev/zero and a FIFO without a writer used to read or wait forever.
 */
describe('svc policy set and svc theme install refuse what is not a regular file of sensible size', () => {
  const tmp = tmpDir('svc-input-files-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  const inputs: [string, string, RegExp][] = [];

  beforeAll(async () => {
    await runJson(['init', '--tenant', 'acme', '--admin', 'alice', '--yes'], env);
    const fifo = join(tmp.path, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const dir = join(tmp.path, 'dir');
    mkdirSync(dir);
    const sparse = join(tmp.path, 'sparse.img');
    writeFileSync(sparse, '');
    truncateSync(sparse, 150 * 1024 * 1024);
    inputs.push(
      ['/dev/zero', '/dev/zero', /is a character device, not a regular file/],
      ['a FIFO with no writer', fifo, /is a FIFO, not a regular file/],
      ['a directory', dir, /is a directory, not a regular file/],
      ['a 150 MB sparse file', sparse, /is larger than 1048576 bytes/],
    );
  });
  afterAll(() => tmp.cleanup());

  const refused = async (args: string[]) => {
    const r = await runSvc([...args, '--json'], env);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
    return (JSON.parse(r.stdout) as { error: { code: string; field: string; reason: string } }).error;
  };

  it('policy set --file: each refused naming the field, and no policy is stored', async () => {
    for (const [name, path, reason] of inputs) {
      const error = await refused(['policy', 'set', '--tenant', 'acme', '--file', path]);
      expect(error, name).toMatchObject({ code: 'invalid_request', field: 'file' });
      expect(error.reason, name).toMatch(reason);
    }
    const shown = await runSvc(['policy', 'show', '--tenant', 'acme'], env);
    expect(shown.code).toBe(3);
  });

  it('theme install FILE: each refused naming the field, and no theme is stored', async () => {
    for (const [name, path, reason] of inputs) {
      const error = await refused(['theme', 'install', path, '--tenant', 'acme']);
      expect(error, name).toMatchObject({ code: 'invalid_request', field: 'file' });
      expect(error.reason, name).toMatch(reason);
    }
  });
});
