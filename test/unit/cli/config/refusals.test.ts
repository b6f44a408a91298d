import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import DaemonStart from '../../../../commands/daemon/start.js';
import WitnessServe from '../../../../commands/witness/serve.js';
import { effectiveSettings, oclifParse } from '../../../../src/cli/config/config-sources.js';
import { exitCodeFor } from '../../../../src/cli/exit-codes.js';
import { SvcError } from '../../../../src/core/errors.js';
import { tmpDir } from '../../../helpers/tmp.js';

const dir = tmpDir('svc-config-refusals-');
afterAll(() => dir.cleanup());
let n = 0;

/** The refusal of a daemon configuration file with this text (and these variables). */
async function refusal(text: string, env: NodeJS.ProcessEnv = {}, cmd = DaemonStart): Promise<SvcError> {
  const name = `r${n++}.yaml`;
  writeFileSync(join(dir.path, name), text, { mode: 0o600 });
  const err = await effectiveSettings(cmd, ['--config', name], env, oclifParse(cmd), { cwd: dir.path }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof SvcError)) throw new Error(`not refused with a coded error: ${String(err)}`);
  return err;
}

describe('a configuration file is refused, every problem named with its key', () => {
  it('an unknown key, with the key it is close to', async () => {
    const err = await refusal('listen: 127.0.0.1:0\nmetrics-lsten: 127.0.0.1:9464\nfrobnicate: 1\n');
    expect(err.code).toBe('usage');
    expect(exitCodeFor(err)).toBe(2);
    expect(err.reason).toBe(
      [
        `config r${n - 1}.yaml: metrics-lsten: unknown key; did you mean metrics-listen? (line 2)`,
        `config r${n - 1}.yaml: frobnicate: unknown key (line 3)`,
      ].join('\n'),
    );
  });

  it('a wrong type names the key, what it takes and what it got', async () => {
    const err = await refusal(
      [
        'metrics-listen: 8080',
        'anchor-entries: "10"',
        'allow-insecure-http: yes',
        'witness: http://127.0.0.1:1=w=k',
        'max-connections: 1.5',
        'header-timeout: 10',
        'tls-cert:',
      ].join('\n'),
    );
    const file = `config r${n - 1}.yaml`;
    expect(err.reason.split('\n')).toEqual([
      `${file}: metrics-listen: expected a string HOST:PORT, got 8080 (line 1)`,
      `${file}: anchor-entries: expected an integer of at least 1, got "10" (line 2)`,
      `${file}: allow-insecure-http: expected true or false, got "yes" (line 3)`,
      `${file}: witness: expected a list, each item a string URL=ID=KEY, got "http://127.0.0.1:1=w=k" (line 4)`,
      `${file}: max-connections: expected an integer of at least 1, got 1.5 (line 5)`,
      `${file}: header-timeout: expected a duration such as 90d, 12h, 30m or 45s, got 10 (line 6)`,
      `${file}: tls-cert: expected a file path (a string), got an empty value (line 7)`,
    ]);
  });

  it("values are held to the flag's own bounds and forms", async () => {
    const err = await refusal(
      'anchor-interval: 2d\nrequest-timeout: 2h\nlisten: "nowhere"\nwitness: [1]\nanchor-entries: 0\n',
    );
    const file = `config r${n - 1}.yaml`;
    expect(err.reason.split('\n')).toEqual([
      `${file}: anchor-interval: expected a duration between 1s and 1d, got "2d" (line 1)`,
      `${file}: request-timeout: expected a duration between 1s and 1h, got "2h" (line 2)`,
      `${file}: listen: expected HOST:PORT, such as 127.0.0.1:8090 or [::1]:8090, got "nowhere" (line 3)`,
      `${file}: witness[0]: expected a string URL=ID=KEY, got 1 (line 4)`,
      `${file}: anchor-entries: expected an integer of at least 1, got 0 (line 5)`,
    ]);
  });

  it('a key given twice', async () => {
    const err = await refusal('listen: 127.0.0.1:1\nanchor-entries: 5\nlisten: 127.0.0.1:2\n');
    expect(err.reason).toBe(`config r${n - 1}.yaml: listen: given twice (line 3)`);
  });

  it('a top level that is not a mapping, and a second document', async () => {
    expect((await refusal('- listen\n- 127.0.0.1:0\n')).reason).toBe(
      `config r${n - 1}.yaml: expected a mapping of keys (key: value) at the top level (line 1)`,
    );
    expect((await refusal('just text\n')).reason).toContain('expected a mapping of keys');
    expect((await refusal('listen: 127.0.0.1:0\n---\nlisten: 127.0.0.1:1\n')).reason).toMatch(
      /multiple documents/i,
    );
  });

  it('an alias bomb is refused before it expands', async () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 8; i++) {
      const prev = String.fromCharCode(97 + i);
      const next = String.fromCharCode(98 + i);
      lines.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }
    const err = await refusal(lines.join('\n'));
    expect(err.reason).toMatch(/alias/i);
  });

  it('a file over 1 MiB, before it is parsed', async () => {
    const err = await refusal(`# ${'x'.repeat(1 << 20)}\n`);
    expect(err.reason).toMatch(/is larger than 1048576 bytes/);
  });

  it('a file every user of the machine may write', async () => {
    const name = `r${n++}.yaml`;
    writeFileSync(join(dir.path, name), 'listen: 127.0.0.1:0\n');
    chmodSync(join(dir.path, name), 0o646);
    const err = await effectiveSettings(DaemonStart, ['--config', name], {}, oclifParse(DaemonStart), {
      cwd: dir.path,
    }).then(
      () => undefined,
      (e: unknown) => e as SvcError,
    );
    expect(err?.reason).toBe(
      `config ${name}: the file is writable by every user of this machine; run chmod o-w ${name}`,
    );
  });

  it('a file that does not exist', async () => {
    const err = await effectiveSettings(
      DaemonStart,
      ['--config', 'missing.yaml'],
      {},
      oclifParse(DaemonStart),
      {
        cwd: dir.path,
      },
    ).then(
      () => undefined,
      (e: unknown) => e as SvcError,
    );
    expect(err?.reason).toBe(`config: ${join(dir.path, 'missing.yaml')} does not exist`);
  });
});

describe('a bad SVC_* variable is refused naming the variable', () => {
  it('booleans take true, false, 1 or 0 only; integers and lists their form', async () => {
    const err = await refusal('', {
      SVC_ALLOW_INSECURE_HTTP: 'yes',
      SVC_ANCHOR_ENTRIES: '1e3',
      SVC_METRICS_LISTEN: '9464',
      SVC_WITNESS: 'http://127.0.0.1:1=w=k,,',
      SVC_ANCHOR_INTERVAL: '2d',
    });
    expect(err.reason.split('\n')).toEqual([
      'env SVC_ALLOW_INSECURE_HTTP: expected true, false, 1 or 0, got "yes"',
      'env SVC_ANCHOR_INTERVAL: expected a duration between 1s and 1d, got "2d"',
      'env SVC_ANCHOR_ENTRIES: expected an integer of at least 1, got "1e3"',
      'env SVC_WITNESS: item 2 of the comma-separated list: expected a string URL=ID=KEY, got an empty string',
      'env SVC_METRICS_LISTEN: expected HOST:PORT, such as 127.0.0.1:8090 or [::1]:8090, got "9464"',
    ]);
  });

  it('the witness reads its own keys: SVC_KEY_FILE and SVC_STATE satisfy its required flags', async () => {
    const s = await effectiveSettings(
      WitnessServe,
      [],
      { SVC_KEY_FILE: 'w.pem', SVC_STATE: 's.json', SVC_LOG_KEY: 'acme=k1,beta=k2' },
      oclifParse(WitnessServe),
    );
    expect(s.flags).toMatchObject({
      'key-file': 'w.pem',
      state: 's.json',
      'log-key': ['acme=k1', 'beta=k2'],
    });
    const missing = await effectiveSettings(WitnessServe, [], {}, oclifParse(WitnessServe)).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(missing?.message).toMatch(/Missing required flag key-file/);
  });
});
