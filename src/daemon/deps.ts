import type { SubscriberCache } from '../core/notify/subscriber-cache.js';
import type { ApprovalChannels } from '../channels/callback.js';
import type { AttestationHealth } from './attest/anchor-attestor.js';
import type { DecisionRules } from '../core/decision/decide.js';
import type { OpenApprovalLimits } from '../core/decision/open-approvals.js';
import type { Broker } from '../integration/broker.js';
import type { IntegrationOps } from '../integration/operations.js';
import type { Surfaces } from '../integration/surfaces.js';
import type { DecisionStore, PolicyResolver } from '../store/decision-ports.js';
import type { Store } from '../store/ports.js';
import type { AuthMode } from '../http/auth.js';
import type { AuthCache } from '../http/auth-cache.js';
import type { Caller } from '../http/caller.js';
import type { z } from 'zod';
import type { CapabilityEntry } from '../api/discovery.js';
import type { DecisionMetrics } from '../metrics/registry.js';
import type { NotifyCounts } from '../store/notify-ports.js';
import type { PolicyShadow } from './policy-shadow.js';

/** Everything the daemon app needs, injected: the factory opens nothing and listens on nothing. */
export interface DaemonDeps {
  store: Store;
  clock: () => Date;
  authMode: AuthMode;
  /**
   * undefined when ready; else what an unauthenticated caller may be told (`reason`, no
   * path, tenant or key id) and what only the log gets (`detail`)
   */
  readiness: () => Promise<{ reason: string; detail: string } | undefined>;
  /** true once the daemon is stopping: `/readyz` then answers 503 `draining` before anything else */
  draining?: () => boolean;
  capabilitiesFor: (caller: Caller) => Promise<z.output<typeof CapabilityEntry>[]>;
  decisions: DecisionStore;
  rules: {
    policy: PolicyResolver;
    constraints: DecisionRules['constraints'];
    openApprovals?: OpenApprovalLimits;
    subscribers?: SubscriberCache;
  };
  /** the configured surfaces; empty without an integration-operations document */
  surfaces: Surfaces;
  /** brokered execution; without a document it refuses every brokered capability at step 7 */
  broker: Broker;
  /** the integration-operations routes' work; undefined without a document, and the routes absent */
  integration?: IntegrationOps;
  /** the approval-channel callbacks: each channel proves itself, then decides through the store */
  channels: ApprovalChannels;
  /** witness and timestamp-authority health for /readyz (counts only); absent in app-only tests */
  attestations?: () => AttestationHealth;
  /** notification deliveries pending and dead, destinations disabled, for /readyz (counts only) */
  notifications?: () => Promise<NotifyCounts>;
  /** the verified-token cache; one of its own per app when absent (metrics read its hit counts) */
  authCache?: AuthCache;
  /** told of every decision answered (`--metrics-listen`); absent, nothing is counted */
  metrics?: DecisionMetrics;
  /** compares sealed decisions with a tenant's shadow policy after the commit; absent, none is */
  shadow?: PolicyShadow;
}
