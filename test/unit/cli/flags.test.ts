import { Parser } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import CapabilityRegister from '../../../commands/capability/register.js';
import ConsoleStart from '../../../commands/console/start.js';
import DaemonStart from '../../../commands/daemon/start.js';
import TaskShow from '../../../commands/task/show.js';
import TokenIssue from '../../../commands/token/issue.js';
import WitnessServe from '../../../commands/witness/serve.js';
import { asSvcError, exitCodeFor } from '../../../src/cli/exit-codes.js';
import type { SvcError } from '../../../src/core/errors.js';

type FlagSet = NonNullable<Parameters<typeof Parser.parse>[1]['flags']>;
type Cmd = { flags: FlagSet; baseFlags?: FlagSet };

/** oclif's own parser over a command's flags, as `this.parse` runs it. */
async function parse(cmd: Cmd, argv: string[]): Promise<Record<string, unknown>> {
  const r = await Parser.parse(argv, { flags: { ...cmd.baseFlags, ...cmd.flags }, strict: true });
  return r.flags as Record<string, unknown>;
}

/** The error a command would report for argv: coded, with its exit code. */
async function refusal(cmd: Cmd, argv: string[]): Promise<{ error: SvcError; exit: number }> {
  const err = await parse(cmd, argv).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (err === undefined) throw new Error(`${argv.join(' ')} was accepted`);
  const error = asSvcError(err);
  return { error, exit: exitCodeFor(error) };
}

describe('flag relationships', () => {
  for (const cmd of [DaemonStart, ConsoleStart, WitnessServe]) {
    it(`${cmd.name}: --tls-cert and --tls-key go together, and neither with --allow-insecure-http`, async () => {
      const extra = cmd === WitnessServe ? ['--key-file', 'w.pem', '--state', 's.json'] : [];
      const alone = await refusal(cmd, ['--tls-cert', 'c.pem', ...extra]);
      expect(alone.exit).toBe(2);
      expect(alone.error.reason).toContain(
        'All of the following must be provided when using --tls-cert: --tls-key',
      );
      const keyAlone = await refusal(cmd, ['--tls-key', 'k.pem', ...extra]);
      expect(keyAlone.error.reason).toContain('must be provided when using --tls-key: --tls-cert');
      const both = await refusal(cmd, [
        '--allow-insecure-http',
        '--tls-cert',
        'c.pem',
        '--tls-key',
        'k.pem',
        ...extra,
      ]);
      expect(both.exit).toBe(2);
      expect(both.error.reason).toMatch(
        /--tls-(cert|key)=\S+ cannot also be provided when using --allow-insecure-http/,
      );
      const pair = await parse(cmd, ['--tls-cert', 'c.pem', '--tls-key', 'k.pem', ...extra]);
      expect(pair).toMatchObject({ 'tls-cert': 'c.pem', 'tls-key': 'k.pem' });
    });
  }

  it('daemon start: --client-ca is mutual TLS, so not with --allow-insecure-http', async () => {
    const r = await refusal(DaemonStart, ['--allow-insecure-http', '--client-ca', 'ca.pem']);
    expect(r.error.reason).toContain(
      '--client-ca=ca.pem cannot also be provided when using --allow-insecure-http',
    );
  });

  it('capability register: --surface and --operation go together', async () => {
    const base = ['--tenant', 'acme', '--name', 'mail.send', '--tier', '2', '--actions', 'write'];
    const r = await refusal(CapabilityRegister, [...base, '--custody', 'brokered', '--surface', 'mailer']);
    expect(r.error.reason).toContain('must be provided when using --surface: --operation');
  });
});

describe('typed flag values, parsed once and refused naming the flag', () => {
  it('--tenant is a slug', async () => {
    const r = await refusal(TaskShow, ['--tenant', 'Acme Corp', '--id', 't1']);
    expect(r.exit).toBe(2);
    expect(r.error.field).toBe('tenant');
    expect(r.error.reason).toMatch(/^tenant: expected a slug of 1 to 63 characters/);
    expect(await parse(TaskShow, ['--tenant', 'acme', '--id', 't1'])).toMatchObject({ tenant: 'acme' });
  });

  it('--tier is a whole number from 0 to 9', async () => {
    const base = ['--tenant', 'acme', '--name', 'x', '--actions', 'read'];
    for (const bad of ['12', '-1', 'high', '1.5']) {
      const r = await refusal(CapabilityRegister, [...base, '--tier', bad]);
      expect(r.exit).toBe(2);
      expect(r.error.field).toBe('tier');
      expect(r.error.reason).toBe('tier: expected an integer from 0 to 9');
    }
    expect(await parse(CapabilityRegister, [...base, '--tier', '9'])).toMatchObject({ tier: 9 });
  });

  it('--ttl and --anchor-interval become milliseconds within their bounds', async () => {
    const base = ['--tenant', 'acme', '--actor', 'bot'];
    expect(await parse(TokenIssue, [...base, '--ttl', '12h'])).toMatchObject({ ttl: 43_200_000 });
    expect((await parse(TokenIssue, base)).ttl).toBeUndefined();
    const long = await refusal(TokenIssue, [...base, '--ttl', '3651d']);
    expect(long.exit).toBe(2);
    expect(long.error.field).toBe('ttl');
    expect(long.error.reason).toBe('ttl: expected a duration between 1s and 3650d');
    const word = await refusal(TokenIssue, [...base, '--ttl', 'forever']);
    expect(word.error.reason).toBe('ttl: expected a duration such as 90d, 12h, 30m or 45s');

    expect(await parse(DaemonStart, [])).toMatchObject({ 'anchor-interval': 300_000 });
    expect(await parse(DaemonStart, ['--anchor-interval', '30s'])).toMatchObject({
      'anchor-interval': 30_000,
    });
    const slow = await refusal(DaemonStart, ['--anchor-interval', '2d']);
    expect(slow.error.field).toBe('anchor-interval');
    expect(slow.error.reason).toBe('anchor-interval: expected a duration between 1s and 1d');
  });
});
