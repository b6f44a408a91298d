import type { ServerOptions as HttpsOptions } from 'node:https';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerErrorHandler } from '../http/error-mapping.js';
import { applyServerLimits, DEFAULT_SERVER_LIMITS, type ServerLimits } from '../http/limits.js';
import { registerResponseHeaders } from '../http/request-id.js';
import { fastifyServerOptions } from '../http/server-options.js';
import { authenticator } from '../http/auth.js';
import type { DaemonDeps } from './deps.js';
import { useGuardedJson } from '../http/json-body.js';
import { openApiDocument } from '../http/openapi.js';
import { EVENT_WEBHOOKS } from '../api/event-webhooks.js';
import { mountRoutes, type AnyRoute } from '../http/route.js';
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
import { packageVersion } from '../http/version.js';

export interface DaemonOptions {
  /** pino options, or false for silence (tests) */
  logger?: boolean | Record<string, unknown>;
  /** TLS material; the app is built for it but still does not listen */
  https?: HttpsOptions;
  /** timeouts, connection cap and body limit (default: `DEFAULT_SERVER_LIMITS`) */
  limits?: ServerLimits;
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
  return openApiDocument(daemonRoutes(deps), { version: packageVersion(), webhooks: EVENT_WEBHOOKS });
}

/** Build the daemon app. App factories never listen: `svc daemon start` does. */
export function buildDaemon(deps: DaemonDeps, opts: DaemonOptions = {}): FastifyInstance {
  const limits = opts.limits ?? DEFAULT_SERVER_LIMITS;
  const app = Fastify(
    fastifyServerOptions({
      limits,
      ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
      ...(opts.https ? { https: opts.https } : {}),
    }),
  ) as unknown as FastifyInstance;
  applyServerLimits(app.server, limits);
  // Decisions and receipts are per caller and per moment: nothing may cache them.
  registerResponseHeaders(app, { 'cache-control': 'no-store' });
  app.addHook('onClose', async () => deps.broker.close());
  // Decisions already sealed are compared and recorded before the store closes.
  deps.shadow?.useLog(app.log);
  app.addHook('onClose', async () => deps.shadow?.idle());
  // The API speaks JSON only; fastify's default text/plain parser would let strings reach validation.
  app.removeContentTypeParser('text/plain');
  useGuardedJson(app);
  registerErrorHandler(app);
  mountRoutes(
    app,
    daemonRoutes(deps),
    authenticator(deps.store, deps.authMode, deps.clock, deps.authCache),
    () => deps.store.durable(),
  );
  return app;
}
