/**
 * `svc policy replay` through the built binary on a data dir: the report and its counts in
 * --json and in text, the journal range, an invalid candidate (exit 3) and an unknown tenant
 * (exit 3), and the database left as it was.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admits } from '../../src/core/constraints.js';
import { PolicyCache } from '../../src/daemon/policy-cache.js';
import type { Store } from '../../src/store/ports.js';
import { runJson, runSvc } from '../helpers/cli.js';
import { decisionRequest } from '../helpers/decision-request.js';
import { fixture, type Fixture } from '../helpers/fixture.js';
import { capability, register } from '../helpers/registry.js';

const LIVE =
  '@id("up-to-500") permit (principal, action, resource) when { context.amount_micros <= 500000000 };\n';
const CANDIDATE = `${LIVE}@id("limit-100") forbid (principal, action, resource) when { context.amount_micros > 100000000 };\n`;
const AMOUNTS = [5, 150, 99, 250, 600];

describe('svc policy replay (built binary)', () => {
  let f: Fixture<Store>;
  let env: Record<string, string>;
  let candidate: string;
  const digest = () => createHash('sha256').update(readFileSync(f.dir.database)).digest('hex');

  beforeAll(async () => {
    f = await fixture();
    await register(f.store, 'acme', {
      caps: [capability('acme', 'refunds.issue', { actions: ['refund'] })],
      grants: [['bot', 'refunds.issue']],
      policy: LIVE,
      tasks: [{ id: 't1', sponsor: 'alice', budget: 10n ** 15n, actors: ['bot'] }],
    });
    const bot = (await f.store.actors.get('acme', 'bot'))!;
    const rules = { policy: new PolicyCache(), constraints: admits };
    for (const [i, amountUsd] of AMOUNTS.entries()) {
      const req = decisionRequest({
        capability: 'refunds.issue',
        action: 'refund',
        step: `r${i}`,
        amountUsd,
      });
      await f.store.decisions.decide(req, bot, 'new', rules);
    }
    // refused before the policy step: no permission
    await f.store.decisions.decide(
      decisionRequest({ capability: 'refunds.issue', actorId: 'alice', step: 'x' }),
      (await f.store.actors.get('acme', 'alice'))!,
      'new',
      rules,
    );
    await f.store.close();
    env = { SVC_HOME: f.dir.root };
    candidate = join(f.dir.root, '..', 'candidate.cedar');
    writeFileSync(candidate, CANDIDATE);
  });
  afterAll(async () => {
    await f.close();
  });

  it('reports what the candidate changes, counts what it skips, and writes nothing', async () => {
    const before = digest();
    const r = await runJson<Record<string, unknown>>(
      ['policy', 'replay', '--tenant', 'acme', '--candidate', candidate],
      env,
    );
    expect(r).toMatchObject({
      tenant_id: 'acme',
      read: AMOUNTS.length + 1,
      replayed: AMOUNTS.length,
      skipped: { unrecorded: 0, before_policy: 1, unreadable: 0 },
      policy_versions: [1],
      evaluated: AMOUNTS.length,
      differing: 3,
      to_approval: 0,
    });
    const pairs = (r.by_pair as { pair: string; count: number }[]).map((p) => [p.pair, p.count]);
    expect(pairs).toEqual([
      ['allowed->refused', 2],
      ['refused->refused', 1],
    ]);
    const text = await runSvc(['policy', 'replay', '--tenant', 'acme', '--candidate', candidate], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^Replayed 5 decisions of tenant acme against .*candidate\.cedar \(journal 1 to 5, policy versions 1\)\nSkipped: 1 refused before the policy step\.\nCompared 5 decisions: 3 would change, 0 would go to approval\./,
    );
    const ranged = await runJson<{ replayed: number; first_seq: number; last_seq: number }>(
      ['policy', 'replay', '--tenant', 'acme', '--candidate', candidate, '--from', '2', '--to', '3'],
      env,
    );
    expect(ranged).toMatchObject({ replayed: 2, first_seq: 2, last_seq: 3 });
    expect(digest()).toBe(before);
  }, 60_000);

  it('refuses a candidate that does not validate (exit 3) and an unknown tenant (exit 3)', async () => {
    const bad = join(f.dir.root, '..', 'bad.cedar');
    writeFileSync(bad, 'permit (principal, action == Action::"launch", resource);\n');
    const invalid = await runSvc(['policy', 'replay', '--tenant', 'acme', '--candidate', bad, '--json'], env);
    expect(invalid.code).toBe(3);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ error: { code: 'policy_invalid' } });
    const unknown = await runSvc(['policy', 'replay', '--tenant', 'nobody', '--candidate', candidate], env);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/no tenant nobody/);
    const both = await runSvc(
      ['policy', 'replay', '--tenant', 'acme', '--candidate', candidate, '--since', '1d', '--from', '2'],
      env,
    );
    expect(both.code).toBe(2);
  }, 60_000);
});
