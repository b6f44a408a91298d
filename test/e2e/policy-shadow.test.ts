import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJson, runSvc, startDaemonProcess } from '../helpers/cli.js';
import { tmpDir } from '../helpers/tmp.js';

const LIVE = `@id("refunds-up-to-500")
permit (principal, action, resource) when { context.amount_micros <= 500000000 };
`;
const CANDIDATE = `${LIVE}
@id("refund-limit-100")
forbid (principal, action, resource) when { context.amount_micros > 100000000 };
`;
const AMOUNTS = [10, 100, 100.5, 250, 499, 600, 75, 120];
const TIGHTENED = AMOUNTS.filter((a) => a > 100 && a <= 500).length;

/** The built binary: the CLI writes the candidate, a running daemon compares live HTTP traffic with it. */
describe('svc policy shadow', () => {
  const tmp = tmpDir('svc-e2e-shadow-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  const file = (name: string, text: string) => {
    const path = join(tmp.path, name);
    writeFileSync(path, text);
    return path;
  };
  let bot: string;
  beforeAll(async () => {
    await runJson(['init', ...t, '--admin', 'alice'], env);
    await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
    await runJson(
      [
        'capability',
        'register',
        ...t,
        '--name',
        'refunds.issue',
        '--actions',
        'write',
        '--tier',
        '1',
        '--cost-usd',
        '1',
      ],
      env,
    );
    await runJson(['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'refunds.issue'], env);
    await runJson(['policy', 'set', ...t, '--file', file('live.cedar', LIVE)], env);
    await runJson(
      [
        'task',
        'create',
        ...t,
        '--id',
        't1',
        '--sponsor',
        'alice',
        '--budget-usd',
        '100000',
        '--actor',
        'bot',
      ],
      env,
    );
    bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
  });
  afterAll(() => tmp.cleanup());

  it('refuses a candidate that does not validate with exit 3, naming the file and the line', async () => {
    const r = await runSvc(
      [
        'policy',
        'shadow',
        'set',
        ...t,
        '--file',
        file('bad.cedar', 'permit (principal, action == Action::"launch", resource);\n'),
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/bad\.cedar:1:\d+/);
    const none = await runSvc(['policy', 'shadow', 'report', ...t, '--json'], env);
    expect(none.code).toBe(3);
    expect(JSON.parse(none.stdout).error).toMatchObject({ code: 'not_found' });
  });

  it('compares live decisions with the candidate and reports exactly those above the new limit as allowed->refused', async () => {
    const set = await runJson<{ candidate_id: string }>(
      ['policy', 'shadow', 'set', ...t, '--file', file('candidate.cedar', CANDIDATE)],
      env,
    );
    const daemon = await startDaemonProcess(['--allow-insecure-http'], env);
    const outcomes: string[] = [];
    try {
      for (const [i, amount] of AMOUNTS.entries()) {
        const res = await fetch(`${daemon.url}/v1/action`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${bot}` },
          body: JSON.stringify({
            tenant_id: 'acme',
            actor_id: 'bot',
            capability: 'refunds.issue',
            action: 'write',
            task_id: 't1',
            effect_key_step: `e2e-${i}`,
            amount_usd: amount,
          }),
        });
        outcomes.push(((await res.json()) as { decision: string }).decision);
      }
    } finally {
      // A stopping daemon compares and records what it decided before its store closes.
      expect(await daemon.stop()).toBe(0);
    }
    // The live policy decided, not the candidate.
    expect(outcomes).toEqual(AMOUNTS.map((a) => (a <= 500 ? 'allowed' : 'refused')));

    const report = await runJson<Record<string, unknown>>(['policy', 'shadow', 'report', ...t], env);
    expect(report).toMatchObject({
      candidate_id: set.candidate_id,
      source: expect.stringMatching(/candidate\.cedar$/),
      evaluated: AMOUNTS.length,
      dropped: 0,
      uncompiled: 0,
      failure: null,
      validates_now: true,
      by_capability: [{ capability: 'refunds.issue', count: expect.any(Number) }],
    });
    const pairs = (report.by_pair as { pair: string; count: number }[]).map((p) => [p.pair, p.count]);
    expect(pairs).toContainEqual(['allowed->refused', TIGHTENED]);

    const text = await runSvc(['policy', 'shadow', 'report', ...t], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`allowed -> refused: ${TIGHTENED}`);
    expect(text.stdout).toMatch(
      /refunds\.issue\s+bot\s+write\s+250\s+allowed \[refunds-up-to-500\]\s+refused policy_denied \[refund-limit-100\]/,
    );

    // The journal the shadowed daemon wrote verifies.
    const out = join(tmp.path, 'acme.jsonl');
    await runJson(['export', ...t, '--out', out], env);
    const publicKey = (await runJson<{ public_key: string }>(['key', 'show', ...t], env)).public_key;
    const verdict = await runSvc(['verify', out, '--public-key', publicKey, '--json'], env);
    expect(verdict.code, verdict.stdout).toBe(0);
    expect(JSON.parse(verdict.stdout).result).toBe('pass');
  });

  it('promotes the candidate through policy set: --test must pass, --message is kept in the history; then clears it', async () => {
    const suite = (name: string, expected: string) =>
      file(
        name,
        [
          'principals:',
          '  bot: { kind: agent, manager: alice }',
          'capabilities:',
          '  refunds.issue: { tier: 1, actions: [write], cost_usd: 1 }',
          'cases:',
          '  - name: a 250 USD refund',
          '    actor: bot',
          '    capability: refunds.issue',
          '    action: write',
          '    amount_usd: 250',
          `    expect: ${expected}`,
          '',
        ].join('\n'),
      );
    const before = await runJson<{ version: number }>(['policy', 'show', ...t], env);
    const failing = await runSvc(
      ['policy', 'shadow', 'promote', ...t, '--test', suite('allowed_test.yaml', 'allowed')],
      env,
    );
    expect(failing.code, failing.stderr).toBe(4);
    expect((await runJson<{ version: number }>(['policy', 'show', ...t], env)).version).toBe(before.version);
    expect((await runSvc(['policy', 'shadow', 'report', ...t], env)).code).toBe(0);

    const promoted = await runJson<{ version: number; changed: boolean }>(
      [
        'policy',
        'shadow',
        'promote',
        ...t,
        '--test',
        suite('refused_test.yaml', '{ outcome: refused, code: policy_denied }'),
        '--message',
        'refunds above 100 USD refused, after the shadow run',
      ],
      env,
    );
    expect(promoted).toMatchObject({ version: before.version + 1, changed: true });
    const shown = await runSvc(['policy', 'show', ...t], env);
    expect(shown.stdout).toBe(CANDIDATE);
    const history = await runSvc(['policy', 'history', ...t, '--json'], env);
    expect(history.stdout).toContain('refunds above 100 USD refused, after the shadow run');
    expect((await runSvc(['policy', 'shadow', 'report', ...t], env)).code).toBe(3);
    expect(await runJson(['policy', 'shadow', 'clear', ...t], env)).toEqual({
      tenant_id: 'acme',
      cleared: false,
    });
  });
});
