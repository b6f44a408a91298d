import { SvcError } from '../core/errors.js';
import type { DataDir } from '../store/data-dir.js';
import { Keyring } from '../store/keyring.js';
import type { Store } from '../store/ports.js';
import type { AuthMode } from './auth.js';
import type { DaemonDeps } from './deps.js';

/** The production dependencies of the daemon over one data dir and store. */
export function daemonDeps(
  dir: DataDir,
  store: Store,
  opts: { authMode: AuthMode; clock?: () => Date },
): DaemonDeps {
  const keyring = new Keyring(dir, store);
  return {
    store,
    clock: opts.clock ?? (() => new Date()),
    authMode: opts.authMode,
    readiness: async () => {
      try {
        await store.ping();
      } catch {
        return 'the store is not open or not writable';
      }
      try {
        for (const t of await store.tenants.list()) await keyring.active(t.id);
      } catch (err) {
        return err instanceof SvcError ? err.reason : 'a signing key cannot be loaded';
      }
      return undefined;
    },
    capabilitiesFor: async () => [],
  };
}
