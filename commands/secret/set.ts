import { kekFlags } from '../../src/cli/kek-flags.js';
import { Flags } from '@oclif/core';
import { DataDirCommand, isInteractive } from '../../src/cli/base-command.js';
import { SvcError } from '../../src/core/errors.js';
import { readTextFile } from '../../src/provisioning/text-file.js';
import { setSecret, type SecretResult } from '../../src/provisioning/secret.js';
import { tenantFlag } from '../../src/cli/tenant-flag.js';

const MAX_BYTES = 64 * 1024;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BYTES)
      throw new SvcError('invalid_request', `value: more than ${MAX_BYTES} bytes on stdin`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export default class SecretSet extends DataDirCommand {
  static override summary =
    'Store a credential for secret:NAME references, sealed (AES-256-GCM) under the data dir’s key file.';
  static override description =
    'The value is read from stdin, from --from-file, or from a hidden prompt on a terminal; never from a flag, so it stays out of shell history and process listings. Setting an existing name replaces its value from the next brokered call on.';
  static override examples = [
    'printf %s "$CRM_TOKEN" | <%= config.bin %> secret set --tenant acme --name crm-token',
    '<%= config.bin %> secret set --tenant acme --name crm-token --from-file ./crm-token.txt',
  ];
  static override flags = {
    tenant: tenantFlag({ required: true }),
    name: Flags.string({ summary: 'Secret name, referenced as secret:<name>.', required: true }),
    'from-file': Flags.string({ summary: 'Read the value from this file instead of stdin.' }),
    ...kekFlags,
  };

  async run(): Promise<SecretResult> {
    const { flags } = await this.parse(SecretSet);
    let value: string;
    if (flags['from-file'] !== undefined) {
      value = readTextFile('from-file', flags['from-file'], MAX_BYTES);
    } else if (process.stdin.isTTY) {
      if (!isInteractive()) throw new SvcError('usage', 'value: pipe it on stdin or pass --from-file');
      const { password } = await import('@inquirer/prompts');
      value = await password({ message: `Value of secret ${flags.name}`, mask: true });
    } else {
      value = await readStdin();
    }
    const r = await this.withStore(flags, (store, dir) =>
      setSecret(dir, store, { tenantId: flags.tenant, name: flags.name, value, now: new Date() }),
    );
    this.log(
      `${r.result === 'created' ? 'Stored' : 'Replaced'} secret ${r.name} in tenant ${r.tenant_id}; reference it as ${r.reference}`,
    );
    return r;
  }
}
