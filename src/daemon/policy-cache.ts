import { authorize, authorizeUncached } from '../policy/authorization.js';
import { compilePolicySet, type CompiledPolicySet } from '../policy/policy-set.js';
import { verbsOf } from '../policy/verbs.js';
import type { DecisionRules } from '../core/decision/decide.js';
import type { PolicyResolver, PolicySource, ResolvedPolicy } from '../store/decision-ports.js';

type PolicyFn = DecisionRules['policy'];

/**
 * Compiled policy per tenant, keyed by the tenant's registry version (bumped in the same
 * transaction as every capability or policy change). The version is read inside each
 * decision's transaction, so a change made by the CLI applies to the very next decision.
 */
export class PolicyCache implements PolicyResolver {
  /**
   * `answers: 'engine'` evaluates every request instead of answering repeats from the
   * compiled set's answer cache: for measuring the engine, and for an operator who wants
   * to rule the cache out (`SVC_POLICY_ANSWER_CACHE=off`); decisions are the same either way.
   */
  constructor(private readonly answers: 'cached' | 'engine' = 'cached') {}

  private readonly byTenant = new Map<string, { registryVersion: number; policy: ResolvedPolicy }>();

  cached(tenantId: string, registryVersion: number): ResolvedPolicy | undefined {
    const hit = this.byTenant.get(tenantId);
    return hit && hit.registryVersion === registryVersion ? hit.policy : undefined;
  }

  install(tenantId: string, registryVersion: number, { text, verbs, version }: PolicySource): ResolvedPolicy {
    const evaluate = text === null ? this.evaluate(tenantId, null) : this.compile(tenantId, text, verbs);
    // The stored version travels with its compile: a decision answered from the cache names
    // the version that was compiled, whatever has been stored since.
    const policy = { evaluate, version: text === null ? 0 : version };
    this.byTenant.set(tenantId, { registryVersion, policy });
    return policy;
  }

  private compile(tenantId: string, text: string, verbs: string[]): PolicyFn {
    let compiled: CompiledPolicySet;
    try {
      compiled = compilePolicySet(text, verbsOf([{ actions: verbs }]));
    } catch {
      // A stored text that no longer validates (the registry changed under it) denies: fail closed.
      return () => ({
        allow: false,
        noPolicy: false,
        reason: 'the tenant policy no longer validates against its registered capabilities',
        remedy: `check it with svc policy validate --tenant ${tenantId} and install a corrected one`,
        determining: [],
      });
    }
    return this.evaluate(tenantId, compiled);
  }

  private evaluate(tenantId: string, compiled: CompiledPolicySet | null): PolicyFn {
    return (q) => {
      const request = { ...q, tenantId };
      const d =
        this.answers === 'cached' ? authorize(compiled, request) : authorizeUncached(compiled, request);
      return {
        allow: d.decision === 'allow',
        noPolicy: d.basis === 'no_policy_set',
        ...(d.reason !== undefined ? { reason: d.reason } : {}),
        ...(d.remedy !== undefined ? { remedy: d.remedy } : {}),
        determining: d.determining,
      };
    };
  }
}
