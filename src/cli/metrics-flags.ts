import { Flags } from '@oclif/core';

/** The metrics listener's flags, the same on `svc daemon start` and `svc console start`. */
export const metricsFlags = {
  'metrics-listen': Flags.string({
    summary:
      'Serve Prometheus metrics (GET /metrics) on a separate listener at host:port; loopback only unless --metrics-allow-remote. Off without it.',
  }),
  'metrics-allow-remote': Flags.boolean({
    summary: 'Let --metrics-listen bind an address other machines can reach.',
    allowNo: true,
    dependsOn: ['metrics-listen'],
  }),
  'metrics-token-file': Flags.string({
    summary: 'File holding a bearer token (16+ characters) that scrapers must send to /metrics.',
    dependsOn: ['metrics-listen'],
  }),
};

/** The listener options from those flags, when --metrics-listen was given. */
export function metricsListenFlags(flags: {
  'metrics-listen'?: string | undefined;
  'metrics-allow-remote'?: boolean | undefined;
  'metrics-token-file'?: string | undefined;
}): { listen: string; allowRemote: boolean; tokenFile?: string } | undefined {
  const listen = flags['metrics-listen'];
  if (listen === undefined) return undefined;
  const token = flags['metrics-token-file'];
  return {
    listen,
    allowRemote: flags['metrics-allow-remote'] === true,
    ...(token !== undefined ? { tokenFile: token } : {}),
  };
}
