// The Cedar step of a decision on one core, for the example policy, in one process and run,
// measured in CPU time of this thread (process.cpuUsage), median of three rounds:
// - a repeated request answered from the set's cache;
// - a fresh amount in every request through the cache (an interval of the amount's
//   constants answers it when the analysis can prove that sound, else the engine does);
// - a miss: the engine evaluating every request (`authorizeUncached`), after this work
//   (the lean call of engine-call.ts) and before it (the full call: schema, request
//   validation, every attribute), with where the time goes: the JavaScript around the
//   engine, the engine with a permit-all set given the same values (crossing into the
//   engine and building its entities and context), and the evaluation of the policies.
import { dist } from './harness.mjs';

const { authorize, authorizeUncached, engineRequest } = await import(dist('src/policy/authorization.js'));
const { authorizationCacheStats } = await import(dist('src/policy/authorization-cache.js'));
const { fullCall, leanCall } = await import(dist('src/policy/engine-call.js'));
const { EXAMPLE_POLICY } = await import(dist('src/policy/example-policy.js'));
const { compilePolicySet } = await import(dist('src/policy/policy-set.js'));
const { statefulIsAuthorized } = await import(dist('src/policy/cedar-engine.js'));

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

/** CPU microseconds per call of `fn(i)`, after a warm-up of the JIT and the engine. */
function cpuUs(fn, calls) {
  for (let i = 0; i < 2_000; i++) fn(i);
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) fn(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function policyBench(calls = 20_000, rounds = 3) {
  const compiled = compilePolicySet(EXAMPLE_POLICY, ['read']);
  const permitAll = compilePolicySet('permit (principal, action, resource);', ['read']);
  if (authorize(compiled, request).decision !== 'allow') throw new Error('the example policy should allow');
  // Fresh amounts below the policy's 1000 USD limit: every request allowed, none repeated.
  const fresh = (i) => ({ ...request, amountMicros: 1_000_000n + BigInt(i) * 7n });
  const inputs = Array.from({ length: calls + 2_000 }, (_, i) => engineRequest(fresh(i)));
  const figures = [];
  let offset = 0;
  for (let r = 0; r < rounds; r++) {
    // Each round's fresh amounts are new to the cache too.
    const base = offset;
    offset += calls + 2_000;
    const f = {
      cached_us: cpuUs(() => authorize(compiled, request), calls),
      fresh_us: cpuUs((i) => authorize(compiled, fresh(base + i)), calls),
      miss_us: cpuUs((i) => authorizeUncached(compiled, fresh(i)), calls),
      engine_lean_us: cpuUs((i) => statefulIsAuthorized(leanCall(compiled, inputs[i])), calls),
      engine_full_us: cpuUs((i) => statefulIsAuthorized(fullCall(compiled, inputs[i])), calls),
      crossing_us: cpuUs(
        (i) => statefulIsAuthorized({ ...leanCall(compiled, inputs[i]), preparsedPolicySetId: permitAll.id }),
        calls,
      ),
    };
    figures.push(f);
  }
  const m = (k) => median(figures.map((f) => f[k]));
  const outside = Math.max(0, m('miss_us') - m('engine_lean_us'));
  return {
    cached_us: m('cached_us'),
    fresh_us: m('fresh_us'),
    miss_us: m('miss_us'),
    before_miss_us: outside + m('engine_full_us'),
    outside_engine_us: outside,
    crossing_us: m('crossing_us'),
    evaluation_us: Math.max(0, m('engine_lean_us') - m('crossing_us')),
    engine_full_us: m('engine_full_us'),
    stats: authorizationCacheStats(compiled),
  };
}
