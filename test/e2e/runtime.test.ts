import { spawnSync } from 'node:child_process';
import { Config } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';

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

/** bin/run.js answers `--version` itself, without loading oclif: it must say what oclif says. */
describe('svc --version', () => {
  it("prints oclif's own version line, and nothing else", async () => {
    const config = await Config.load(ROOT);
    const r = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${config.userAgent}\n`);
  });

  it('leaves every other first argument to oclif', () => {
    const r = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('VERSION');
    expect(r.stdout).toContain('COMMANDS');
  });
});
