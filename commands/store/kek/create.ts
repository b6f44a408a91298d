import { Flags } from '@oclif/core';
import { SvcCommand } from '../../../src/cli/base-command.js';
import { createKekFile } from '../../../src/store/kek.js';

interface KekCreateResult {
  kek_id: string;
  file: string;
}

export default class StoreKekCreate extends SvcCommand {
  static override summary = 'Make a key-encryption key file (32 random bytes, mode 0600) for --kek-file.';
  static override description =
    'The KEK seals signing keys and the secret key in a PostgreSQL store; it is never written to the database. Give each replica its own copy through your secret distribution (not the database host). Its id, printed here, is what sealed rows and error messages name.';
  static override examples = ['<%= config.bin %> store kek create --out /etc/svc/kek-2026.key'];
  static override flags = {
    out: Flags.string({ summary: 'Where to write the KEK (refused if the file exists).', required: true }),
  };

  async run(): Promise<KekCreateResult> {
    const { flags } = await this.parse(StoreKekCreate);
    const id = createKekFile(flags.out);
    this.show(() => `Wrote ${flags.out} (mode 0600): key-encryption key ${id}`);
    return { kek_id: id, file: flags.out };
  }
}
