import { Flags } from '@oclif/core';
import { SvcCommand } from '../../src/cli/base-command.js';
import { serverLimitFlags } from '../../src/cli/server-limit-flags.js';
import { reloadSignal, untilSignal } from '../../src/cli/signals.js';
import { tlsReloaderFor, tlsReloadLine } from '../../src/http/tls-reload.js';
import { serverLimits } from '../../src/http/limits.js';
import { witnessKey } from '../../src/witness/key-file.js';
import { witnessTls } from '../../src/witness/listener-tls.js';
import { parseLogKeys } from '../../src/witness/log-keys.js';
import { configFlags } from '../../src/cli/config/config-flags.js';
import { renderEffective, sourceNote } from '../../src/cli/config/config-render.js';
import { effectiveSettings } from '../../src/cli/config/config-sources.js';

export default class WitnessServe extends SvcCommand {
  static override summary =
    'Run a witness that cosigns the tree heads of the logs it pins (TLS, or plain HTTP when asked), until SIGTERM or SIGINT.';
  static override description =
    "Per log it keeps the last head it cosigned in --state (written atomically and fsynced before a cosignature is returned) and cosigns a new head only when it verifies under that log's pinned key and an RFC 6962 consistency proof from the last head checks. Rollbacks, forks and bad proofs are refused and change nothing. Its listener takes the daemon's time-outs and connection cap.";
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> witness serve --listen 0.0.0.0:8095 --tls-cert witness-cert.pem --tls-key witness-key.pem --key-file witness.pem --state witness-state.json --log-key acme=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=',
    '<%= config.bin %> witness serve --listen 127.0.0.1:8095 --allow-insecure-http --key-file witness.pem --state witness-state.json --log-key acme=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=',
  ];
  static override flags = {
    ...configFlags,
    listen: Flags.string({
      summary: 'Address to listen on (host:port; port 0 picks a free one).',
      default: '127.0.0.1:8095',
    }),
    'tls-cert': Flags.string({
      dependsOn: ['tls-key'],
      summary: 'PEM certificate to serve TLS with.',
    }),
    'tls-key': Flags.string({ summary: 'PEM private key for --tls-cert.', dependsOn: ['tls-cert'] }),
    'allow-insecure-http': Flags.boolean({
      summary: 'Serve plain HTTP (cosignatures are signed, but a daemon cannot authenticate the channel).',
      allowNo: true,
      exclusive: ['tls-cert', 'tls-key'],
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
    ...serverLimitFlags,
  };

  async run(): Promise<void> {
    const s = await effectiveSettings(WitnessServe, this.argv, process.env, (argv) =>
      this.parse(WitnessServe, argv),
    );
    if (s.flags['print-config']) {
      this.log(renderEffective('witness serve', s));
      return;
    }
    const { flags } = s;
    const stopSignal = untilSignal();
    // Before the listener opens: Node's default for SIGHUP is to exit.
    const reload = reloadSignal(() =>
      this.logToStderr('svc witness: SIGHUP before the listener opened: ignored'),
    );
    const limits = serverLimits(flags);
    const https = witnessTls({
      tlsCert: flags['tls-cert'],
      tlsKey: flags['tls-key'],
      allowInsecureHttp: flags['allow-insecure-http'],
    });
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
    const app = buildWitnessApp(witness, { logger: true, limits, ...(https ? { https } : {}) });
    const url = await listenWitness(app, flags.listen, https !== undefined);
    if (https === undefined)
      this.logToStderr(
        `warning: serving plain HTTP (--allow-insecure-http${sourceNote(s.origins['allow-insecure-http'])})`,
      );
    if (logKeys.size === 0) this.logToStderr('warning: no --log-key given: every head will be refused');
    this.logToStderr(`svc witness ${witness.id} listening on ${url} (${logKeys.size} logs)`);
    const reloader = tlsReloaderFor(
      app,
      https ? { cert: flags['tls-cert'] as string, key: flags['tls-key'] as string } : undefined,
    );
    reload.attach(async () => this.logToStderr(tlsReloadLine('svc witness', await reloader.reload())));
    const signal = await stopSignal;
    this.logToStderr(`svc witness stopping (${signal})`);
    await app.close();
  }
}
