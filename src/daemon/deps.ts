import type { Store } from '../store/ports.js';
import type { AuthMode } from './auth.js';
import type { Caller } from './caller.js';
import type { z } from 'zod';
import type { CapabilityEntry } from './routes/discovery.js';

/** Everything the daemon app needs, injected: the factory opens nothing and listens on nothing. */
export interface DaemonDeps {
  store: Store;
  clock: () => Date;
  authMode: AuthMode;
  /** undefined when ready, else the reason it is not */
  readiness: () => Promise<string | undefined>;
  capabilitiesFor: (caller: Caller) => Promise<z.output<typeof CapabilityEntry>[]>;
}
