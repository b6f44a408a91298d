import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { packageVersion } from '../http/version.js';
import { SvcClient } from '../sdk/client.js';
import type { ClientOptions } from '../sdk/config.js';
import { Facade } from './facade.js';

/** An MCP server whose tools and calls go to the daemon through one SDK client. */
export function mcpServer(client: SvcClient): Server {
  const facade = new Facade(client);
  const server = new Server(
    { name: 'svc', version: packageVersion() },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'Each tool asks the svc governance daemon for a decision on one capability. Keep task_id and effect_key_step for a resume; never invent a new effect_key_step to get past a conflict or an unknown outcome.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await facade.tools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    facade.call(request.params.name, request.params.arguments ?? {}),
  );
  return server;
}

/** `svc mcp`: MCP over stdin/stdout, as the agent host that spawned it, with its SVC_* settings. */
export async function serveStdio(options: ClientOptions = {}): Promise<{ closed: Promise<void> }> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const client = new SvcClient(options);
  const server = mcpServer(client);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => {
      void client.close().finally(resolve);
    };
  });
  await server.connect(new StdioServerTransport());
  // The host closing our stdin ends the session.
  process.stdin.once('end', () => void server.close());
  return { closed };
}
