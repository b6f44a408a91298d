import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { expectAccessible, pageShots, PHONE, snapshot, WIDE } from '../helpers/console-shots.js';
import { call } from '../helpers/https.js';
import { tmpDir } from '../helpers/tmp.js';
import { until as untilFound } from '../helpers/until.js';
import { provisionRefunds } from '../helpers/refund-tenant.js';

const BOT_TOKEN = 'xoxb-e2e-never-in-the-browser';

/**
 * The Notifications page and approval links in a real browser: the built binary serves daemon
 * and console over TLS, webhook receivers listen on loopback, destinations are added with the
 * CLI. An always-500 receiver's event ends as a dead letter (retries compressed by
 * --notify-retry-speedup); Redeliver sends it again with the same event id; an operator
 * without the administrator role gets no button and the server refuses him anyway.
 */
describe('console notifications page and approval links in chromium (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-console-notify-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  let daemon: DaemonProcess;
  let consoleProc: ConsoleProcess;
  let ca: Buffer;
  let tokens: Record<'olivia' | 'oscar' | 'audra' | 'bot', string>;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let webhookSecret: string;
  let deadEvent: string;
  /** approvals opened before any destination existed, oldest first */
  const opened: string[] = [];
  const pageErrors: string[] = [];
  /** webhook ids each receiver path got, in order */
  const got: { path: string; id: string }[] = [];
  const answers = new Map<string, (res: ServerResponse) => void>([
    ['/down', (res) => res.writeHead(500).end('receiver stack trace')],
    ['/gone', (res) => res.writeHead(410).end()],
  ]);
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got.push({ path: req.url ?? '', id: String(req.headers['webhook-id']) });
      (answers.get(req.url ?? '') ?? ((r: ServerResponse) => r.writeHead(204).end()))(res);
    });
  });
  const svc = <T = Record<string, unknown>>(args: string[]) => runJson<T>(args, env);
  const refund = (task: string, step: string) =>
    call(`${daemon.url}/v1/action`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.bot}` },
      body: {
        tenant_id: 'acme',
        actor_id: 'bot',
        capability: 'refunds.issue',
        action: 'write',
        task_id: task,
        effect_key_step: step,
        amount_usd: 40,
        intent: `refund ${step}`,
      },
    });
  const until = (expression: string) =>
    expect.poll(() => page.evaluate(expression), { timeout: 15_000, interval: 100 }).toBe(true);
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  const signIn = (token: string, hash: string) => signInAs(page, consoleProc, token, hash);
  const approvalStatus = async (id: string) =>
    (
      await call(`${daemon.url}/v1/approvals/${id}`, {
        ca,
        headers: { authorization: `Bearer ${tokens.olivia}` },
      })
    ).body.status;

  beforeAll(async () => {
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const init = await runJson<{ ca_cert: string }>(['init', ...t, '--admin', 'alice'], env);
    ca = readFileSync(init.ca_cert);
    for (const [id, roles] of [
      ['olivia', ['operator', 'administrator', 'approver']],
      ['oscar', ['operator']],
      ['audra', ['auditor']],
    ] as const) {
      await svc([
        'actor',
        'add',
        ...t,
        '--id',
        id,
        '--kind',
        'human',
        ...roles.flatMap((r) => ['--role', r]),
      ]);
    }
    await provisionRefunds(env, {
      tenant: 'acme',
      sponsor: 'olivia',
      dir: tmp.path,
      tasks: ['t1', 't2'],
      budgetUsd: 10000,
    });
    tokens = {
      olivia: '',
      oscar: '',
      audra: '',
      bot: '',
    };
    for (const id of Object.keys(tokens) as (keyof typeof tokens)[]) {
      tokens[id] = (await svc<{ token: string }>(['token', 'issue', ...t, '--actor', id])).token;
    }
    daemon = await startDaemonProcess(
      ['--notify-allow-loopback-http', '--notify-timeout', '1s', '--notify-retry-speedup', '100000'],
      env,
    );
    // 21 approvals before any destination (no events): the oldest is not on the first page.
    for (let i = 0; i < 21; i++) {
      const r = await refund(i % 2 === 0 ? 't1' : 't2', `early-${i}`);
      expect(r.status).toBe(202);
      opened.push((r.body.approval as { approval_id: string }).approval_id);
    }
    webhookSecret = (
      await svc<{ secret: string }>([
        'notify',
        'add',
        'down',
        ...t,
        '--kind',
        'webhook',
        '--url',
        `${base}/down`,
        '--events',
        'approval.requested',
      ])
    ).secret;
    await svc([
      'notify',
      'add',
      'gone',
      ...t,
      '--kind',
      'webhook',
      '--url',
      `${base}/gone`,
      '--events',
      'approval.*',
    ]);
    writeFileSync(join(tmp.path, 'bot-token'), `${BOT_TOKEN}\n`);
    await svc([
      'notify',
      'add',
      'team-chat',
      ...t,
      '--kind',
      'chat',
      '--channel',
      'C0APPROVALS',
      '--secret-file',
      join(tmp.path, 'bot-token'),
      '--events',
      'budget.threshold',
    ]);
    // One more approval: its approval.requested dies at /down and disables /gone.
    expect((await refund('t2', 'late-1')).status).toBe(202);
    deadEvent = await untilFound(
      'the dead letter',
      async () => {
        const l = await svc<{ items: { event_id: string }[] }>([
          'notify',
          'deliveries',
          ...t,
          '--state',
          'dead',
          '--destination',
          'down',
        ]);
        return l.items[0]?.event_id;
      },
      () => daemon.stderr(),
    );
    consoleProc = await startConsoleProcess([], env);
    browser = await launchChromium(spkiPin(ca));
    page = await browser.context.newPage();
    watchPageErrors(page, pageErrors);
  });

  afterAll(async () => {
    await browser?.close();
    await consoleProc?.stop();
    await daemon?.stop();
    receiver.closeAllConnections();
    await new Promise((ok) => receiver.close(ok));
    tmp.cleanup();
  });

  it('shows destinations, counts and the dead letter to an administrator, and no secret reaches the page', async () => {
    await signIn(tokens.olivia, '#/notifications');
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    await page.locator(`#dead-letters tr[data-event="${deadEvent}"]`).waitFor();
    const counts = async (k: string) => page.locator(`[data-count="${k}"] .big`).innerText();
    expect([await counts('pending'), await counts('dead'), await counts('disabled')]).toEqual([
      '0',
      '1',
      '1',
    ]);
    const dead = page.locator(`#dead-letters tr[data-event="${deadEvent}"]`);
    expect(await dead.innerText()).toMatch(
      /approval\.requested[\s\S]*down[\s\S]*dead[\s\S]*8[\s\S]*status_500/,
    );
    const gone = page.locator('table.destinations tr[data-destination="gone"]');
    expect(await gone.innerText()).toMatch(/disabled\s+410 Gone from the receiver/);
    const chat = page.locator('table.destinations tr[data-destination="team-chat"]');
    expect(await chat.innerText()).toMatch(/https:\/\/slack\.com\/api[\s\S]*channel\s+C0APPROVALS/);
    await shot('notifications');
    await pageShots(page, 'notifications');
    const html = await page.content();
    for (const secret of [webhookSecret, BOT_TOKEN, 'receiver stack trace'])
      expect(html).not.toContain(secret);
    // The recent list holds the same delivery, newest first.
    await page.locator(`#deliveries tr[data-event="${deadEvent}"][data-destination="down"]`).waitFor();
  });

  it('gives an operator without the administrator role no Redeliver button, and the server refuses him anyway', async () => {
    await signIn(tokens.oscar, '#/notifications');
    const row = page.locator(`#dead-letters tr[data-event="${deadEvent}"]`);
    await row.waitFor();
    expect(await row.getByRole('button', { name: 'Redeliver' }).count()).toBe(0);
    expect(await row.innerText()).toContain('administrators redeliver');
    // The same POST the button would send, with his own session and CSRF token.
    const answer = await page.evaluate(async (eventId: string) => {
      const s = (await (await fetch('/api/session')).json()) as { csrf_token: string };
      const r = await fetch('/api/notifications/redeliver', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': s.csrf_token },
        body: JSON.stringify({ event_id: eventId, destination_id: 'down' }),
      });
      return { status: r.status, body: (await r.json()) as { code: string } };
    }, deadEvent);
    expect(answer).toMatchObject({ status: 403, body: { code: 'forbidden' } });
    expect(got.filter((g) => g.id === deadEvent && g.path === '/down')).toHaveLength(8);
  });

  it('Redeliver sends the dead letter again with the same event id once the receiver is fixed', async () => {
    answers.delete('/down');
    await signIn(tokens.olivia, '#/notifications');
    const row = page.locator(`#dead-letters tr[data-event="${deadEvent}"]`);
    await row.getByRole('button', { name: 'Redeliver' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Queued ${deadEvent} for down again` })
      .waitFor();
    await untilFound(
      'the redelivery at the receiver',
      () => (got.filter((g) => g.id === deadEvent && g.path === '/down').length === 9 ? true : undefined),
      () => daemon.stderr(),
    );
    await until(`document.querySelector('#no-dead-letters') !== null`);
    await page
      .locator(`#deliveries tr[data-event="${deadEvent}"][data-destination="down"] .pill.ok`)
      .waitFor({ timeout: 15_000 });
  });

  it('opens an approval from a link after sign-in, even when it is not on the first page, and decides nothing', async () => {
    await page.goto(`${consoleProc.url}/`);
    await page.locator('#sign-out').click();
    await page.locator('#token').waitFor();
    const oldest = opened[0]!;
    await page.goto(`${consoleProc.url}/#/approvals/${oldest}`);
    // Signed out: the link asks to sign in first, and shows nothing of the approval.
    await page.locator('#token').waitFor();
    expect(await page.content()).not.toContain(oldest);
    await page.locator('#token').fill(tokens.olivia);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const card = page.locator('#linked-approval');
    await card.waitFor();
    expect(await card.innerText()).toMatch(
      new RegExp(`Linked approval\\s+${oldest}[\\s\\S]*pending[\\s\\S]*refunds\\.issue`),
    );
    // The first page of the list (20 newest) does not hold it; the linked card does.
    await page.locator('table.approvals tbody tr').first().waitFor();
    expect(await page.locator(`table.approvals tr[data-approval="${oldest}"]`).count()).toBe(0);
    await shot('approval-link');
    await pageShots(page, 'approval-link');
    // the link an on-call approver opens from a notification, on a phone
    await snapshot(page, 'approval-link-phone', PHONE);
    await expectAccessible(page);
    await page.setViewportSize(WIDE);
    expect(await approvalStatus(oldest)).toBe('pending');

    await page.goto(`${consoleProc.url}/#/approvals/apr_does_not_exist`);
    await page
      .locator('#linked-approval [role="alert"]')
      .filter({ hasText: 'no such approval that you may read' })
      .waitFor();
  });

  it('tells a signer who may not read the approval only that there is none for them', async () => {
    const oldest = opened[0]!;
    await signIn(tokens.audra, `#/approvals/${oldest}`);
    await page
      .locator('#linked-approval [role="alert"]')
      .filter({ hasText: 'no such approval that you may read' })
      .waitFor();
    expect(await page.locator('#linked-approval').innerText()).not.toMatch(/refunds\.issue/);
    expect(await approvalStatus(oldest)).toBe('pending');
  });

  it('says what to do on a tenant with no destination and no delivery', async () => {
    const quiet = await svc<{ admin_token: string }>([
      'tenant',
      'create',
      '--id',
      'quiet',
      '--admin',
      'quinn',
    ]);
    await signIn(quiet.admin_token, '#/notifications');
    const none = page.locator('#no-destinations');
    await none.waitFor();
    expect(await none.innerText()).toMatch(
      /No destinations: nothing is sent[\s\S]*svc notify add ops-hook --tenant TENANT/,
    );
    await page.locator('#no-dead-letters').waitFor();
    expect(await page.locator('#no-deliveries').innerText()).toContain('svc notify test');
    expect(await page.locator('[data-count] .big').allInnerTexts()).toEqual(['0', '0', '0']);
  });

  it('ran every page without a script error or a Content-Security-Policy violation', () => {
    expectNoPageErrors(pageErrors, { console: consoleProc, daemon });
  });
});
