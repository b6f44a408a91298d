import type { ServerOptions as HttpsOptions } from 'node:https';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../core/errors.js';
import { defineRoute, mountRoutes, type AnyRoute } from '../http/route.js';
import { packageVersion } from '../http/version.js';
import { registerErrorHandler } from '../http/error-mapping.js';
import { applyServerLimits, DEFAULT_SERVER_LIMITS, type ServerLimits } from '../http/limits.js';
import { registerResponseHeaders } from '../http/request-id.js';
import { fastifyServerOptions } from '../http/server-options.js';
import type { ConsoleDeps } from './deps.js';
import { consoleOpenApi } from './openapi.js';
import { appearanceRoutes } from './routes/appearance.js';
import { approvalRoutes } from './routes/approvals.js';
import { notificationDestinationRoutes } from './routes/notification-destinations.js';
import { notificationRoutes } from './routes/notifications.js';
import { peopleRoutes } from './routes/people.js';
import { overviewRoutes } from './routes/overview.js';
import { policyRoutes } from './routes/policies.js';
import { policyChangeRoutes } from './routes/policy-changes.js';
import { policyEditRoutes } from './routes/policy-edits.js';
import { recordRoutes } from './routes/records.js';
import { registryRoutes } from './routes/registry.js';
import { sessionRoutes } from './routes/session.js';
import { spendRoutes } from './routes/spend.js';
import { taskAdminRoutes } from './routes/task-admin.js';
import { mountUi } from './routes/ui.js';
import { registerSecurityHeaders } from './security-headers.js';
import type { UiBundle } from './ui-files.js';

export interface ConsoleOptions {
  /** pino options, or false for silence (tests) */
  logger?: boolean | Record<string, unknown>;
  /** TLS material; the app is built for it but still does not listen */
  https?: HttpsOptions;
  limits?: ServerLimits;
  /** the built pages; without them only the API answers */
  ui?: UiBundle;
}

/** Every API route of the console, in one table: mounted and described in OpenAPI. */
export function consoleRoutes(deps: ConsoleDeps): AnyRoute[] {
  const routes: AnyRoute[] = [
    ...sessionRoutes(deps),
    ...overviewRoutes(deps),
    ...appearanceRoutes(deps),
    ...approvalRoutes(deps),
    ...recordRoutes(deps),
    ...spendRoutes(deps),
    ...notificationRoutes(deps),
    ...registryRoutes(deps),
    ...peopleRoutes(deps),
    ...policyRoutes(deps),
    ...policyChangeRoutes(deps),
    ...taskAdminRoutes(deps),
    ...notificationDestinationRoutes(deps),
    ...policyEditRoutes(deps),
  ];
  routes.push(
    defineRoute({
      method: 'GET',
      url: '/api/openapi.json',
      summary: 'this OpenAPI 3.1 document of the console routes',
      tag: 'Meta',
      auth: 'none',
      responses: { 200: { description: 'the OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
      handler: async () => consoleOpenApi(routes, packageVersion(), deps.sessions.cookieName),
    }),
  );
  return routes;
}

/**
 * A request that changes state must come from our own pages: a browser names the page's
 * origin, and one that names another is refused before anything runs. (SameSite=Strict and
 * the CSRF token already stop it; this is the third lock.)
 */
function checkOrigin(request: FastifyRequest): void {
  if (request.method === 'GET' || request.method === 'HEAD') return;
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const host = request.headers.host;
  const own = [`https://${host}`, `http://${host}`];
  if (!own.includes(origin)) {
    throw new SvcError('forbidden', `origin: ${origin} is not this console`, {
      code: 'csrf_failed',
      field: 'origin',
    });
  }
}

/** Room for the largest appearance write: a 256 KiB logo as base64 plus the settings. */
export const CONSOLE_BODY_LIMIT_BYTES = 512 * 1024;

/** Build the console app. App factories never listen: `svc console start` does. */
export function buildConsole(deps: ConsoleDeps, opts: ConsoleOptions = {}): FastifyInstance {
  const limits = { ...(opts.limits ?? DEFAULT_SERVER_LIMITS), bodyLimitBytes: CONSOLE_BODY_LIMIT_BYTES };
  const app = Fastify(
    fastifyServerOptions({
      limits,
      ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
      ...(opts.https ? { https: opts.https } : {}),
    }),
  ) as unknown as FastifyInstance;
  applyServerLimits(app.server, limits);
  registerSecurityHeaders(app);
  registerResponseHeaders(app);
  // Parses the Cookie header once per request; no secret: the session value is itself a
  // random secret the store knows only by its hash, so a signature would add nothing.
  void app.register(fastifyCookie);
  app.removeContentTypeParser('text/plain');
  registerErrorHandler(app);
  app.addHook('onRequest', async (request) => checkOrigin(request));
  mountRoutes(app, consoleRoutes(deps), async (request) => {
    const { caller } = await deps.sessions.resolve(request);
    return caller;
  });
  mountUi(app, opts.ui);
  return app;
}
