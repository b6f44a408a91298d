import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * The console's page policy: scripts, styles, fonts and connections from our own origin
 * only (no inline script, no eval: the UI is precompiled); images also from data: URLs,
 * the raster logo the appearance editor stores. Nothing may frame the console.
 */
export const CONTENT_SECURITY_DIRECTIVES = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
} as const satisfies Record<string, readonly string[]>;

export const HELMET_OPTIONS: FastifyHelmetOptions = {
  // Only our directives: helmet's defaults would add upgrade-insecure-requests, which breaks
  // a console asked to serve plain HTTP, and loosen style-src and img-src.
  contentSecurityPolicy: {
    useDefaults: false,
    directives: Object.fromEntries(
      Object.entries(CONTENT_SECURITY_DIRECTIVES).map(([name, sources]) => [name, [...sources]]),
    ),
  },
  xFrameOptions: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  crossOriginOpenerPolicy: { policy: 'same-origin' },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  // HSTS is per host name, not per port: from a console on `localhost` it would force every
  // other local service of that browser onto HTTPS for a year. A proxy in front may add it.
  strictTransportSecurity: false,
};

/**
 * The page headers on every answer, through helmet. Register it before any other hook:
 * fastify runs hooks in the order they are added, and an earlier hook that refuses the
 * request (the origin check) must not leave an answer without them.
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  void app.register(fastifyHelmet, HELMET_OPTIONS);
  // Data answers are never stored by a browser or a proxy; the pages set their own policy.
  app.addHook('onSend', async (_request, reply) => {
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
  });
}
