import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDir, resolveDataDir, writeSecretFile } from '../../../src/store/data-dir.js';
import { tmpDir } from '../../helpers/tmp.js';

describe('data dir', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it('resolves --data-dir, else $SVC_HOME, else ./.svc', () => {
    expect(resolveDataDir('/x/flag', { SVC_HOME: '/x/env' }, '/cwd')).toBe('/x/flag');
    expect(resolveDataDir('rel', { SVC_HOME: '/x/env' }, '/cwd')).toBe('/cwd/rel');
    expect(resolveDataDir(undefined, { SVC_HOME: '/x/env' }, '/cwd')).toBe('/x/env');
    expect(resolveDataDir(undefined, { SVC_HOME: '' }, '/cwd')).toBe('/cwd/.svc');
    expect(resolveDataDir(undefined, {}, '/cwd')).toBe('/cwd/.svc');
  });

  it('writes secrets owner-only and never over an existing file', () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    const file = join(t.path, 'keys', 'k.pem');
    writeSecretFile(file, 'secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.path, 'keys')).mode & 0o777).toBe(0o700);
    expect(() => writeSecretFile(file, 'other')).toThrow(/already exists/);
    expect(readFileSync(file, 'utf8')).toBe('secret');
  });

  it('says how to initialise when the store is missing', async () => {
    const t = tmpDir();
    cleanup = t.cleanup;
    await expect(new DataDir(join(t.path, 'nothing')).openStore()).rejects.toThrow(/no svc data dir/);
  });
});
