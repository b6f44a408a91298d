import { Flags } from '@oclif/core';
import { kekConfigFlags } from '../../src/cli/kek-flags.js';
import { pkcs11ConfigFlags } from '../../src/cli/pkcs11-flags.js';
import { DataDirCommand } from '../../src/cli/base-command.js';
import { serverLimitFlags } from '../../src/cli/server-limit-flags.js';
import { reloadSignal, stopSignals } from '../../src/cli/signals.js';
import { reloadLine } from '../../src/daemon/reload-line.js';
import { liveSettingsOf, restartKeys } from '../../src/daemon/live-settings.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { metricsFlags, metricsListenFlags } from '../../src/cli/metrics-flags.js';
import { DEFAULT_OPEN_APPROVAL_LIMITS, openApprovalLimits } from '../../src/core/decision/open-approvals.js';
import { ANCHOR_INTERVAL_BOUNDS, DEFAULT_ANCHOR_ENTRIES } from '../../src/daemon/anchor-schedule.js';
import { startDaemon } from '../../src/daemon/server.js';
import { serverLimits } from '../../src/http/limits.js';
import { durationFlag } from '../../src/cli/duration-flag.js';
import { configFlags } from '../../src/cli/config/config-flags.js';
import { renderEffective, sourceNote } from '../../src/cli/config/config-render.js';
import { effectiveSettings } from '../../src/cli/config/config-sources.js';
import { drainOrStopHard } from '../../src/cli/daemon-stop.js';
import { MAX_RETRY_SPEEDUP } from '../../src/core/notify/retry-schedule.js';
import { checkAllowPrivate } from '../../src/notify/outbound-address.js';
import { replicaIdFlag } from '../../src/cli/replica-id-flag.js';

const NOTIFY_TIMEOUT_BOUNDS = { minMs: 1000, maxMs: 60_000 };

const STOP_DEADLINE_BOUNDS = { minMs: 1000, maxMs: 3_600_000 };

/** The interface spec spells these with one dash; accept both. */
const SINGLE_DASH = new Map([
  ['-listen', '--listen'],
  ['-allow-insecure-http', '--allow-insecure-http'],
]);

export function normalizeDashes(argv: string[]): string[] {
  return argv.map((a) => {
    const [name, ...rest] = a.split('=');
    const long = SINGLE_DASH.get(name as string);
    return long === undefined ? a : [long, ...rest].join('=');
  });
}

export default class DaemonStart extends DataDirCommand {
  static override summary = 'Run the governance daemon (TLS by default) until SIGTERM or SIGINT.';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> daemon start',
    '<%= config.bin %> daemon start --config svc.yaml',
    '<%= config.bin %> daemon start --config svc.yaml --print-config',
    '<%= config.bin %> daemon start --listen 0.0.0.0:8090 --tls-cert cert.pem --tls-key key.pem',
    '<%= config.bin %> daemon start --client-ca clients-ca.pem',
    '<%= config.bin %> daemon start -listen 127.0.0.1:8090 -allow-insecure-http',
    '<%= config.bin %> daemon start --integration-ops integration-ops.yaml',
    '<%= config.bin %> daemon start --request-timeout 60s --max-connections 4096',
    '<%= config.bin %> daemon start --metrics-listen 127.0.0.1:9464 --metrics-token-file metrics.token',
    '<%= config.bin %> daemon start --witness http://127.0.0.1:8095=ed25519-4ca0a5c9850969e3=0y7X88EwmgvP1RMkF+Set8FXqPz8V7VxNvqfNgYW4eM= --tsa-url https://tsa.example/tsr',
    '<%= config.bin %> daemon start --witness https://witness.example.org=audit-firm=audit-firm.pub.pem --witness-ca audit-firm=audit-firm-ca.pem',
  ];
  static override flags = {
    ...configFlags,
    ...kekConfigFlags,
    ...pkcs11ConfigFlags,
    listen: Flags.string({
      summary: 'Address to listen on (host:port; port 0 picks a free one).',
      default: '127.0.0.1:8090',
    }),
    'allow-insecure-http': Flags.boolean({
      summary: 'Serve plain HTTP. Tokens then cross the network in clear text.',
      allowNo: true,
      exclusive: ['tls-cert', 'tls-key', 'client-ca'],
    }),
    'tls-cert': Flags.string({
      dependsOn: ['tls-key'],
      summary: 'PEM certificate (default: the deployment certificate from `svc init`).',
    }),
    'tls-key': Flags.string({ summary: 'PEM private key for --tls-cert.', dependsOn: ['tls-cert'] }),
    'client-ca': Flags.string({
      summary: 'PEM CA for mutual TLS: clients authenticate by certificate; bearer tokens are refused.',
    }),
    'anchor-interval': durationFlag(ANCHOR_INTERVAL_BOUNDS)({
      summary: 'Sign a tree head when the oldest unanchored journal entry is this old (1s to 1d).',
      default: 5 * 60_000,
      defaultHelp: async () => '5m',
    }),
    'anchor-entries': Flags.integer({
      summary: 'Sign a tree head as soon as this many journal entries are unanchored.',
      default: DEFAULT_ANCHOR_ENTRIES,
      min: 1,
    }),
    'integration-ops': Flags.string({
      summary:
        'Integration-operations document (YAML or JSON): the surfaces brokered capabilities execute through. Without it those routes are absent.',
    }),
    ...serverLimitFlags,
    witness: Flags.string({
      summary:
        'URL=ID=KEY: a witness (`svc witness serve`) asked to cosign each anchor, pinned by its id and public key (as `svc witness key` prints them); only cosignatures under that id and key are stored. Repeatable. A witness that is down never blocks decisions.',
      multiple: true,
    }),
    'witness-ca': Flags.string({
      summary:
        "ID=FILE: a PEM certificate or CA that is the only trust root for that witness's https URL. Repeatable.",
      multiple: true,
    }),
    'tsa-url': Flags.string({
      summary:
        'An RFC 3161 timestamp authority for each anchor (without one, anchors carry a noop timestamp).',
    }),
    'max-open-approvals-per-actor': Flags.integer({
      summary:
        'Most approvals one requester may have open (pending, unexpired) in a tenant; one more is refused (open_approvals_limit).',
      default: DEFAULT_OPEN_APPROVAL_LIMITS.perActor,
      min: 1,
    }),
    'max-open-approvals-per-task': Flags.integer({
      summary: 'Most approvals open at once on one task; one more is refused (open_approvals_limit).',
      default: DEFAULT_OPEN_APPROVAL_LIMITS.perTask,
      min: 1,
    }),
    'stop-deadline': durationFlag(STOP_DEADLINE_BOUNDS)({
      summary:
        'On SIGTERM or SIGINT, how long in-flight requests may take to finish before the daemon stops hard (a second signal stops hard at once).',
      default: 30_000,
      defaultHelp: async () => '30s',
    }),
    'notify-allow-loopback-http': Flags.boolean({
      summary:
        'Let notification destinations use http:// to a loopback address (a receiver on this machine). Never any other http.',
      allowNo: true,
    }),
    'notify-allow-private': Flags.string({
      summary:
        'A CIDR, address or host name that notifications may reach although it is private, link-local or a metadata address (refused by default). Repeatable.',
      multiple: true,
    }),
    'notify-timeout': durationFlag(NOTIFY_TIMEOUT_BOUNDS)({
      summary:
        'The whole of one notification attempt (connect, TLS, request, answer) before it is cut and retried (1s to 60s).',
      default: 10_000,
      defaultHelp: async () => '10s',
    }),
    'notify-retry-speedup': Flags.integer({
      summary:
        'For tests and drills only: divide every notification retry wait by this (the day of retries in seconds). Production keeps 1.',
      default: 1,
      min: 1,
      max: MAX_RETRY_SPEEDUP,
    }),
    'replica-id': replicaIdFlag(),
    'policy-answer-cache': Flags.boolean({
      summary:
        'Answer a request the policy set has answered before from its answer cache (default). --no-policy-answer-cache evaluates every request: decisions are the same, each costs a policy evaluation.',
      allowNo: true,
    }),
    ...metricsFlags,
    'metrics-tenant-label': Flags.boolean({
      summary: 'Label per-tenant metrics with the tenant id (one series per tenant: mind the cardinality).',
      dependsOn: ['metrics-listen'],
      allowNo: true,
    }),
  };

  async run(): Promise<void> {
    const argv = normalizeDashes(this.argv);
    const settingsNow = () =>
      effectiveSettings(DaemonStart, argv, process.env, (a) => this.parse(DaemonStart, a));
    const s = await settingsNow();
    if (s.flags['print-config']) {
      this.log(renderEffective('daemon start', s));
      return;
    }
    const { flags } = s;
    // Listen for the stop and reload signals before anything starts, so an early SIGTERM is
    // never lost and an early SIGHUP never stops the process.
    const stop = stopSignals();
    const reload = reloadSignal(() =>
      this.logToStderr('svc daemon: SIGHUP before the listener opened: the files are read as it opens'),
    );
    const anchorIntervalMs = flags['anchor-interval'];
    const limits = serverLimits(flags);
    const dir = this.dataDir(flags);
    const metricsListen = metricsListenFlags(flags);
    const daemon = await startDaemon({
      dataDir: dir.root,
      kek: dir.kek,
      pkcs11: dir.pkcs11,
      ...(dir.postgresUrl !== undefined ? { store: dir.postgresUrl } : {}),
      ...(flags['replica-id'] !== undefined ? { replicaId: flags['replica-id'] } : {}),
      listen: flags.listen,
      allowInsecureHttp: flags['allow-insecure-http'],
      ...(flags['tls-cert'] !== undefined ? { tlsCert: flags['tls-cert'] } : {}),
      ...(flags['tls-key'] !== undefined ? { tlsKey: flags['tls-key'] } : {}),
      ...(flags['client-ca'] !== undefined ? { clientCa: flags['client-ca'] } : {}),
      anchorIntervalMs,
      anchorEntries: flags['anchor-entries'],
      limits,
      ...(flags['integration-ops'] !== undefined ? { integrationOps: flags['integration-ops'] } : {}),
      ...(flags.witness !== undefined ? { witnesses: flags.witness } : {}),
      ...(flags['witness-ca'] !== undefined ? { witnessCas: flags['witness-ca'] } : {}),
      ...(flags['tsa-url'] !== undefined ? { tsaUrl: flags['tsa-url'] } : {}),
      policyAnswerCache: flags['policy-answer-cache'] !== false,
      openApprovals: openApprovalLimits(
        flags['max-open-approvals-per-actor'],
        flags['max-open-approvals-per-task'],
      ),
      ...(metricsListen ? { metrics: { ...metricsListen, tenantLabel: flags['metrics-tenant-label'] } } : {}),
      notify: {
        allowLoopbackHttp: flags['notify-allow-loopback-http'] === true,
        allowPrivate: checkAllowPrivate('notify-allow-private', flags['notify-allow-private'] ?? []),
        timeoutMs: flags['notify-timeout'],
        retrySpeedup: flags['notify-retry-speedup'],
      },
    });
    if (flags['allow-insecure-http'])
      this.logToStderr(
        `warning: serving plain HTTP (--allow-insecure-http${sourceNote(s.origins['allow-insecure-http'])})`,
      );
    if (flags['replica-id'] !== undefined && dir.postgresUrl === undefined)
      this.logToStderr(
        `warning: the replica id (--replica-id${sourceNote(s.origins['replica-id'])}) is not used: replicas need a PostgreSQL store (--store)`,
      );
    this.logToStderr(`svc daemon listening on ${daemon.url}${flags['client-ca'] ? ' (mutual TLS)' : ''}`);
    if (flags['notify-retry-speedup'] > 1)
      this.logToStderr(
        `warning: notification retries run ${flags['notify-retry-speedup']} times faster than the production schedule (--notify-retry-speedup)`,
      );
    if (daemon.metricsUrl !== undefined) this.logToStderr(`svc daemon metrics on ${daemon.metricsUrl}`);
    reload.attach(async () => {
      try {
        // The file and the environment are read again: the live keys take effect, the rest
        // waits for the next start (and is named, so nobody believes a listener moved).
        const again = await settingsNow();
        for (const key of restartKeys(s.flags, again.flags)) {
          this.logToStderr(`svc daemon: ${key} changed; it takes effect at the next start`);
        }
        this.logToStderr(reloadLine(await daemon.reload(liveSettingsOf(again.flags))));
      } catch (err) {
        this.logToStderr(`svc daemon: reload refused, nothing changed: ${(err as Error).message}`);
      }
    });
    const signal = await stop.first;
    this.logToStderr(
      `svc daemon stopping (${signal}): draining ${daemon.inFlight()} in-flight requests, anchoring the journal`,
    );
    const hard = await drainOrStopHard(daemon, stop.second, flags['stop-deadline']);
    if (hard === undefined) {
      this.logToStderr('svc daemon stopped');
      return;
    }
    this.logToStderr(`svc daemon ${hard}`);
    process.exit(EXIT.failure);
  }
}
