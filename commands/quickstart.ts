import { join } from 'node:path';
import { Flags } from '@oclif/core';
import chalk from 'chalk';
import { DataDirCommand } from '../src/cli/base-command.js';
import { untilSignal } from '../src/cli/signals.js';
import { startDaemon } from '../src/daemon/server.js';
import { ensureDemo } from '../src/provisioning/demo.js';

export default class Quickstart extends DataDirCommand {
  static override summary =
    'Set up a demo tenant in ./.svc (only if absent), start the daemon over TLS, and show what to try.';
  static override enableJsonFlag = false;
  static override examples = [
    '<%= config.bin %> quickstart',
    '<%= config.bin %> quickstart --listen 127.0.0.1:9090',
  ];
  static override flags = {
    listen: Flags.string({ summary: 'Daemon address (host:port).', default: '127.0.0.1:8090' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Quickstart);
    // Listen for Ctrl-C before anything starts, so an early one is never lost.
    const stopSignal = untilSignal();
    const root = this.dataDir(flags).root;
    const demo = await ensureDemo(root, new Date());
    const daemon = await startDaemon({
      dataDir: root,
      listen: flags.listen,
      allowInsecureHttp: false,
      logger: { level: 'info', file: join(root, 'daemon.log') },
    });
    const b = chalk.bold;
    this.log(
      `${chalk.green('svc is running')} (${demo.created ? 'new data dir' : 'existing data dir'} ${root})`,
    );
    this.log('');
    this.log(`  daemon      ${b(daemon.url)}   (log: ${join(root, 'daemon.log')})`);
    this.log(`  CA file     ${demo.ca_cert}`);
    this.log(`  tenant      ${demo.tenant_id}`);
    if (demo.admin_token) this.log(`  admin token ${b(demo.admin_token)}  (shown once)`);
    this.log(`  agent token ${b(demo.agent.token)}  (demo-agent, expires ${demo.agent.expires_at})`);
    this.log('');
    this.log('Try a first request:');
    this.log(`  export SVC_ENDPOINT=${daemon.url} SVC_CA_CERT=${demo.ca_cert} SVC_TOKEN=${demo.agent.token}`);
    this.log(
      '  curl --cacert "$SVC_CA_CERT" -H "Authorization: Bearer $SVC_TOKEN" "$SVC_ENDPOINT/v1/capabilities"',
    );
    this.log('');
    this.log('Press Ctrl-C to stop.');
    await stopSignal;
    this.log('stopping…');
    await daemon.close();
  }
}
