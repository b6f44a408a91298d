import { SvcError } from '../core/errors.js';
import { Surfaces } from '../integration/surfaces.js';
import type { DaemonDeps } from './deps.js';

const refuse = (): never => {
  throw new SvcError('internal', 'these dependencies only describe routes; they serve no request');
};

/** Dependencies for describing the routes (OpenAPI) without opening a store. */
export function describeOnlyDeps(): DaemonDeps {
  return {
    store: new Proxy({}, { get: refuse }) as DaemonDeps['store'],
    clock: () => new Date(),
    authMode: 'token',
    readiness: async () => refuse(),
    capabilitiesFor: async () => refuse(),
    decisions: { decide: async () => refuse() },
    rules: { policy: { cached: refuse, install: refuse }, constraints: refuse },
    surfaces: new Surfaces(undefined),
    broker: new Proxy({}, { get: refuse }) as DaemonDeps['broker'],
    channels: new Proxy({}, { get: refuse }) as DaemonDeps['channels'],
    // Described even though a daemon mounts them only with a document: `svc openapi` shows them.
    integration: new Proxy({}, { get: refuse }) as NonNullable<DaemonDeps['integration']>,
  };
}
