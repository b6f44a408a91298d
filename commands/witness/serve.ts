import { Flags } from '@oclif/core';
import { SvcCommand } from '../../src/cli/base-command.js';
import { untilSignal } from '../../src/cli/signals.js';
import { witnessKey } from '../../src/witness/key-file.js';
import { parseLogKeys } from '../../src/witness/log-keys.js';

export default class WitnessServe extends SvcCommand {
  static override summary =
    'Run an HTTP witness that cosigns the tree heads of the logs it pins, until SIGTERM or SIGINT.';
  static override description =
    "Per log it keeps the last head it cosigned in --state (written atomically and fsynced before a cosignature is returned) and cosigns a new head only when it verifies under that log's pinned key and an RFC 6962 consistency proof from the last head checks. Rollbacks, forks and bad proofs are refused and change nothing.";
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> witness serve --listen 127.0.0.1:8095 --key-file witness.pem --state witness-state.json --log-key acme=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=',
  ];
  static override flags = {
    listen: Flags.string({
      summary: 'Address to listen on (host:port; port 0 picks a free one).',
      default: '127.0.0.1:8095',
    }),
    'key-file': Flags.string({
      summary: 'The witness private key (`svc witness key` makes one).',
      required: true,
    }),
    state: Flags.string({ summary: 'The state file: the last head cosigned per log.', required: true }),
    'log-key': Flags.string({
      summary:
        'LOG=KEY: a log to witness (its log id, or the tenant id it derives from) and its pinned public key. Repeatable.',
      multiple: true,
    }),
    id: Flags.string({ summary: 'The witness id in its cosignatures (default: its key id).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(WitnessServe);
    const stopSignal = untilSignal();
    const logKeys = parseLogKeys(flags['log-key'] ?? []);
    const { key } = witnessKey(flags['key-file'], { create: false });
    const { LogWitness } = await import('../../src/witness/witness.js');
    const { buildWitnessApp, listenWitness } = await import('../../src/witness/server.js');
    const witness = new LogWitness({
      privateKey: key,
      stateFile: flags.state,
      logKeys,
      ...(flags.id !== undefined ? { witnessId: flags.id } : {}),
    });
    const app = buildWitnessApp(witness, { logger: true });
    const url = await listenWitness(app, flags.listen);
    if (logKeys.size === 0) this.logToStderr('warning: no --log-key given: every head will be refused');
    this.logToStderr(`svc witness ${witness.id} listening on ${url} (${logKeys.size} logs)`);
    const signal = await stopSignal;
    this.logToStderr(`svc witness stopping (${signal})`);
    await app.close();
  }
}
