import type { AuthMode } from '../http/auth.js';
import type { OutboundPolicy } from '../notify/outbound-policy.js';
import type { Surfaces } from '../integration/surfaces.js';
import type { ThemeRepo } from '../store/console-ports.js';
import type { ReplayBounds } from '../provisioning/policy-replay.js';
import type { Store } from '../store/ports.js';
import type { RecordedDecisions } from '../store/replay-ports.js';
import type { AssetStore } from '../store/asset-store.js';
import type { DataDir } from '../store/data-dir.js';
import type { Sessions } from './session.js';

/** Everything the console app needs, injected: the factory opens nothing and listens on nothing. */
export interface ConsoleDeps {
  store: Store;
  themes: ThemeRepo;
  sessions: Sessions;
  assets: AssetStore;
  clock: () => Date;
  /** how sign-in authenticates: a bearer token, or the client certificate under mutual TLS */
  authMode: AuthMode;
  /** the configured surfaces (from --integration-ops), for the Integrations page */
  surfaces?: Surfaces;
  /**
   * The recorded decisions a replay reads, opened read-only for one replay (the caller closes
   * them): the console's own store connection is never used for it, so a replay writes nothing.
   */
  recorded: () => Promise<RecordedDecisions>;
  /** a replay's bounds, where they differ from the defaults (policy-changes.ts) */
  replayBounds?: Partial<ReplayBounds>;
  /**
   * The data dir, for the secret store's sealing key: a notification destination's secret is
   * sealed (and a test send opens it) as `svc notify add` and `svc notify test` do.
   */
  dataDir?: DataDir;
  /** what a test send may reach (`--notify-allow-loopback-http`, `--notify-allow-private`) */
  notifyOutbound?: OutboundPolicy;
  /** the built UI (index.html and assets/); undefined serves only the API */
  uiDir?: string;
}
