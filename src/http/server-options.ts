import type { ServerOptions as HttpsOptions } from 'node:https';
import type { FastifyServerOptions } from 'fastify';
import { clientErrorHandler } from './client-error.js';
import { frameworkErrorHandler, MAX_PARAM_LENGTH } from './error-mapping.js';
import { serverTimeoutOptions, type ServerLimits } from './limits.js';
import { loggerOptions, RequestLog } from './logger.js';
import { requestIdOptions } from './request-id.js';

export interface ListenerOptions {
  /** pino options, or false for silence (tests) */
  logger?: boolean | Record<string, unknown>;
  /** TLS material (see `tlsServerOptions`); without it the app speaks plain HTTP */
  https?: HttpsOptions;
  limits: ServerLimits;
}

/**
 * The fastify options every listener shares: logging with redaction, our own request
 * ids, no proxy trust, the body limit and the timeouts. After `Fastify(...)`, call
 * `applyServerLimits(app.server, limits)` for what only the server object takes.
 */
export function fastifyServerOptions(o: ListenerOptions): FastifyServerOptions & { https?: HttpsOptions } {
  const timeouts = serverTimeoutOptions(o.limits);
  return {
    logger: loggerOptions(o.logger),
    logController: new RequestLog(),
    ...requestIdOptions,
    bodyLimit: o.limits.bodyLimitBytes,
    trustProxy: false,
    // A request that reaches a closing listener (on a kept-alive connection) is served and
    // told `Connection: close`: the close waits for it anyway, and an answer beats a refusal.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    keepAliveTimeout: timeouts.keepAliveTimeout,
    requestTimeout: timeouts.requestTimeout,
    // Node reads these only when the server is created, so they travel with its options.
    ...(o.https
      ? { https: { ...o.https, ...timeouts } }
      : {
          http: {
            headersTimeout: timeouts.headersTimeout,
            requestTimeout: timeouts.requestTimeout,
            keepAliveTimeout: timeouts.keepAliveTimeout,
            connectionsCheckingInterval: timeouts.connectionsCheckingInterval,
          },
        }),
  };
}
