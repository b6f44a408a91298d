import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { SvcError } from '../core/errors.js';
import { registerErrorHandler } from '../http/error-mapping.js';
import { useGuardedJson } from '../http/json-body.js';
import { applyServerLimits, DEFAULT_SERVER_LIMITS, type ServerLimits } from '../http/limits.js';
import { registerResponseHeaders } from '../http/request-id.js';
import { fastifyServerOptions } from '../http/server-options.js';
import { SvcClient } from '../sdk/client.js';
import type { ClientOptions } from '../sdk/config.js';
import { mcpServer } from './server.js';

/** A JSON-RPC message, or a batch of them, is far smaller; room for large tool arguments. */
const BODY_LIMIT = 1024 * 1024;
const PATH = '/mcp';

export interface HttpFacade {
  url: string;
  close: () => Promise<void>;
}

export interface HttpFacadeOptions {
  /** timeouts and connection cap, as every listener takes them (default: `DEFAULT_SERVER_LIMITS`) */
  limits?: ServerLimits;
  /** pino options, or false (the default: stdout is the operator's terminal) */
  logger?: boolean | Record<string, unknown>;
}

/** The caller's daemon token, from `Authorization: Bearer`; the facade forwards it and never keeps it. */
function bearerToken(request: FastifyRequest): string {
  const auth = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!auth) {
    throw new SvcError(
      'unauthenticated',
      'authorization: expected Bearer <your svc token>; the facade forwards it to the daemon',
      { code: 'missing_token', field: 'authorization' },
    );
  }
  return auth[1]!;
}

/**
 * Hands the request to the MCP SDK's transport, which writes the answer itself. What fails
 * before the hand-over leaves through the shared error mapping; after it the transport owns
 * the socket, so a failure it does not answer can only end the connection.
 */
async function handOver(
  request: FastifyRequest,
  reply: FastifyReply,
  options: Omit<ClientOptions, 'token'>,
): Promise<void> {
  const { StreamableHTTPServerTransport } =
    await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const client = new SvcClient({ ...options, token: bearerToken(request) });
  const server = mcpServer(client);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
    void client.close();
  });
  await server.connect(transport);
  // The transport writes to the raw response, past fastify's onSend hook.
  reply.raw.setHeader('x-request-id', request.id);
  reply.raw.setHeader('x-content-type-options', 'nosniff');
  reply.raw.setHeader('cache-control', 'no-store');
  reply.hijack();
  try {
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (err) {
    request.log.error({ err }, 'the MCP transport failed');
    reply.raw.destroy();
  }
}

/**
 * The facade's listener: the daemon's time-outs, connection cap, I-JSON body guard and
 * error bodies (`{code, reason, field?}`, status from the one mapping). A Host or Origin
 * that is not this loopback listener is refused (DNS rebinding) before anything else.
 */
export function buildHttpFacade(
  options: Omit<ClientOptions, 'token'>,
  hosts: () => ReadonlySet<string>,
  o: HttpFacadeOptions = {},
): FastifyInstance {
  const limits = { ...(o.limits ?? DEFAULT_SERVER_LIMITS), bodyLimitBytes: BODY_LIMIT };
  const app = Fastify(
    fastifyServerOptions({ limits, logger: o.logger ?? false }),
  ) as unknown as FastifyInstance;
  applyServerLimits(app.server, limits);
  registerResponseHeaders(app, { 'cache-control': 'no-store' });
  app.removeContentTypeParser('text/plain');
  useGuardedJson(app);
  registerErrorHandler(app);
  app.addHook('onRequest', async (request) => {
    const allowed = hosts();
    if (!allowed.has(request.headers.host ?? '')) {
      throw new SvcError('forbidden', 'host: expected this loopback listener', { field: 'host' });
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !allowed.has(origin.replace(/^https?:\/\//, ''))) {
      throw new SvcError('forbidden', 'origin: expected none, or this loopback listener', {
        field: 'origin',
      });
    }
  });
  app.post(PATH, { onRequest: async (request) => void bearerToken(request) }, (request, reply) =>
    handOver(request, reply, options),
  );
  // Stateless: no stream to open or session to end. MCP clients read 405 as exactly that.
  app.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH'],
    url: PATH,
    handler: async (_request, reply) => {
      void reply.header('allow', 'POST');
      throw new SvcError('invalid_request', 'method: expected POST (this facade is stateless)', {
        code: 'method_not_allowed',
        field: 'method',
      });
    },
  });
  return app;
}

/**
 * Streamable HTTP on loopback only, stateless: every POST carries the caller's own daemon
 * token (`Authorization: Bearer`), which the facade forwards and never keeps, so the facade
 * holds no credential and any local process gets exactly its own token's rights.
 */
export async function serveHttp(
  port: number,
  options: Omit<ClientOptions, 'token'> = {},
  o: HttpFacadeOptions = {},
): Promise<HttpFacade> {
  let hosts: ReadonlySet<string> = new Set();
  const app = buildHttpFacade(options, () => hosts, o);
  try {
    await app.listen({ host: '127.0.0.1', port });
  } catch (err) {
    throw new SvcError('unavailable', `cannot listen on 127.0.0.1:${port}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const addr = app.server.address();
  const actual = typeof addr === 'object' && addr ? addr.port : port;
  hosts = new Set([`127.0.0.1:${actual}`, `localhost:${actual}`]);
  return { url: `http://127.0.0.1:${actual}${PATH}`, close: () => app.close() };
}
