import { SvcError } from '../../core/errors.js';

/**
 * A port with no PostgreSQL adapter yet. Every call throws `unavailable` naming the port,
 * so a deployment on PostgreSQL fails loudly at the first use instead of silently doing
 * nothing (the daemon's start-up touches executions, so it refuses to start).
 */
export function notYetOnPostgres<T extends object>(port: string): T {
  return new Proxy({} as T, {
    get(_target, prop) {
      // Not a thenable: `await store.x` must not call into the proxy.
      if (prop === 'then' || typeof prop === 'symbol') return undefined;
      return () => {
        throw new SvcError('unavailable', `${port} (${String(prop)}) is not yet available on PostgreSQL`, {
          remedy: 'use the SQLite store of the data dir (no --store / SVC_STORE) for this deployment',
        });
      };
    },
  });
}
