import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonOpenApi } from '../../src/daemon/app.js';
import { describeOnlyDeps } from '../../src/daemon/describe-only.js';
import { OPERATIONS } from '../../src/sdk/wire.js';
import { ROOT } from '../helpers/cli.js';
import { runSuite, sdkHarness, type SdkHarness } from '../helpers/sdk-harness.js';
import { tmpDir } from '../helpers/tmp.js';

const SDK = join(ROOT, 'src/sdk/go');

/** The Go SDK's own `go test` against a real daemon over TLS; its example agent too. */
describe('Go SDK against a real daemon', () => {
  let h: SdkHarness;
  const cache = tmpDir('svc-go-');
  // Standard library only: nothing may be fetched.
  const goEnv = {
    GOPROXY: 'off',
    GOFLAGS: '-mod=mod',
    GOCACHE: join(cache.path, 'build'),
    GOPATH: join(cache.path, 'gopath'),
  };
  beforeAll(async () => {
    h = await sdkHarness('reports.go');
  });
  afterAll(async () => {
    await h?.close();
    cache.cleanup();
  });

  it('vets and passes its own tests: every method, every outcome, reconcile', async () => {
    const vet = await runSuite('go', ['vet', './...'], SDK, goEnv);
    expect(vet.code, vet.output).toBe(0);
    // The daemon's OpenAPI document, which the Go structs are checked against.
    const openapi = join(cache.path, 'openapi.json');
    writeFileSync(openapi, JSON.stringify(daemonOpenApi(describeOnlyDeps())));
    const run = await runSuite('go', ['test', '-count=1', '-v', './...'], SDK, {
      ...goEnv,
      ...h.env,
      SVC_TEST_OPENAPI: openapi,
      SVC_TEST_OPERATIONS: JSON.stringify(Object.keys(OPERATIONS)),
    });
    expect(run.code, run.output).toBe(0);
    expect(run.output.match(/^--- PASS/gm)).toHaveLength(13);
    expect(run.output).not.toMatch(/--- (FAIL|SKIP)/);
  }, 240_000);

  it('the example agent asks, and reports the decision', async () => {
    const env = {
      ...goEnv,
      SVC_ENDPOINT: h.env.SVC_ENDPOINT!,
      SVC_TOKEN: h.env.SVC_TOKEN!,
      SVC_CA_CERT: h.env.SVC_CA_CERT!,
    };
    const allowed = await runSuite('go', ['run', './examples/agent', 'notes.read', 'read', 't1'], SDK, env);
    expect(allowed.code, allowed.output).toBe(0);
    expect(allowed.output).toMatch(/bot asks to read notes.read for task t1\nallowed: intent int_/);
    const deferred = await runSuite('go', ['run', './examples/agent', 'payments.send'], SDK, env);
    expect(deferred.output).toMatch(/deferred: waiting for approval apr_/);
  }, 240_000);
});
