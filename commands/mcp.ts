import { Flags } from '@oclif/core';
import { SvcCommand } from '../src/cli/base-command.js';
import { serverLimitFlags } from '../src/cli/server-limit-flags.js';
import { untilSignal } from '../src/cli/signals.js';

export default class Mcp extends SvcCommand {
  static override summary =
    'Expose the daemon to MCP clients: one tool per capability the caller may use (stdio, or --http on loopback).';
  static override description =
    'A client of the daemon (SVC_ENDPOINT, SVC_CA_CERT): policy, registrations and credentials stay in the daemon. ' +
    'On stdio it acts with SVC_TOKEN; with --http every request carries its own token as Authorization: Bearer, which is forwarded, never kept.';
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> mcp', '<%= config.bin %> mcp --http --port 8092'];
  static override flags = {
    http: Flags.boolean({ summary: 'Serve streamable HTTP on 127.0.0.1 instead of stdio.' }),
    port: Flags.integer({
      summary: 'Loopback port for --http (0 picks a free one).',
      default: 8092,
      min: 0,
      max: 65535,
    }),
    // The --http listener's time-outs and connection cap, as every listener takes them.
    ...serverLimitFlags,
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Mcp);
    if (!flags.http) {
      const { serveStdio } = await import('../src/mcp/server.js');
      const { closed } = await serveStdio();
      // stdout carries the protocol: nothing else is written there.
      await Promise.race([closed, untilSignal()]);
      return;
    }
    const { serverLimits } = await import('../src/http/limits.js');
    const limits = serverLimits(flags);
    const stopSignal = untilSignal();
    const { clientConfig } = await import('../src/sdk/config.js');
    clientConfig({ token: 'checked-per-request' }); // endpoint and CA mistakes surface now, not per call
    const { serveHttp } = await import('../src/mcp/http.js');
    const facade = await serveHttp(flags.port, {}, { limits });
    this.logToStderr(`svc mcp listening on ${facade.url}`);
    await stopSignal;
    await facade.close();
  }
}
