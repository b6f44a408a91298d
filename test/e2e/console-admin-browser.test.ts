import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleProcess,
  expectNoPageErrors,
  launchChromium,
  signInAs,
  spkiPin,
  startConsoleProcess,
  watchPageErrors,
} from '../helpers/browser.js';
import { runJson } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { pageShots } from '../helpers/console-shots.js';
import { axeViolations } from '../helpers/axe.js';
import { tmpDir } from '../helpers/tmp.js';

const OPEN = '@id("everyone-reads")\npermit (principal, action == Action::"read", resource);\n';
const BAD =
  '@id("everyone-reads")\npermit (principal, action == Action::"read", resource);\nforbid (principal, action == Action::"delete", resource);\n';
const CANDIDATE = '@id("nothing")\nforbid (principal, action, resource);\n';
const SUITE = `name: reads
cases:
  - name: the bot reads
    actor: bot
    capability: crm.read
    action: read
    expect: allowed
`;

/**
 * The Spend, Notifications and Policies pages' administration in a real browser against the
 * built console over TLS: set a budget and close a task (asked again first), add a webhook
 * destination (its secret shown once), test it against a loopback receiver and remove it,
 * edit the policy with live validation, run the policy tests, set a shadow and promote it.
 * Each refusal shows beside its field; an approver sees no control and the server refuses
 * his session, a request without the CSRF token and one without a session. axe-core finds no
 * serious or critical violation on any of the three pages; no script error, no CSP violation.
 */
describe('console task, notification and policy administration in chromium (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-console-admin-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  let consoleProc: ConsoleProcess;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let ca: Buffer;
  let longTask: string;
  const tokens: Record<string, string> = {};
  const pageErrors: string[] = [];
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  const svc = <T = Record<string, unknown>>(args: string[]) => runJson<T>(args, env);
  /** What the page shows once the server has answered: debounced validation, a reload after a change. */
  const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000, interval: 100 });
  const file = (name: string, text: string) => {
    const path = join(tmp.path, name);
    writeFileSync(path, text);
    return path;
  };
  const signIn = async (token: string, hash: string, heading: string) => {
    await signInAs(page, consoleProc, token, hash);
    await page.getByRole('heading', { name: heading, exact: true }).waitFor();
  };
  /** axe-core over the whole page: serious and critical violations. */
  const axe = () => axeViolations(page);
  /** The committed screenshots at 1400 and 800 px, each checked like `expectAccessible`. */
  const shots = (name: string) => pageShots(page, name);
  /** A console write from the page's own origin, with or without its session's CSRF token. */
  const write = (url: string, body: unknown, csrf: boolean) =>
    page.evaluate(
      async ({ url, body, csrf }) => {
        const s = (await (await fetch('/api/session')).json()) as { csrf_token: string };
        const r = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(csrf ? { 'x-csrf-token': s.csrf_token } : {}) },
          body: JSON.stringify(body),
        });
        return { status: r.status, body: (await r.json()) as { code: string; reason: string } };
      },
      { url, body, csrf },
    );

  beforeAll(async () => {
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    const init = await svc<{ admin_token: string; ca_cert: string }>(['init', ...t, '--admin', 'alice']);
    tokens.alice = init.admin_token;
    ca = readFileSync(init.ca_cert);
    await svc(['actor', 'add', ...t, '--id', 'bob', '--kind', 'human', '--role', 'approver']);
    tokens.bob = (await svc<{ token: string }>(['token', 'issue', ...t, '--actor', 'bob'])).token;
    await svc(['capability', 'register', ...t, '--name', 'crm.read', '--actions', 'read', '--tier', '1']);
    await svc(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice']);
    await svc(['policy', 'set', ...t, '--file', file('open.cedar', OPEN), '--message', 'reads for everyone']);
    await svc(['task', 'create', ...t, '--id', 'q3-cleanup', '--sponsor', 'alice', '--budget-usd', '50']);
    // A generated id, as the README's TASK=$(svc task create …) makes: long, one word.
    longTask = (
      await svc<{ task_id: string }>(['task', 'create', ...t, '--sponsor', 'alice', '--budget-usd', '20'])
    ).task_id;
    consoleProc = await startConsoleProcess(['--notify-allow-loopback-http'], env);
    browser = await launchChromium(spkiPin(ca));
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    watchPageErrors(page, pageErrors);
  });

  afterAll(async () => {
    await browser?.close();
    await consoleProc?.stop();
    receiver.close();
    tmp.cleanup();
  });

  it('sets a budget, names a bad amount beside its field, and closes a task after asking', async () => {
    await signIn(tokens.alice!, '#/spend', 'Spend');
    await page.getByRole('button', { name: 'Change task q3-cleanup' }).click();
    const dialog = page.getByRole('dialog');
    await page.locator('#task-budget-input').fill('12.1234567');
    await page.locator('#set-budget').click();
    await page.locator('#task-error').waitFor();
    expect(await page.locator('#task-error').innerText()).toMatch(/^budget_usd: /);
    expect(await axe()).toEqual([]);
    await shots('spend-change');
    await page.locator('#task-budget-input').fill('75');
    await page.locator('#set-budget').click();
    await page.locator('#task-changed').waitFor();
    expect(await page.locator('#task-changed').innerText()).toBe(
      'Task q3-cleanup: budget $50.00 → $75.00 ($0.00 reserved).',
    );
    expect(await dialog.count()).toBe(0);
    await page.getByRole('button', { name: `Change task ${longTask}` }).click();
    await page.locator('#close-task').click();
    expect(await dialog.innerText()).toContain('Closing is final');
    expect(await axe()).toEqual([]);
    await page.locator('#admin-cancel').click();
    expect((await svc<{ status: string }>(['task', 'show', ...t, '--id', longTask])).status).toBe('active');
    await page.getByRole('button', { name: `Change task ${longTask}` }).click();
    await page.locator('#close-task').click();
    await page.locator('#admin-confirm').click();
    await eventually(() => page.locator('#task-changed').innerText()).toBe(
      `Closed task ${longTask} ($0.00 of $20.00 reserved).`,
    );
    expect((await svc<{ status: string }>(['task', 'show', ...t, '--id', longTask])).status).toBe('closed');
    expect((await svc<{ budget_usd: number }>(['task', 'show', ...t, '--id', 'q3-cleanup'])).budget_usd).toBe(
      75,
    );
    expect(await axe()).toEqual([]);
    await shots('spend-admin');
  });

  it('adds a webhook (secret shown once), refuses a bad URL beside it, tests it signed, rotates its secret and removes it', async () => {
    await signIn(tokens.alice!, '#/notifications', 'Notifications');
    await page.locator('#dest-destination_id').fill('ops-hook');
    await page.locator('#dest-url').fill('http://hooks.example.org/svc');
    await page.locator('#add-destination-submit').click();
    await page.locator('#dest-url-error').waitFor();
    expect(await page.locator('#dest-url-error').innerText()).toMatch(/^url: /);
    const port = (receiver.address() as AddressInfo).port;
    await page.locator('#dest-url').fill(`http://127.0.0.1:${port}/hook`);
    await page.locator('#add-destination-submit').click();
    await page.locator('#webhook-secret').waitFor();
    const secret = (await page.locator('#webhook-secret .id-text').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await page.locator('tr[data-destination="ops-hook"]').first().waitFor();
    expect(await axe()).toEqual([]);
    await shots('notifications-admin');
    await page.locator('#secret-done').click();
    expect(await page.locator('#webhook-secret').count()).toBe(0);
    // The secret is never sent to the page again.
    const overview = await page.evaluate(() => fetch('/api/notifications').then((r) => r.text()));
    expect(overview).not.toContain(secret);

    const row = page.locator('table.destinations tr[data-destination="ops-hook"]');
    await row.locator('button.test-destination').click();
    await row.locator('.test-result').waitFor();
    expect(await row.locator('.test-result').innerText()).toMatch(
      /^Test approval\.requested: delivered, 204$/,
    );
    expect(got).toHaveLength(1);
    const event = new Webhook(secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>);
    expect(event).toMatchObject({
      type: 'approval.requested',
      data: { test: true, destination_id: 'ops-hook' },
    });

    // A new signing secret, shown once; a delivery then carries both signatures for 24 hours.
    await row.locator('button.rotate-destination').click();
    await page.locator('#rotate-confirm').click();
    await page.locator('#rotate-secret [role="status"] .id-text').waitFor();
    const rotated = (await page.locator('#rotate-secret .id-text').textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(await axe()).toEqual([]);
    await page.locator('#rotate-done').click();
    await row.locator('button.test-destination').click();
    await eventually(async () => got.length).toBe(2);
    for (const key of [secret, rotated]) {
      expect(new Webhook(key).verify(got[1]!.body, got[1]!.headers as Record<string, string>)).toMatchObject({
        data: { test: true },
      });
    }
    await row.locator('button.remove-destination').click();
    await page.locator('#admin-confirm').click();
    await page.locator('#no-destinations').waitFor();
    expect((await svc<{ items: unknown[] }>(['notify', 'list', ...t])).items).toEqual([]);
  });

  it('validates the policy as one types, runs the tests, sets a shadow and promotes it after asking', async () => {
    await signIn(tokens.alice!, '#/policies', 'Policies');
    const text = page.locator('#policy-text');
    await eventually(() => text.inputValue()).toBe(OPEN);
    await eventually(
      async () =>
        `${await page.locator('#policy-check').getAttribute('data-valid')} ${await page.locator('#policy-check').innerText()}`,
    ).toMatch(/^true Valid against the tenant’s schema/);
    await text.fill(BAD);
    await page.locator('#policy-diagnostics li.error').first().waitFor();
    const diagnostic = page.locator('#policy-diagnostics li.error').first();
    expect(await diagnostic.getAttribute('data-line')).toBe('3');
    expect(await diagnostic.innerText()).toMatch(/^line 3, column \d+ error: .*delete/);
    expect(await page.locator('#install-policy').isDisabled()).toBe(true);
    await text.fill(CANDIDATE);
    await eventually(() => page.locator('#policy-check').getAttribute('data-valid')).toBe('true');

    await page.locator('#policy-suite').fill(SUITE);
    await page.locator('#run-tests-current').click();
    await eventually(() => page.locator('#policy-test-results').getAttribute('data-passed')).toBe('1');
    await page.locator('#run-tests-text').click();
    await eventually(() => page.locator('#policy-test-results').getAttribute('data-failed')).toBe('1');
    expect(await page.locator('#policy-test-results tr[data-passed="false"]').innerText()).toContain(
      'refused policy_denied [nothing]',
    );
    await page.locator('#policy-suite').fill(`policy: /etc/passwd\n${SUITE}`);
    await page.locator('#run-tests-current').click();
    await page.locator('#policy-test-error').waitFor();
    expect(await page.locator('#policy-test-error').innerText()).toMatch(/^suite: policy: names a file/);

    await page.locator('#set-shadow').click();
    await page.locator('#shadow-report').waitFor();
    expect(await page.locator('#policy-changed').innerText()).toMatch(/^Set shadow policy shd_/);
    expect(await axe()).toEqual([]);
    await shots('policies-admin');
    await page.locator('#promote-shadow').click();
    await page.locator('#promote-message').fill('after a look at the report');
    expect(await axe()).toEqual([]);
    await page.locator('#admin-confirm').click();
    await eventually(() => page.locator('#policy-version').getAttribute('data-version')).toBe('2');
    expect(await page.locator('#policy-changed').innerText()).toMatch(/it is policy version 2 now\.$/);
    await page.locator('#no-shadow').waitFor();
    const history = await svc<{ items: { version: number; set_by: string; message: string }[] }>([
      'policy',
      'history',
      ...t,
    ]);
    expect(history.items[0]).toMatchObject({
      version: 2,
      set_by: 'console:alice',
      message: 'after a look at the report',
    });
  });

  it('gives an approver no control, and the server refuses him, a write without the CSRF token and one without a session', async () => {
    await signIn(tokens.bob!, '#/spend', 'Spend');
    await page.locator('table tbody tr, .empty-state').first().waitFor();
    expect(await page.locator('button.change-task').count()).toBe(0);
    const asBob = await write('/api/tasks/q3-cleanup/budget', { budget_usd: 500 }, true);
    expect(asBob).toMatchObject({ status: 403, body: { reason: 'this route needs the administrator role' } });
    await signIn(tokens.alice!, '#/spend', 'Spend');
    const noCsrf = await write('/api/tasks/q3-cleanup/close', {}, false);
    expect(noCsrf).toMatchObject({ status: 403, body: { code: 'csrf_failed' } });
    const noSession = await call(`${consoleProc.url}/api/tasks/q3-cleanup/close`, {
      ca,
      method: 'POST',
      body: {},
    });
    expect(noSession.status).toBe(401);
    const task = await svc<{ status: string; budget_usd: number }>([
      'task',
      'show',
      ...t,
      '--id',
      'q3-cleanup',
    ]);
    expect(task).toMatchObject({ status: 'active', budget_usd: 75 });
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    expectNoPageErrors(pageErrors, { console: consoleProc });
  });
});
