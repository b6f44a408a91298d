import { kekFlags } from '../src/cli/kek-flags.js';
import { pkcs11Flags } from '../src/cli/pkcs11-flags.js';
import { Flags } from '@oclif/core';
import chalk from 'chalk';
import { DataDirCommand, isInteractive } from '../src/cli/base-command.js';
import { initDataDir, type InitResult } from '../src/provisioning/init.js';
import type { DataDir } from '../src/store/data-dir.js';
import { tenantFlag } from '../src/cli/tenant-flag.js';

export default class Init extends DataDirCommand {
  static override summary =
    'Create a data dir: store, deployment TLS certificate, first tenant, its signing key and first administrator.';
  static override examples = [
    '<%= config.bin %> init --tenant acme --admin alice --yes',
    'SVC_HOME=/var/lib/svc <%= config.bin %> init --tenant acme --admin alice --json',
  ];
  static override flags = {
    tenant: tenantFlag({ summary: 'Id of the first tenant (a slug).' }),
    admin: Flags.string({ summary: 'Id of the first human administrator (a slug).' }),
    yes: Flags.boolean({ char: 'y', summary: 'Accept the defaults for anything not given; never prompt.' }),
    ...kekFlags,
    ...pkcs11Flags,
  };

  async run(): Promise<InitResult> {
    const { flags } = await this.parse(Init);
    const dir = this.dataDir(flags);
    let tenant = flags.tenant;
    let admin = flags.admin;
    if (
      !flags.yes &&
      !this.jsonEnabled() &&
      isInteractive() &&
      (tenant === undefined || admin === undefined)
    ) {
      const { input } = await import('@inquirer/prompts');
      tenant ??= await input({ message: 'Tenant id', default: 'default' });
      admin ??= await input({ message: 'First administrator id', default: 'admin' });
    }
    const result = await initDataDir(dir.root, {
      tenantId: tenant ?? 'default',
      adminId: admin ?? 'admin',
      now: new Date(),
      ...(dir.postgresUrl !== undefined ? { store: dir.postgresUrl } : {}),
      kek: dir.kek,
      pkcs11: dir.pkcs11,
    });
    this.log(`${chalk.green('Initialised')} ${result.data_dir}`);
    this.log(`  tenant          ${result.tenant_id}`);
    this.log(`  administrator   ${result.admin_id}`);
    this.log(`  signing key     ${result.key_id}  ${result.public_key}${keyPlace(dir)}`);
    this.log(`  TLS certificate ${result.ca_cert} (clients trust this file: SVC_CA_CERT)`);
    this.log('');
    this.log(`Administrator token (shown once, store it now):\n  ${chalk.bold(result.admin_token)}`);
    return result;
  }
}

/** Where the new key's private half went, when not a file in the data dir. */
function keyPlace(dir: DataDir): string {
  const token = dir.tokenSettings;
  if (token) return ` (in the PKCS#11 token ${token.label}, not extractable)`;
  return dir.kek.kekFile !== undefined ? ' (sealed in the database under --kek-file)' : '';
}
