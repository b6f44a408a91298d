import { statefulIsAuthorized, type AuthorizationAnswer } from '../../../src/policy/cedar-engine.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { engineRequest, type PolicyRequest } from '../../../src/policy/authorization.js';
import { wellTyped, type EngineInput } from '../../../src/policy/authorization-cache.js';
import { fullCall, leanCall } from '../../../src/policy/engine-call.js';
import { EXAMPLE_POLICY } from '../../../src/policy/example-policy.js';
import { compilePolicySet } from '../../../src/policy/policy-set.js';
import { request } from './fixtures.js';
import { policySet, requestPool, VERBS } from './policy-arbitraries.js';

function inputOf(r: PolicyRequest): EngineInput {
  const input = engineRequest(r);
  if (typeof input === 'string') throw new Error(input);
  return input;
}

/** `allow`/`deny` with the deciding policies, or `unclean` for an error or a failure. */
function clean(a: AuthorizationAnswer): { decision: string; reason: string[] } | 'unclean' {
  if (a.type === 'failure' || a.response.diagnostics.errors.length > 0) return 'unclean';
  return { decision: a.response.decision, reason: [...a.response.diagnostics.reason].sort() };
}

describe('the lean engine call', () => {
  it('answers every well-typed request of every random policy set as the full call does', () => {
    const seen = { compared: 0, allow: 0, deny: 0, unclean: 0, untyped: 0 };
    fc.assert(
      fc.property(policySet, requestPool, (text, pool) => {
        const compiled = compilePolicySet(text, VERBS);
        for (const r of pool) {
          // Unknown verbs and unrepresentable values are refused before the engine.
          const input = engineRequest(r);
          if (!compiled.actions.includes(r.action) || typeof input === 'string') continue;
          if (!wellTyped(input)) {
            seen.untyped++;
            continue;
          }
          const full = clean(statefulIsAuthorized(fullCall(compiled, input)));
          const lean = clean(statefulIsAuthorized(leanCall(compiled, input)));
          // Cleanliness too: a lean call that errored where the full one did not would send
          // every such request through the engine twice.
          expect(lean).toEqual(full);
          seen.compared++;
          if (full === 'unclean') seen.unclean++;
          else seen[full.decision as 'allow' | 'deny']++;
        }
      }),
      { numRuns: 300 },
    );
    // Not vacuous: allows, denies, errors and ill-typed requests all occurred.
    expect(seen.allow).toBeGreaterThan(0);
    expect(seen.deny).toBeGreaterThan(0);
    expect(seen.unclean).toBeGreaterThan(0);
    expect(seen.untyped).toBeGreaterThan(0);
  });

  it('gives the engine only what the example policy reads', () => {
    const compiled = compilePolicySet(EXAMPLE_POLICY, VERBS);
    const call = leanCall(compiled, inputOf(request()));
    expect(call.context).toEqual({ amount_micros: 5_000_000, route: 'action', tier: 1 });
    expect(call.entities.map((e) => e.attrs)).toEqual([
      { kind: 'agent', manager: 'alice', roles: [] },
      { irreversible: false },
    ]);
    expect(call.preparsedSchemaName).toBeUndefined();
    expect(fullCall(compiled, inputOf(request())).validateRequest).toBe(true);
  });

  it('gives a set the analysis cannot read every attribute', () => {
    const compiled = compilePolicySet(
      'permit (principal, action, resource) when { Actor::"x".kind == "agent" };',
      VERBS,
    );
    const input = inputOf(request());
    const call = leanCall(compiled, input);
    expect(call.context).toEqual(input.context);
    expect(call.entities.map((e) => e.attrs)).toEqual([input.principal, input.resource]);
  });
});
