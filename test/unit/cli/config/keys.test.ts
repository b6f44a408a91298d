import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Flags } from '@oclif/core';
import { afterAll, describe, expect, it } from 'vitest';
import ConsoleStart from '../../../../commands/console/start.js';
import DaemonStart from '../../../../commands/daemon/start.js';
import WitnessServe from '../../../../commands/witness/serve.js';
import { REDACTED, redactText } from '../../../../src/cli/config/config-redaction.js';
import { renderEffective, renderExample } from '../../../../src/cli/config/config-render.js';
import { allFlags, configKeys, META_FLAGS, STRING_KINDS } from '../../../../src/cli/config/config-key.js';
import {
  checkConfig,
  defaultSettings,
  effectiveSettings,
  oclifParse,
} from '../../../../src/cli/config/config-sources.js';
import { tmpDir } from '../../../helpers/tmp.js';

const dir = tmpDir('svc-config-keys-');
afterAll(() => dir.cleanup());

const COMMANDS = {
  'daemon start': DaemonStart,
  'console start': ConsoleStart,
  'witness serve': WitnessServe,
};

describe('every flag has a key', () => {
  for (const [name, cmd] of Object.entries(COMMANDS)) {
    it(`svc ${name}: a key per flag, named as the flag, typed from it`, () => {
      const keys = new Map(configKeys(cmd).map((k) => [k.name, k]));
      for (const [flag, def] of Object.entries(allFlags(cmd))) {
        if (META_FLAGS.has(flag)) {
          expect(keys.has(flag), `--${flag} steers the command: no key`).toBe(false);
          continue;
        }
        const key = keys.get(flag);
        expect(key, `--${flag} has no key in the configuration file`).toBeDefined();
        expect(key!.list).toBe(Boolean((def as { multiple?: boolean }).multiple));
        expect(key!.type === 'boolean').toBe(def.type === 'boolean');
        if (key!.type === 'string') {
          expect(
            STRING_KINDS[flag],
            `--${flag}: say in STRING_KINDS what it holds (a path? a secret?)`,
          ).toBeDefined();
        }
      }
      expect(allFlags(cmd)).toHaveProperty('config');
      expect(allFlags(cmd)).toHaveProperty('print-config');
    });
  }

  it('variables are SVC_ and the key, except data-dir, which keeps SVC_HOME', () => {
    const keys = new Map(configKeys(DaemonStart).map((k) => [k.name, k.env]));
    expect(keys.get('metrics-listen')).toBe('SVC_METRICS_LISTEN');
    expect(keys.get('max-open-approvals-per-actor')).toBe('SVC_MAX_OPEN_APPROVALS_PER_ACTOR');
    expect(keys.get('store')).toBe('SVC_STORE');
    expect(keys.get('data-dir')).toBe('SVC_HOME');
    expect(configKeys(DaemonStart).find((k) => k.name === 'anchor-entries')).toMatchObject({
      type: 'integer',
      min: 1,
    });
  });
});

describe('svc config example', () => {
  for (const [name, cmd] of Object.entries(COMMANDS)) {
    it(`svc ${name}: as printed it checks, and with every default uncommented it still does`, async () => {
      const example = renderExample(name, await defaultSettings(cmd));
      const path = join(dir.path, `${name.replace(' ', '-')}.yaml`);
      writeFileSync(path, example);
      expect(await checkConfig(cmd, path, dir.path)).toMatchObject({ keys: 0, problems: [] });
      for (const key of configKeys(cmd)) expect(example).toContain(`# ${key.name}:`);
      const uncommented = example.replace(/^# ([a-z-]+: .+)$/gm, '$1');
      writeFileSync(path, uncommented);
      const r = await checkConfig(cmd, path, dir.path);
      expect(r.problems).toEqual([]);
      const defaulted = (await defaultSettings(cmd)).filter((s) => s.value !== undefined);
      expect(r.keys).toBe(defaulted.length);
    });
  }
});

describe('redaction', () => {
  it('a password in a URL, in its authority or its query, and nothing else', () => {
    expect(redactText('postgres://svc:hunter2@db.example:5432/svc')).toBe(
      `postgres://svc:${REDACTED}@db.example:5432/svc`,
    );
    expect(redactText('postgresql://svc@db/svc?sslmode=require&password=hunter2')).toBe(
      `postgresql://svc@db/svc?sslmode=require&password=${REDACTED}`,
    );
    expect(redactText('https://u:p%40ss@w.example=w1=0y7X88EwmgvP1RMkF+Set8FXqPz8V7VxNvqfNgYW4eM=')).toBe(
      `https://u:${REDACTED}@w.example=w1=0y7X88EwmgvP1RMkF+Set8FXqPz8V7VxNvqfNgYW4eM=`,
    );
    // An unencoded `/` or `@` in the password still hides all of it.
    expect(redactText('postgres://svc:hun/ter@2@db/svc')).toBe(`postgres://svc:${REDACTED}@db/svc`);
    expect(redactText('sqlite')).toBe('sqlite');
    expect(redactText('http://127.0.0.1:8095=w=k')).toBe('http://127.0.0.1:8095=w=k');
    expect(redactText('https://tsa.example/tsr')).toBe('https://tsa.example/tsr');
  });

  it('--print-config shows where each value came from and never a secret', async () => {
    const path = join(dir.path, 'secret.yaml');
    writeFileSync(
      path,
      'store: postgres://svc:hunter2@db.example/svc\ntsa-url: https://tsa:s3cr3t@tsa.example/tsr\nanchor-entries: 5\n',
    );
    const s = await effectiveSettings(
      DaemonStart,
      ['--config', path, '--listen', '127.0.0.1:0'],
      { SVC_WITNESS: 'https://w:pw9@w.example=w1=0y7X88EwmgvP1RMkF+Set8FXqPz8V7VxNvqfNgYW4eM=' },
      oclifParse(DaemonStart),
    );
    const text = renderEffective('daemon start', s);
    for (const secret of ['hunter2', 's3cr3t', 'pw9']) expect(text).not.toContain(secret);
    expect(text).toContain(`store: postgres://svc:${REDACTED}@db.example/svc # file`);
    expect(text).toContain(`tsa-url: https://tsa:${REDACTED}@tsa.example/tsr # file`);
    expect(text).toContain('listen: 127.0.0.1:0 # flag');
    expect(text).toContain('anchor-entries: 5 # file');
    expect(text).toContain('anchor-interval: 5m # default');
    expect(text).toContain(`witness: # env SVC_WITNESS\n  - https://w:${REDACTED}@w.example=w1=`);
    expect(text).toContain('# tls-cert: (not set)');
    // What the daemon is handed is the real value.
    expect(s.flags.store).toBe('postgres://svc:hunter2@db.example/svc');
  });

  it('a key named as a credential is never shown, from any source', async () => {
    const cmd = { flags: { 'api-token': Flags.string({ summary: 'a token' }), name: Flags.string() } };
    const keys = configKeys(cmd);
    expect(keys.find((k) => k.name === 'api-token')?.kind).toBe('secret');
    const s = await effectiveSettings(cmd, ['--api-token', 'tok-123456'], {}, oclifParse(cmd));
    expect(renderEffective('x', s)).toContain(`api-token: ${REDACTED} # flag`);
    expect(renderEffective('x', s)).not.toContain('tok-123456');
  });
});
