import { z } from 'zod';
import { EVENT_WEBHOOKS } from '../../api/event-webhooks.js';
import { openApiDocument } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { packageVersion } from '../../http/version.js';

export function openApiRoute(all: () => readonly AnyRoute[]) {
  return defineRoute({
    method: 'GET',
    url: '/v1/openapi.json',
    summary: 'this OpenAPI 3.1 document',
    tag: 'Meta',
    auth: 'token',
    responses: { 200: { description: 'the OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
    handler: async () => openApiDocument(all(), { version: packageVersion(), webhooks: EVENT_WEBHOOKS }),
  });
}
