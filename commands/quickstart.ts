import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import chalk from 'chalk';
import { dataDirFlag, SvcCommand } from '../src/cli/base-command.js';
import { SvcError } from '../src/core/errors.js';
import { demoEnvLines } from '../src/cli/quickstart-env.js';
import { shellQuote, walkthroughLines } from '../src/cli/quickstart-walkthrough.js';
import { untilSignal } from '../src/cli/signals.js';
import { DEMO } from '../src/provisioning/demo-spec.js';
import { demoStateFile } from '../src/provisioning/demo-state.js';
import { DataDir, resolveDataDir } from '../src/store/data-dir.js';

export default class Quickstart extends SvcCommand {
  static override summary =
    'Set up the demo tenant in ./.svc (once), start the daemon and the operator console over TLS, and walk through a governed action.';
  static override description =
    'The first run makes the data dir: tenant demo, the human admin (administrator, operator, approver), the agent demo-agent, a readable and an irreversible capability, a policy permitting both, and a task with a budget. Later runs reuse it and show the same tokens. A busy address is refused before anything is written.';
  static override enableJsonFlag = false;
  // The demo lives in its data dir's SQLite database; replicas on PostgreSQL are set up by
  // `svc init --store` and `svc daemon start --store` (docs/postgres.md "Several replicas on PostgreSQL").
  static override baseFlags = { ...dataDirFlag };
  static override examples = [
    '<%= config.bin %> quickstart',
    '<%= config.bin %> quickstart --tour',
    '<%= config.bin %> quickstart --listen 127.0.0.1:9090 --console-listen 127.0.0.1:9091',
    'eval "$(<%= config.bin %> quickstart --env)"',
  ];
  static override flags = {
    listen: Flags.string({
      summary: 'Daemon address (host:port; port 0 picks a free one).',
      default: '127.0.0.1:8090',
    }),
    'console-listen': Flags.string({
      summary: 'Operator console address (host:port; port 0 picks a free one).',
      default: '127.0.0.1:8091',
    }),
    tour: Flags.boolean({
      summary: 'Run the walk-through against the daemon just started and print what each step saw.',
      exclusive: ['env'],
    }),
    env: Flags.boolean({
      summary:
        "Print the shell exports for the running demo (endpoint, CA, the admin's and the agent's tokens) and exit.",
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Quickstart);
    const dir = new DataDir(
      resolveDataDir(flags['data-dir'], process.env, process.cwd()),
      process.env.SVC_STORE,
    );
    if (dir.onPostgres) {
      throw new SvcError(
        'usage',
        "svc quickstart runs the demo on its data dir's SQLite database, but SVC_STORE names PostgreSQL",
        {
          remedy:
            'unset SVC_STORE for the demo; for PostgreSQL use `svc init --store` and `svc daemon start --store`',
        },
      );
    }
    if (flags.env) {
      this.log(demoEnvLines(dir).join('\n'));
      return;
    }
    // Listen for Ctrl-C before anything starts, so an early one is never lost.
    const stopSignal = untilSignal();
    // The daemon's modules (fastify, SQLite, Cedar) load only here, so `--env` stays quick.
    const { startQuickstart } = await import('../src/cli/quickstart-session.js');
    const { runTour } = await import('../src/cli/quickstart-tour.js');
    const { startDaemon } = await import('../src/daemon/server.js');
    const qs = await startQuickstart({
      root: dir.root,
      listen: flags.listen,
      consoleListen: flags['console-listen'],
      now: new Date(),
      startDaemon,
    });
    const b = chalk.bold;
    const { demo } = qs;
    this.log(
      `${chalk.green('svc quickstart: the demo is running')} (${demo.created ? 'new' : 'existing'} data dir ${dir.root})`,
    );
    this.log('');
    this.log(`  daemon   ${b(qs.daemon.url)}   (JSON log: ${resolve(dir.root, 'daemon.log')})`);
    this.log(
      `  console  ${b(qs.console.url)}   (sign in with the admin token from \`svc quickstart --env\`; JSON log: ${resolve(dir.root, 'console.log')})`,
    );
    this.log(`  CA file  ${demo.ca_cert}`);
    this.log(
      `  tenant   ${DEMO.tenant}: human ${DEMO.admin} (administrator, operator, approver), agent ${DEMO.agent}`,
    );
    this.log(
      `  task     ${DEMO.task}, budget ${DEMO.budgetUsd} USD; capabilities ${DEMO.readable} (read) and ${DEMO.irreversible} (irreversible)`,
    );
    this.log(`  tokens   kept in ${demoStateFile(dir)} (mode 0600); \`svc quickstart --env\` prints them`);
    this.log('');
    try {
      if (flags.tour) {
        this.log('The walk-through, run for real:');
        await runTour(
          {
            url: qs.daemon.url,
            ca: qs.ca,
            adminToken: demo.admin.token,
            agentToken: demo.agent.token,
            dir,
            store: qs.daemon.store,
            say: (line) => this.log(`  ${line}`),
          },
          Date.now().toString(36),
        );
      } else {
        const here = resolve(process.cwd(), '.svc') === dir.root && !process.env.SVC_HOME;
        this.log(
          `Walk through it in another terminal${here ? ', in this directory' : ''} (bash, curl and jq, with svc on PATH), or run \`svc quickstart --tour\`:`,
        );
        this.log('');
        for (const line of walkthroughLines(here ? undefined : `--data-dir ${shellQuote(dir.root)}`)) {
          this.log(`  ${line}`);
        }
      }
    } catch (err) {
      await qs.close();
      throw err;
    }
    this.log('');
    this.log('Press Ctrl-C to stop.');
    await stopSignal;
    this.log('stopping…');
    await qs.close();
    this.log('svc quickstart: stopped (the data dir is kept; `svc quickstart` starts the demo again)');
  }
}
