import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startConsole, type RunningConsole } from '../console/server.js';
import { SvcError } from '../core/errors.js';
import { checkDemoDir, ensureDemo, type DemoSetup } from '../provisioning/demo.js';
import { DataDir } from '../store/data-dir.js';
import { liveRecordedDaemon } from '../store/daemon-address.js';
import type { Store } from '../store/ports.js';
import { assertCanListen } from './port-probe.js';

/** The daemon as the quickstart needs it: its address, its store (for the tour), and a stop. */
export interface QuickstartDaemon {
  url: string;
  store: Store;
  close(): Promise<void>;
}

/**
 * Starts the daemon; the command passes `startDaemon`, so that what the CLI shares never
 * imports the daemon (DESIGN.md: nothing but its commands imports `src/daemon/`).
 */
export type DaemonStarter = (o: {
  dataDir: string;
  listen: string;
  allowInsecureHttp: boolean;
  logger: Record<string, unknown>;
  notify: { allowLoopbackHttp: boolean };
}) => Promise<QuickstartDaemon>;

/** A listener the quickstart runs: the daemon and the operator console. */
export interface QuickstartListener {
  name: string;
  url: string;
  close(): Promise<void>;
}

export interface Quickstart {
  demo: DemoSetup;
  daemon: QuickstartDaemon;
  console: RunningConsole;
  /** every listener, in start order; closed in reverse */
  listeners: QuickstartListener[];
  /** PEM of the deployment certificate the listeners serve */
  ca: string;
  close(): Promise<void>;
}

/**
 * Everything `svc quickstart` starts, in an order that writes nothing when it cannot run:
 * refuse a data dir that is not the demo's or whose demo already runs, check every address can be listened on, then
 * provision and listen: the daemon, then the operator console on its own address.
 */
export async function startQuickstart(o: {
  root: string;
  listen: string;
  consoleListen: string;
  now: Date;
  startDaemon: DaemonStarter;
}): Promise<Quickstart> {
  checkDemoDir(o.root);
  // Before the port check: its remedy (another port) would start a second daemon here.
  const running = liveRecordedDaemon(new DataDir(o.root));
  if (running !== undefined) {
    throw new SvcError(
      'conflict',
      `the demo is already running (pid ${running.pid}, ${running.url}) on ${o.root}`,
      {
        field: 'data-dir',
        remedy:
          'nothing to start: `eval "$(svc quickstart --env)"` in this terminal is all that is needed to use it; stop the running one (Ctrl-C) first to start it afresh',
      },
    );
  }
  await assertCanListen(o.listen, '--listen');
  await assertCanListen(o.consoleListen, '--console-listen');
  const demo = await ensureDemo(o.root, o.now);
  const daemon = await o.startDaemon({
    dataDir: o.root,
    listen: o.listen,
    allowInsecureHttp: false,
    // The log gets requests, never the tokens the terminal shows.
    logger: { level: 'info', file: join(o.root, 'daemon.log') },
    // A demo on one machine: its webhook receiver (svc notify listen) is on loopback too. Only
    // http to a literal loopback address; https everywhere else, as any deployment.
    notify: { allowLoopbackHttp: true },
  });
  const listeners: QuickstartListener[] = [{ name: 'daemon', url: daemon.url, close: () => daemon.close() }];
  let operatorConsole: RunningConsole;
  try {
    operatorConsole = await startConsole({
      dataDir: o.root,
      listen: o.consoleListen,
      allowInsecureHttp: false,
      logger: { level: 'info', file: join(o.root, 'console.log') },
    });
  } catch (err) {
    await daemon.close();
    throw err;
  }
  listeners.push({ name: 'console', url: operatorConsole.url, close: () => operatorConsole.close() });
  return {
    demo,
    daemon,
    console: operatorConsole,
    listeners,
    ca: readFileSync(demo.ca_cert, 'utf8'),
    close: async () => {
      for (const l of [...listeners].reverse()) await l.close();
    },
  };
}
