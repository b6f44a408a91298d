import { Flags } from '@oclif/core';
import { kekConfigFlags } from '../../src/cli/kek-flags.js';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { serverLimitFlags } from '../../src/cli/server-limit-flags.js';
import { reloadSignal, untilSignal } from '../../src/cli/signals.js';
import { tlsReloadLine } from '../../src/http/tls-reload.js';
import { serverLimits } from '../../src/http/limits.js';
import { metricsFlags, metricsListenFlags } from '../../src/cli/metrics-flags.js';
import { configFlags } from '../../src/cli/config/config-flags.js';
import { checkAllowPrivate } from '../../src/notify/outbound-address.js';
import { DEFAULT_OUTBOUND_POLICY } from '../../src/notify/outbound-policy.js';
import { renderEffective, sourceNote } from '../../src/cli/config/config-render.js';
import { effectiveSettings } from '../../src/cli/config/config-sources.js';

export default class ConsoleStart extends DataDirCommand {
  static override summary =
    'Run the operator console on its own listener (TLS by default, like the daemon) until SIGTERM or SIGINT.';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> console start',
    '<%= config.bin %> console start --config console.yaml',
    '<%= config.bin %> console start --listen 0.0.0.0:8091 --tls-cert cert.pem --tls-key key.pem',
    '<%= config.bin %> console start --listen 127.0.0.1:8091 --allow-insecure-http',
  ];
  static override flags = {
    ...configFlags,
    ...kekConfigFlags,
    listen: Flags.string({
      summary: 'Address to listen on (host:port; port 0 picks a free one).',
      default: '127.0.0.1:8091',
    }),
    'allow-insecure-http': Flags.boolean({
      summary: 'Serve plain HTTP. Tokens and session cookies then cross the network in clear text.',
      allowNo: true,
      exclusive: ['tls-cert', 'tls-key', 'client-ca'],
    }),
    'tls-cert': Flags.string({
      dependsOn: ['tls-key'],
      summary: 'PEM certificate (default: the deployment certificate from `svc init`).',
    }),
    'tls-key': Flags.string({ summary: 'PEM private key for --tls-cert.', dependsOn: ['tls-cert'] }),
    'client-ca': Flags.string({
      summary: 'PEM CA for mutual TLS: sign-in takes the client certificate; bearer tokens are refused.',
    }),
    'integration-ops': Flags.string({
      summary: 'Integration-operations document, so the Integrations page lists the configured surfaces.',
    }),
    'notify-allow-loopback-http': Flags.boolean({
      summary:
        'Let the Notifications page test a destination at http:// to a loopback address, as the daemon flag of the same name.',
      allowNo: true,
    }),
    'notify-allow-private': Flags.string({
      summary:
        'A CIDR, address or host name a test send may reach although private, as the daemon flag. Repeatable.',
      multiple: true,
    }),
    ...serverLimitFlags,
    ...metricsFlags,
  };

  async run(): Promise<void> {
    const s = await effectiveSettings(ConsoleStart, this.argv, process.env, (argv) =>
      this.parse(ConsoleStart, argv),
    );
    if (s.flags['print-config']) {
      this.log(renderEffective('console start', s));
      return;
    }
    const { flags } = s;
    const stopSignal = untilSignal();
    // Before the listener opens: Node's default for SIGHUP is to exit.
    const reload = reloadSignal(() =>
      this.logToStderr('svc console: SIGHUP before the listener opened: ignored'),
    );
    const limits = serverLimits(flags);
    // Loaded here, not at the top: `svc --version` must not pay for fastify and SQLite.
    const { startConsole } = await import('../../src/console/server.js');
    // The Policies page's replay runs the policy engine in a hot loop, as the daemon does.
    const { avoidJsToWasmInliningCrash } = await import('../../src/daemon/v8-workaround.js');
    avoidJsToWasmInliningCrash();
    const dir = this.dataDir(flags);
    const metrics = metricsListenFlags(flags);
    const running = await startConsole({
      ...(metrics ? { metrics } : {}),
      dataDir: dir.root,
      kek: dir.kek,
      ...(dir.postgresUrl !== undefined ? { store: dir.postgresUrl } : {}),
      listen: flags.listen,
      allowInsecureHttp: flags['allow-insecure-http'],
      limits,
      ...(flags['tls-cert'] !== undefined ? { tlsCert: flags['tls-cert'] } : {}),
      ...(flags['tls-key'] !== undefined ? { tlsKey: flags['tls-key'] } : {}),
      ...(flags['client-ca'] !== undefined ? { clientCa: flags['client-ca'] } : {}),
      ...(flags['integration-ops'] !== undefined ? { integrationOps: flags['integration-ops'] } : {}),
      // The daemon's outbound rules, so a test send from the page reaches what a delivery would.
      notifyOutbound: {
        ...DEFAULT_OUTBOUND_POLICY,
        allowLoopbackHttp: flags['notify-allow-loopback-http'] === true,
        allowPrivate: checkAllowPrivate('notify-allow-private', flags['notify-allow-private'] ?? []),
      },
    });
    if (flags['allow-insecure-http'])
      this.logToStderr(
        `warning: serving plain HTTP (--allow-insecure-http${sourceNote(s.origins['allow-insecure-http'])})`,
      );
    this.logToStderr(`svc console listening on ${running.url}${flags['client-ca'] ? ' (mutual TLS)' : ''}`);
    if (running.metricsUrl !== undefined) this.logToStderr(`svc console metrics on ${running.metricsUrl}`);
    reload.attach(async () => this.logToStderr(tlsReloadLine('svc console', await running.reload())));
    const signal = await stopSignal;
    this.logToStderr(`svc console stopping (${signal})`);
    await running.close();
    this.logToStderr('svc console stopped');
  }
}
