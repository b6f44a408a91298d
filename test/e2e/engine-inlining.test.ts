import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const dist = (p: string) => pathToFileURL(join(ROOT, 'dist', p)).href;

// The policy step driven as the policy bench drives it: answers from the cache, fresh amounts,
// the engine every time, and the lean and full engine calls, each from its own closure through
// one timing loop, three rounds. On Node 20 with V8's default inlining of JS-to-Wasm calls this
// process aborted ("unreachable code" in DoComputeBuiltinContinuation) every time.
const SCRIPT = `
const { authorize, authorizeUncached, engineRequest } = await import(${JSON.stringify(dist('src/policy/authorization.js'))});
const { fullCall, leanCall } = await import(${JSON.stringify(dist('src/policy/engine-call.js'))});
const { statefulIsAuthorized } = await import(${JSON.stringify(dist('src/policy/cedar-engine.js'))});
const { EXAMPLE_POLICY } = await import(${JSON.stringify(dist('src/policy/example-policy.js'))});
const { compilePolicySet } = await import(${JSON.stringify(dist('src/policy/policy-set.js'))});
if (process.env.REENABLE === '1') (await import('node:v8')).setFlagsFromString('--turbo-inline-js-wasm-calls');
const request = { tenantId: 't', actor: { id: 'a', kind: 'agent', roles: [], manager: 'm' },
  capability: { id: 'c', tier: 0, irreversible: false, custody: 'grant' }, action: 'read', taskId: 'k',
  amountMicros: 10000n, route: 'action', nowEpochS: 1800000000 };
const compiled = compilePolicySet(EXAMPLE_POLICY, ['read']);
const fresh = (i) => ({ ...request, amountMicros: 1000000n + BigInt(i) * 7n });
const calls = 20000;
const inputs = Array.from({ length: calls + 2000 }, (_, i) => engineRequest(fresh(i)));
const loop = (fn) => { for (let i = 0; i < calls + 2000; i++) fn(i); };
for (let round = 0; round < 3; round++) {
  loop(() => authorize(compiled, request));
  loop((i) => authorize(compiled, fresh(i)));
  loop((i) => authorizeUncached(compiled, fresh(i)));
  loop((i) => statefulIsAuthorized(leanCall(compiled, inputs[i])));
  loop((i) => statefulIsAuthorized(fullCall(compiled, inputs[i])));
}
console.log('ok');
`;

describe('the policy engine under the JIT', () => {
  const tmp = tmpDir('svc-e2e-inlining-');
  afterAll(() => tmp.cleanup());

  it('survives a mix of policy-step workloads in one process (V8 JS-to-Wasm inlining stays off)', () => {
    const file = join(tmp.path, 'mix.mjs');
    writeFileSync(file, SCRIPT);
    const run = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 300_000 });
    expect(run.stderr).not.toMatch(/Fatal error/);
    expect({ status: run.status, signal: run.signal, stdout: run.stdout.trim() }).toEqual({
      status: 0,
      signal: null,
      stdout: 'ok',
    });
  });
});
