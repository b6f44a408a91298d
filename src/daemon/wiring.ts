import { SubscriberCache } from '../core/notify/subscriber-cache.js';
import { ApprovalChannels } from '../channels/callback.js';
import { OpenIdKeys } from '../channels/openid-keys.js';
import { SvcError } from '../core/errors.js';
import type { DataDir } from '../store/data-dir.js';
import { Keyring } from '../store/keyring.js';
import type { Store } from '../store/ports.js';
import type { AuthMode } from '../http/auth.js';
import { admits } from '../core/constraints.js';
import { DEFAULT_OPEN_APPROVAL_LIMITS, type OpenApprovalLimits } from '../core/decision/open-approvals.js';
import type { DaemonDeps } from './deps.js';
import { HttpConnector } from '../connectors/http.js';
import { Broker } from '../integration/broker.js';
import { CredentialResolver } from '../integration/credentials.js';
import type { IntegrationDocument } from '../integration/document.js';
import { IntegrationOps } from '../integration/operations.js';
import { openSecretBox } from '../integration/secret-key-source.js';
import { Surfaces } from '../integration/surfaces.js';
import { capabilityEntry } from './routes/catalogue.js';
import { PolicyCache } from './policy-cache.js';
import { PolicyShadow } from './policy-shadow.js';
import type { AttestationHealth } from './attest/anchor-attestor.js';
import type { NotifyCounts } from '../store/notify-ports.js';

/** The production dependencies of the daemon over one data dir and store. */
export function daemonDeps(
  dir: DataDir,
  store: Store,
  opts: {
    authMode: AuthMode;
    clock?: () => Date;
    integration?: IntegrationDocument;
    attestations?: () => AttestationHealth;
    /** notification deliveries pending and dead, destinations disabled, for /readyz */
    notifications?: () => Promise<NotifyCounts>;
    /** the bound on open approvals per requester and per task (default DEFAULT_OPEN_APPROVAL_LIMITS) */
    openApprovals?: OpenApprovalLimits;
    /** `false`: the policy engine evaluates every request (PolicyCache) */
    policyAnswerCache?: boolean;
  },
): DaemonDeps {
  const keyring = new Keyring(dir, store);
  const clock = opts.clock ?? (() => new Date());
  const surfaces = new Surfaces(opts.integration);
  const credentials = new CredentialResolver(store.secrets, () =>
    openSecretBox(dir, store, { create: false }),
  );
  const connector = new HttpConnector();
  return {
    store,
    clock,
    authMode: opts.authMode,
    readiness: async () => {
      try {
        await store.ping();
      } catch (err) {
        return { reason: 'the store is not open or not writable', detail: (err as Error).message };
      }
      try {
        for (const t of await store.tenants.list()) await keyring.active(t.id);
      } catch (err) {
        return {
          reason: 'a signing key cannot be loaded',
          detail: err instanceof SvcError ? err.reason : (err as Error).message,
        };
      }
      return undefined;
    },
    capabilitiesFor: async (caller) =>
      (await store.discovery.held(caller.tenantId, caller.actorId, clock())).map(capabilityEntry),
    decisions: store.decisions,
    rules: {
      policy: new PolicyCache(opts.policyAnswerCache === false ? 'engine' : 'cached'),
      constraints: admits,
      openApprovals: opts.openApprovals ?? DEFAULT_OPEN_APPROVAL_LIMITS,
      subscribers: new SubscriberCache(),
    },
    surfaces,
    broker: new Broker(surfaces, store, credentials, connector),
    ...(opts.integration ? { integration: new IntegrationOps(surfaces, store, credentials, connector) } : {}),
    channels: new ApprovalChannels(store, credentials, new OpenIdKeys(), clock),
    shadow: new PolicyShadow(store),
    ...(opts.attestations ? { attestations: opts.attestations } : {}),
    ...(opts.notifications ? { notifications: opts.notifications } : {}),
  };
}
