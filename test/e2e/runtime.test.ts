import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

/** The binary checks the runtime before loading anything that needs a current one. */
describe('svc on an unsupported Node.js', () => {
  const as = (version: string) =>
    spawnSync(
      process.execPath,
      [
        '--import',
        `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`,
        BIN,
        '--version',
      ],
      { encoding: 'utf8' },
    );

  it('says which version it needs instead of a stack trace', () => {
    for (const old of ['18.19.0', '20.18.3']) {
      const r = as(old);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(
        `svc needs Node.js 20.19 or newer; this is ${old}.\nInstall a current Node.js LTS release and run the command again.\n`,
      );
    }
  });

  it('runs on 20.19 and newer', () => {
    const r = as('20.19.0');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^svc\/\d+\.\d+\.\d+ /);
  });
});
