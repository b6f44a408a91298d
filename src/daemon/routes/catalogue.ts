import { z } from 'zod';
import type { Capability } from '../../core/capability.js';
import { formatUsd } from '../../core/money.js';
import type { DaemonDeps } from '../deps.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { CatalogueEntry } from '../../api/catalogue.js';
import type { CapabilityEntry } from '../../api/discovery.js';

export function capabilityEntry(c: Capability): z.output<typeof CapabilityEntry> {
  return { name: c.name, tier: c.tier, irreversible: c.irreversible, custody: c.custody, actions: c.actions };
}

function catalogueEntry(c: Capability): z.output<typeof CatalogueEntry> {
  return { ...capabilityEntry(c), default_amount_usd: formatUsd(c.costMicros) };
}

/** `GET /v1/catalogue`: what the caller can ask access to; a plain array, not a page. */
export function catalogueRoutes(deps: DaemonDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/catalogue',
      operationId: 'catalogue',
      summary: 'capabilities this caller can request access to: requestable, and not already held',
      tag: 'Discovery',
      auth: 'token',
      responses: { 200: { description: 'the catalogue, by name', schema: z.array(CatalogueEntry) } },
      handler: async ({ caller }) =>
        (await deps.store.discovery.catalogue(caller.tenantId, caller.actorId, deps.clock())).map(
          catalogueEntry,
        ),
    }),
  ];
}
