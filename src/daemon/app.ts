import { randomUUID } from 'node:crypto';
import type { SecureServerOptions } from 'node:http2';
import type { ServerOptions as HttpsOptions } from 'node:https';
import Fastify, { type FastifyInstance } from 'fastify';
import { SvcError } from '../core/errors.js';
import { authenticator } from './auth.js';
import type { DaemonDeps } from './deps.js';
import { errorHandler, frameworkErrorHandler, MAX_PARAM_LENGTH } from './error-mapping.js';
import { useGuardedJson } from './json-body.js';
import { openApiDocument } from './openapi.js';
import { mountRoutes, type AnyRoute } from './route.js';
import { accessRoutes } from './routes/access.js';
import { approvalRoutes } from './routes/approvals.js';
import { catalogueRoutes } from './routes/catalogue.js';
import { channelCallbackRoutes } from './routes/channel-callback.js';
import { constraintRoutes } from './routes/constraints.js';
import { brokeredRoutes } from './routes/brokered.js';
import { decisionRoutes } from './routes/decision.js';
import { discoveryRoutes } from './routes/discovery.js';
import { entitlementRoutes } from './routes/entitlements.js';
import { grantRoutes } from './routes/grants.js';
import { healthRoutes } from './routes/health.js';
import { integrationOpsRoutes } from './routes/integration-ops.js';
import { managerCardRoutes } from './routes/manager-cards.js';
import { openApiRoute } from './routes/openapi.js';
import { receiptRoutes } from './routes/receipts.js';
import { taskRoutes } from './routes/tasks.js';
import { packageVersion } from './version.js';

export const BODY_LIMIT_BYTES = 256 * 1024;

export interface DaemonOptions {
  /** pino options, or false for silence (tests) */
  logger?: boolean | Record<string, unknown>;
  /** TLS material; the app is built for it but still does not listen */
  https?: HttpsOptions | SecureServerOptions;
}

/** Every route of the daemon, in one table: mounted on the app and described in OpenAPI. */
export function daemonRoutes(deps: DaemonDeps): AnyRoute[] {
  const routes: AnyRoute[] = [
    ...healthRoutes(deps),
    ...discoveryRoutes(deps),
    ...decisionRoutes(deps),
    ...brokeredRoutes(deps),
    // Endpoints rule 1: without a document these routes do not exist at all.
    ...(deps.integration ? integrationOpsRoutes(deps.integration) : []),
    ...grantRoutes(deps),
    ...catalogueRoutes(deps),
    ...taskRoutes(deps),
    ...constraintRoutes(deps),
    ...approvalRoutes(deps),
    ...accessRoutes(deps),
    ...managerCardRoutes(deps),
    ...entitlementRoutes(deps),
    ...channelCallbackRoutes(deps),
    ...receiptRoutes(deps),
  ];
  routes.push(openApiRoute(() => routes));
  return routes;
}

export function daemonOpenApi(deps: DaemonDeps): Record<string, unknown> {
  return openApiDocument(daemonRoutes(deps), { version: packageVersion() });
}

/** Build the daemon app. App factories never listen: `svc daemon start` does. */
export function buildDaemon(deps: DaemonDeps, opts: DaemonOptions = {}): FastifyInstance {
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: 'info',
            // Credentials never reach a log line, whatever a serializer is later changed to print.
            redact: {
              paths: ['req.headers.authorization', 'req.headers["x-svc-token"]', 'req.headers.cookie'],
              censor: '[redacted]',
            },
            ...(typeof opts.logger === 'object' ? opts.logger : {}),
          },
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler,
    ...(opts.https ? { https: opts.https } : {}),
  }) as unknown as FastifyInstance;

  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    void reply.header('cache-control', 'no-store');
    void reply.header('x-content-type-options', 'nosniff');
  });
  app.addHook('onClose', async () => deps.broker.close());
  // The API speaks JSON only; fastify's default text/plain parser would let strings reach validation.
  app.removeContentTypeParser('text/plain');
  useGuardedJson(app);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) => {
    errorHandler(
      new SvcError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`),
      request,
      reply,
    );
  });
  mountRoutes(app, daemonRoutes(deps), authenticator(deps.store, deps.authMode, deps.clock));
  return app;
}
