import { execFileSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CredentialResolver } from '../../../src/integration/credentials.js';
import type { SecretRepo } from '../../../src/store/integration-ports.js';
import { tmpDir } from '../../helpers/tmp.js';

describe('file: credential references', () => {
  let tmp: { path: string; cleanup: () => void };
  // file: references never reach the secret store or its key
  const resolver = () =>
    new CredentialResolver({} as SecretRepo, () => {
      throw new Error('no secret box for file references');
    });
  beforeEach(() => {
    tmp = tmpDir();
  });
  afterEach(() => tmp.cleanup());

  it('reads a credential file, without its final newline', async () => {
    const file = join(tmp.path, 'token');
    writeFileSync(file, 's3cret\n');
    expect(await resolver().resolve('acme', `file:${file}`)).toEqual({ ok: true, value: 's3cret' });
  });

  it('refuses /dev/zero, a FIFO and a large file at once, naming the path and never the content', async () => {
    const fifo = join(tmp.path, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const big = join(tmp.path, 'big');
    writeFileSync(big, '');
    truncateSync(big, 150 * 1024 * 1024);
    for (const [path, reason] of [
      ['/dev/zero', /\/dev\/zero is a character device, not a regular file/],
      [fifo, /fifo is a FIFO, not a regular file/],
      [big, /big is larger than 65536 bytes/],
    ] as const) {
      const r = await resolver().resolve('acme', `file:${path}`);
      expect(r).toMatchObject({ ok: false, problem: expect.stringMatching(reason) });
    }
  });
});
