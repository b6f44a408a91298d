import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SvcError } from '../core/errors.js';
import { SvcClient } from '../sdk/client.js';
import type { ClientOptions } from '../sdk/config.js';
import { mcpServer } from './server.js';

const MAX_BODY = 1024 * 1024;
const PATH = '/mcp';

export interface HttpFacade {
  url: string;
  close: () => Promise<void>;
}

function reject(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new SvcError('payload_too_large', `the body exceeds ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new SvcError('invalid_request', 'body: expected a JSON-RPC message');
  }
}

/**
 * Streamable HTTP on loopback only, stateless: every POST carries the caller's own daemon
 * token (`Authorization: Bearer`), which the facade forwards and never keeps, so the facade
 * holds no credential and any local process gets exactly its own token's rights. A Host or
 * Origin that is not this loopback listener is refused (DNS rebinding).
 */
export async function serveHttp(
  port: number,
  options: Omit<ClientOptions, 'token'> = {},
): Promise<HttpFacade> {
  const { StreamableHTTPServerTransport } =
    await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  let hosts = new Set<string>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== PATH) return reject(res, 404, `the MCP endpoint is ${PATH}`);
    if (!hosts.has(req.headers.host ?? '')) return reject(res, 403, 'Host: expected this loopback listener');
    const origin = req.headers.origin;
    if (origin !== undefined && !hosts.has(origin.replace(/^https?:\/\//, ''))) {
      return reject(res, 403, 'Origin: expected none, or this loopback listener');
    }
    if (req.method !== 'POST')
      return reject(res, 405, 'stateless: POST JSON-RPC messages', { allow: 'POST' });
    const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (!auth) {
      return reject(
        res,
        401,
        'Authorization: expected Bearer <your svc token>; the facade forwards it to the daemon',
        {
          'www-authenticate': 'Bearer',
        },
      );
    }
    let body: unknown;
    try {
      body = await readBody(req);
    } catch (err) {
      return reject(
        res,
        err instanceof SvcError && err.code === 'payload_too_large' ? 413 : 400,
        (err as Error).message,
      );
    }
    const client = new SvcClient({ ...options, token: auth[1] });
    const server = mcpServer(client);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
      void client.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reject(res, 500, 'internal error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, rejectListen) => {
    http.once('error', rejectListen);
    http.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (http.address() as AddressInfo).port;
  hosts = new Set([`127.0.0.1:${actual}`, `localhost:${actual}`]);
  return {
    url: `http://127.0.0.1:${actual}${PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
