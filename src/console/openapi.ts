import { openApiDocument } from '../http/openapi.js';
import type { AnyRoute } from '../http/route.js';

/**
 * The console's own OpenAPI 3.1 document, from the same route table that mounts it. The
 * console authenticates by session cookie, and every POST also by its CSRF header.
 */
export function consoleOpenApi(routes: readonly AnyRoute[], version: string, cookieName: string) {
  const doc = openApiDocument(routes, { version }) as {
    info: Record<string, unknown>;
    servers: unknown[];
    paths: Record<string, Record<string, { security?: unknown[] }>>;
    components: { securitySchemes: Record<string, unknown> };
  };
  doc.info = {
    title: 'svc console',
    version,
    description:
      'The operator console routes, on their own listener (default 127.0.0.1:8091); never on the daemon address. Sign in with POST /api/session, then send the session cookie, and X-CSRF-Token on every POST.',
  };
  doc.servers = [{ url: 'https://127.0.0.1:8091' }];
  doc.components.securitySchemes = {
    consoleSession: { type: 'apiKey', in: 'cookie', name: cookieName },
    csrfToken: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token' },
  };
  for (const ops of Object.values(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (op.security === undefined || op.security.length === 0) continue;
      op.security = method === 'post' ? [{ consoleSession: [], csrfToken: [] }] : [{ consoleSession: [] }];
    }
  }
  return doc;
}
