import { SvcError } from '../core/errors.js';
import { readDemoState } from '../provisioning/demo-state.js';
import { readDaemonAddress } from '../store/daemon-address.js';
import type { DataDir } from '../store/data-dir.js';
import { DAEMON_DEFAULT_URL } from './daemon-client.js';
import { envLines } from './quickstart-walkthrough.js';

/** `svc quickstart --env`: the exports for a second terminal, from what the quickstart kept. */
export function demoEnvLines(dir: DataDir): string[] {
  const state = dir.exists() ? readDemoState(dir) : undefined;
  if (state?.agent === undefined) {
    throw new SvcError('not_initialized', `no quickstart demo in ${dir.root}`, {
      remedy: 'run `svc quickstart` first (in this directory, or with the same --data-dir / SVC_HOME)',
    });
  }
  const address = readDaemonAddress(dir);
  return envLines({
    dataDir: dir.root,
    endpoint: address?.url ?? DAEMON_DEFAULT_URL,
    caCert: address?.ca_cert ?? dir.tlsCert,
    adminToken: state.admin.token,
    agentToken: state.agent.token,
  });
}
