// The Cedar step of a decision on one core: `authorize` answering a repeated request from
// its cache against the engine evaluating every request, for the example policy, in the
// same process and run.
import { dist } from './harness.mjs';

const { authorize, authorizeUncached } = await import(dist('src/policy/authorization.js'));
const { authorizationCacheStats } = await import(dist('src/policy/authorization-cache.js'));
const { EXAMPLE_POLICY } = await import(dist('src/policy/example-policy.js'));
const { compilePolicySet } = await import(dist('src/policy/policy-set.js'));

const request = {
  tenantId: 'default',
  actor: { id: 'bench-agent', kind: 'agent', roles: [], manager: 'admin' },
  capability: { id: 'bench.read', tier: 0, irreversible: false, custody: 'grant' },
  action: 'read',
  taskId: 'bench',
  amountMicros: 10_000n,
  route: 'action',
  nowEpochS: 1_800_000_000,
};

function perCallUs(fn, calls) {
  for (let i = 0; i < 2_000; i++) fn(); // warm up the JIT and the engine
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn();
  return Number(process.hrtime.bigint() - t0) / 1e3 / calls;
}

export function policyBench(calls = 20_000) {
  const compiled = compilePolicySet(EXAMPLE_POLICY, ['read']);
  const uncached = perCallUs(() => authorizeUncached(compiled, request), calls);
  const cached = perCallUs(() => authorize(compiled, request), calls);
  // Every request distinct in what the policy reads: each one a miss, evaluated and kept.
  let amount = 0n;
  const missing = perCallUs(() => authorize(compiled, { ...request, amountMicros: amount++ }), calls);
  if (authorize(compiled, request).decision !== 'allow') throw new Error('the example policy should allow');
  return {
    uncached_us: uncached,
    cached_us: cached,
    miss_us: missing,
    stats: authorizationCacheStats(compiled),
  };
}
