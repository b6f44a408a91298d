import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARTIFACTS,
  type ConsoleProcess,
  expectNoPageErrors,
  launchChromium,
  signInAs,
  spkiPin,
  startConsoleProcess,
  watchPageErrors,
} from '../helpers/browser.js';
import { runJson, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { expectAccessible, pageShots } from '../helpers/console-shots.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';
import { until as eventually } from '../helpers/until.js';

const OPEN = 'permit (principal, action, resource);\n';
const TIGHT = [
  '// refunds need a ticket',
  'permit (principal, action == Action::"read", resource);',
  'forbid (principal, action == Action::"write", resource) unless { context has route };',
  '',
].join('\n');

/**
 * The Policies page in a real browser against the built console over TLS: the current
 * version with who set it and its hash, the history, an earlier version's text, and a diff
 * between two chosen versions, coloured by line; an auditor reads it too, an approver is
 * refused by the server. No script error, no CSP violation.
 */
describe('console policies page in chromium (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-console-policies-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  let consoleProc: ConsoleProcess;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const tokens: Record<string, string> = {};
  const pageErrors: string[] = [];
  const svc = <T = Record<string, unknown>>(args: string[]) => runJson<T>(args, env);
  const until = (expression: string) =>
    expect.poll(() => page.evaluate(expression), { timeout: 15_000, interval: 100 }).toBe(true);
  const shot = async (name: string) => {
    const path = join(ARTIFACTS, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    mkdirSync('/tmp/p2-shots', { recursive: true });
    copyFileSync(path, join('/tmp/p2-shots', `${name}.png`));
  };
  const signIn = async (token: string) => {
    await signInAs(page, consoleProc, token, '#/policies');
    await page.getByRole('heading', { name: 'Policies' }).waitFor();
  };
  const file = (name: string, text: string) => {
    const path = join(tmp.path, name);
    writeFileSync(path, text);
    return path;
  };

  beforeAll(async () => {
    const init = await svc<{ admin_token: string; ca_cert: string }>(['init', ...t, '--admin', 'alice']);
    tokens.alice = init.admin_token;
    for (const [id, role] of [
      ['audra', 'auditor'],
      ['bob', 'approver'],
    ] as const) {
      await svc(['actor', 'add', ...t, '--id', id, '--kind', 'human', '--role', role]);
      tokens[id] = (await svc<{ token: string }>(['token', 'issue', ...t, '--actor', id])).token;
    }
    await svc(['policy', 'set', ...t, '--file', file('open.cedar', OPEN), '--message', 'open for the pilot']);
    await svc([
      'policy',
      'set',
      ...t,
      '--file',
      file('tight.cedar', TIGHT),
      '--message',
      'refunds need a ticket',
    ]);
    await svc(['policy', 'rollback', ...t, '--to', '1', '--message', 'agents blocked']);
    consoleProc = await startConsoleProcess([], env);
    browser = await launchChromium(spkiPin(readFileSync(init.ca_cert)));
    page = await browser.context.newPage();
    watchPageErrors(page, pageErrors);
  });

  afterAll(async () => {
    await browser?.close();
    await consoleProc?.stop();
    tmp.cleanup();
  });

  it('shows the current version with who set it, why and its hash, and the history newest first', async () => {
    await signIn(tokens.alice!);
    const current = page.locator('#policy-version');
    await current.waitFor();
    expect(await current.getAttribute('data-version')).toBe('3');
    const text = await current.innerText();
    expect(text).toMatch(/Version 3\s*current/);
    expect(text).toContain('rollback to version 1: agents blocked');
    expect(await current.locator('pre').textContent()).toBe(OPEN);
    const rows = page.locator('#policy-history tbody tr');
    await until("document.querySelectorAll('#policy-history tbody tr').length === 3");
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-version')))).toEqual([
      '3',
      '2',
      '1',
    ]);
    expect(await rows.nth(1).innerText()).toContain('refunds need a ticket');
    // No shadow policy is set here: the page says so and how to set one.
    await page.locator('#no-shadow').waitFor();
    mkdirSync('/tmp/p5-shots', { recursive: true });
    await page.screenshot({ path: '/tmp/p5-shots/no-shadow.png', fullPage: true });
  });

  it('shows an earlier version’s text, then the current one again', async () => {
    await page.locator('#policy-history tr[data-version="2"] button', { hasText: 'View' }).click();
    await until(`document.querySelector('#policy-version')?.getAttribute('data-version') === '2'`);
    expect(await page.locator('#policy-version').innerText()).toMatch(/Version 2\s*not current/);
    expect(await page.locator('#policy-version pre').textContent()).toBe(TIGHT);
    await page.locator('#show-current').click();
    await until(`document.querySelector('#policy-version')?.getAttribute('data-version') === '3'`);
  });

  it('diffs two chosen versions, line by line, and names a version that does not exist', async () => {
    // The first comparison offered is the version before the current one against it.
    expect(await page.locator('#diff-from').inputValue()).toBe('2');
    expect(await page.locator('#diff-to').inputValue()).toBe('3');
    await page.locator('#diff-from').fill('1');
    await page.locator('#diff-to').fill('2');
    await page.locator('#show-diff').click();
    await page.locator('#policy-diff').waitFor();
    const lines = await page
      .locator('#policy-diff span')
      .evaluateAll((spans) => spans.map((s) => [s.className, (s.textContent ?? '').replace(/\n$/, '')]));
    expect(lines.slice(2)).toEqual([
      ['hunk', '@@ -1,1 +1,3 @@'],
      ['del', '-permit (principal, action, resource);'],
      ['add', '+// refunds need a ticket'],
      ['add', '+permit (principal, action == Action::"read", resource);'],
      ['add', '+forbid (principal, action == Action::"write", resource) unless { context has route };'],
    ]);
    expect(lines.slice(0, 2).map(([kind, line]) => [kind, line!.split('\t')[0]])).toEqual([
      ['file', '--- v1'],
      ['file', '+++ v2'],
    ]);
    await shot('policies');
    await pageShots(page, 'policies');
    await page.locator('#diff-from').fill('3');
    await page.locator('#diff-to').fill('1');
    await page.locator('#show-diff').click();
    await page.locator('#policy-diff-same').waitFor();
    await page.locator('#diff-to').fill('9');
    await page.locator('#show-diff').click();
    await page.locator('#policy-diff-error').waitFor();
    expect(await page.locator('#policy-diff-error').innerText()).toContain(
      'to: tenant acme has no policy version 9; its versions are 1 to 3',
    );
  });

  it('is read by an auditor; an approver is refused by the server', async () => {
    await signIn(tokens.audra!);
    await until("document.querySelectorAll('#policy-history tbody tr').length === 3");
    await signIn(tokens.bob!);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toContain('operator, administrator or auditor');
    expect(await page.locator('#policy-history').count()).toBe(0);
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    expectNoPageErrors(pageErrors, { console: consoleProc });
  });
});

const LIVE = `@id("refunds-up-to-500")
permit (principal, action, resource) when { context.amount_micros <= 500000000 };
`;
/** Tightens the refund limit to 100 USD. */
const TIGHTER = `${LIVE}
@id("refund-limit-100")
forbid (principal, action, resource) when { context.amount_micros > 100000000 };
`;
/** Also permits refunds over 500 USD. */
const LOOSER = `${LIVE}
@id("big-refunds")
permit (principal, action, resource) when { context.amount_micros > 500000000 };
`;
const AMOUNTS = [5, 60, 150, 250, 499, 750];

/**
 * The Policies page's shadow report and replay in a real browser: decisions made through the
 * built daemon with a shadow set, then the console (a process of its own) shows the shadow's
 * report to an administrator and an auditor, and replays a pasted candidate for the
 * administrator only: its summary, and a candidate or range that is refused.
 */
describe('console shadow report and replay in chromium (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-console-policy-changes-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  let daemon: DaemonProcess;
  let consoleProc: ConsoleProcess;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let ca: Buffer;
  const tokens: Record<string, string> = {};
  const pageErrors: string[] = [];
  const svc = <T = Record<string, unknown>>(args: string[]) => runJson<T>(args, env);
  const shot = async (name: string) => {
    const path = join(ARTIFACTS, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    mkdirSync('/tmp/p5-shots', { recursive: true });
    copyFileSync(path, join('/tmp/p5-shots', `${name}.png`));
  };
  const signIn = async (token: string) => {
    await signInAs(page, consoleProc, token, '#/policies');
    await page.getByRole('heading', { name: 'Policies' }).waitFor();
  };
  const file = (name: string, text: string) => {
    const path = join(tmp.path, name);
    writeFileSync(path, text);
    return path;
  };
  const replay = async (candidate: string, range: Record<string, string> = {}) => {
    await page.locator('#replay-candidate').fill(candidate);
    for (const [name, value] of Object.entries(range)) await page.locator(`#replay-${name}`).fill(value);
    await page.locator('#run-replay').click();
    await page.locator('#replay-result, #replay-error').first().waitFor();
  };

  beforeAll(async () => {
    const init = await svc<{ admin_token: string; ca_cert: string }>(['init', ...t, '--admin', 'alice']);
    tokens.alice = init.admin_token;
    ca = readFileSync(init.ca_cert);
    await svc(['actor', 'add', ...t, '--id', 'audra', '--kind', 'human', '--role', 'auditor']);
    tokens.audra = (await svc<{ token: string }>(['token', 'issue', ...t, '--actor', 'audra'])).token;
    await svc(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice']);
    await svc([
      'capability',
      'register',
      ...t,
      '--name',
      'refunds.issue',
      '--actions',
      'refund',
      '--tier',
      '1',
    ]);
    await svc(['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'refunds.issue']);
    await svc(['policy', 'set', ...t, '--file', file('live.cedar', LIVE)]);
    await svc([
      'task',
      'create',
      ...t,
      '--id',
      't1',
      '--sponsor',
      'alice',
      '--budget-usd',
      '10000',
      '--actor',
      'bot',
    ]);
    await svc(['policy', 'shadow', 'set', ...t, '--file', file('tighter.cedar', TIGHTER)]);
    const bot = (await svc<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'])).token;
    daemon = await startDaemonProcess([], env);
    for (const [i, amount] of AMOUNTS.entries()) {
      const r = await call(`${daemon.url}/v1/action`, {
        ca,
        method: 'POST',
        headers: { authorization: `Bearer ${bot}` },
        body: {
          tenant_id: 'acme',
          actor_id: 'bot',
          task_id: 't1',
          capability: 'refunds.issue',
          action: 'refund',
          effect_key_step: `r${i}`,
          amount_usd: amount,
        },
      });
      expect((r.body as { decision: string }).decision).toBe(amount > 500 ? 'refused' : 'allowed');
    }
    // The daemon compares after the commit, in batches: wait until it has compared them all.
    await eventually(`${AMOUNTS.length} decisions compared`, async () => {
      const r = await svc<{ evaluated: number }>(['policy', 'shadow', 'report', ...t]);
      return r.evaluated >= AMOUNTS.length ? r : undefined;
    });
    consoleProc = await startConsoleProcess([], env);
    browser = await launchChromium(spkiPin(ca));
    page = await browser.context.newPage();
    watchPageErrors(page, pageErrors);
  });

  afterAll(async () => {
    await browser?.close();
    await consoleProc?.stop();
    await daemon?.stop();
    tmp.cleanup();
  });

  it('shows the shadow report: the candidate, its counts, and where it differs by outcome, capability and actor', async () => {
    await signIn(tokens.alice!);
    const report = page.locator('#shadow-report');
    await report.waitFor();
    const text = await report.innerText();
    expect(text).toContain('tighter.cedar');
    expect(text).toMatch(/Compared\s+6/);
    // 150, 250 and 499 now refused; 750 refused by another policy (refused -> refused)
    expect(text).toContain('Compared 6 decisions: 4 would change, 0 would go to approval.');
    expect(await report.locator('[data-pair="allowed->refused"] tbody tr').count()).toBe(3);
    expect(await report.locator('[data-pair="allowed->refused"] h4').innerText()).toBe(
      'allowed → refused: 3',
    );
    expect(await report.locator('table[data-by="actor"] tbody').innerText()).toMatch(/bot\s+4/);
    expect(await report.locator('table[data-by="capability"] tbody').innerText()).toMatch(
      /refunds\.issue\s+4/,
    );
    await report.scrollIntoViewIfNeeded();
    await shot('shadow-report');
    await pageShots(page, 'policy-shadow');
  });

  it('replays a pasted candidate for the administrator and shows its summary', async () => {
    await replay(LOOSER);
    const result = page.locator('#replay-result');
    await result.waitFor();
    expect(await result.getAttribute('data-partial')).toBe('false');
    const text = await result.innerText();
    expect(text).toContain('Read 6 decisions, replayed 6');
    expect(text).toContain('Compared 6 decisions: 1 would change, 0 would go to approval.');
    const pair = result.locator('[data-pair="refused->allowed"]');
    expect(await pair.locator('h4').innerText()).toBe('refused → allowed: 1');
    expect(await pair.locator('tbody').innerText()).toContain('allowed [big-refunds]');
    await shot('replay-result');
    await expectAccessible(page);
  });

  it('names the line of a candidate that does not validate, and a bad range', async () => {
    await replay(`${LIVE}permit (principal, action == Action::"launch", resource);\n`);
    const error = page.locator('#replay-error');
    await error.waitFor();
    expect(await error.getAttribute('data-field')).toBe('candidate');
    expect(await error.innerText()).toMatch(/candidate:3:\d+/);
    expect(await page.locator('#replay-result').count()).toBe(0);
    await shot('replay-invalid');
    await expectAccessible(page);
    await replay(TIGHTER, { since: 'a week' });
    await expect.poll(() => page.locator('#replay-error').getAttribute('data-field')).toBe('since');
    await shot('replay-bad-range');
  });

  it('is read by an auditor, who is not offered the replay', async () => {
    await signIn(tokens.audra!);
    await page.locator('#shadow-report').waitFor();
    expect(await page.locator('#policy-replay').count()).toBe(0);
    await page.locator('#replay-admin-only').waitFor();
    await shot('auditor');
    await expectAccessible(page);
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    expectNoPageErrors(pageErrors, { console: consoleProc, daemon });
  });
});
