import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTheme } from '../../src/core/theme/theme.js';
import { rawPublicKey } from '../../src/evidence/keys.js';
import { nodeCrypto } from '../../src/evidence/node-crypto.js';
import { verifyExport } from '../../src/evidence/verify/index.js';
import { addActor } from '../../src/provisioning/actor.js';
import { issueToken } from '../../src/provisioning/token.js';
import { DataDir } from '../../src/store/data-dir.js';
import {
  ARTIFACTS,
  expectNoPageErrors,
  launchChromium,
  spkiPin,
  startConsoleProcess,
  type ConsoleProcess,
  watchPageErrors,
} from '../helpers/browser.js';
import { runJson, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { expectAccessible, NARROW, pageShots, PHONE, snapshot, WIDE } from '../helpers/console-shots.js';
import { downstream, type Downstream } from '../helpers/downstream.js';
import { holdWriteLock } from '../helpers/lock-holder.js';
import { call } from '../helpers/https.js';
import { pngBytes } from '../helpers/images.js';
import { capability, register } from '../helpers/registry.js';
import { attackerKey, CORPUS_DIR, loadCorpus } from '../helpers/tamper-corpus.js';
import { tmpDir } from '../helpers/tmp.js';

const POLICY = `// Everything registered is permitted; budgets and approvals still apply.
permit (principal, action, resource);
`;

/**
 * The console in a real browser: the built binary serves daemon and console over TLS on
 * their own listeners, Debian chromium (headless, empty profile) trusts exactly the
 * deployment certificate, and every step is what an operator does with the mouse.
 */
describe('operator console in chromium (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-console-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  let daemon: DaemonProcess;
  let consoleProc: ConsoleProcess;
  let ca: Buffer;
  let tokens: Record<'olivia' | 'bot' | 'alice', string>;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let provider: Downstream;
  /** Script errors and CSP violations seen in the page: there must be none. */
  const pageErrors: string[] = [];

  const agent = (url: string, body: Record<string, unknown>) =>
    call(`${daemon.url}${url}`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.bot}` },
      body: { tenant_id: 'acme', actor_id: 'bot', ...body },
    });
  // Polls from the test side: playwright's waitForFunction with a string polls by evaluating it
  // in the page, which the console's CSP (no eval) refuses once the first check is false.
  const until = (expression: string) =>
    expect.poll(() => page.evaluate(expression), { timeout: 10_000, interval: 50 }).toBe(true);
  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  const go = async (hash: string, heading: string) => {
    await page.goto(`${consoleProc.url}/#/${hash}`);
    await page.getByRole('heading', { name: heading }).waitFor();
  };
  const accessible = () => expectAccessible(page);
  const shots = (name: string) => pageShots(page, name);
  /** A generated task id, as `svc task create` makes them: long, one word, full of hex. */
  const LONG_TASK = 'task_01a218b92b45217c486d31c4288d2f47';

  beforeAll(async () => {
    const init = await runJson<{ admin_token: string; ca_cert: string }>(
      ['init', '--tenant', 'acme', '--admin', 'alice'],
      env,
    );
    ca = readFileSync(init.ca_cert);
    // A payments provider on loopback that brokered refunds execute against.
    provider = await downstream();
    writeFileSync(
      join(tmp.path, 'ops.yaml'),
      `surfaces:
  - id: pay
    adapter: http
    base_url: ${provider.url}
    credential_ref: env:SVC_TEST_PAY
    auth: { type: bearer }
    operations:
      refunds.create: { method: POST, path: /refunds }
      refunds.create_priced:
        method: POST
        path: /refunds
        amount: { param: /amount_cents, unit: cents }
`,
    );
    const dir = new DataDir(home);
    const store = await dir.openStore();
    const now = new Date();
    try {
      await addActor(
        store,
        { tenantId: 'acme', id: 'olivia', kind: 'human', roles: ['operator', 'administrator', 'approver'] },
        now,
      );
      await addActor(store, { tenantId: 'acme', id: 'bot', kind: 'agent', managerId: 'olivia' }, now);
      await register(store, 'acme', {
        caps: [
          capability('acme', 'payments.send', {
            actions: ['write'],
            irreversible: true,
            tier: 3,
            costMicros: 10_000_000n,
          }),
          capability('acme', 'crm.read', { actions: ['read'], costMicros: 1_500_000n }),
          ...(['refunds.create', 'refunds.create_priced'] as const).map((operation) =>
            capability('acme', operation === 'refunds.create' ? 'pay.refund' : 'pay.refund_priced', {
              actions: ['write'],
              irreversible: true,
              tier: 3,
              costMicros: 0n,
              custody: 'brokered',
              surfaceId: 'pay',
              operation,
            }),
          ),
        ],
        grants: [
          ['bot', 'payments.send'],
          ['bot', 'crm.read'],
          ['bot', 'pay.refund'],
          ['bot', 'pay.refund_priced'],
        ],
        policy: POLICY,
        tasks: [
          { id: 'invoice-run', sponsor: 'olivia', budget: 100_000_000n },
          { id: 'crm-sync', sponsor: 'olivia', budget: 40_000_000n },
          { id: 'refunds', sponsor: 'olivia', budget: 2_000_000_000_000n },
          { id: LONG_TASK, sponsor: 'olivia', budget: 50_000_000n },
        ],
      });
      const ttlMs = 86_400_000;
      tokens = {
        alice: init.admin_token,
        olivia: (await issueToken(store, { tenantId: 'acme', actorId: 'olivia', ttlMs, now })).token,
        bot: (await issueToken(store, { tenantId: 'acme', actorId: 'bot', ttlMs, now })).token,
      };
    } finally {
      await store.close();
    }
    // A provisioned theme with a logo, so the header shows a managed asset served to the session.
    mkdirSync(join(tmp.path, 'brand'));
    writeFileSync(join(tmp.path, 'brand', 'logo.png'), pngBytes(96, 32, [0xff, 0xb0, 0x20]));
    writeFileSync(
      join(tmp.path, 'theme.json'),
      JSON.stringify({ ...defaultTheme('dark'), logo: { url: '/tenant-assets/logo.png', alt: 'Acme logo' } }),
    );
    await runJson(
      [
        'theme',
        'install',
        join(tmp.path, 'theme.json'),
        '--tenant',
        'acme',
        '--assets',
        join(tmp.path, 'brand'),
      ],
      env,
    );
    const ops = ['--integration-ops', join(tmp.path, 'ops.yaml')];
    daemon = await startDaemonProcess(['--anchor-interval', '1s', ...ops], {
      ...env,
      SVC_TEST_PAY: 'pay-tok-e2e',
    });
    consoleProc = await startConsoleProcess(ops, env);
    for (const [task, step, amount] of [
      ['crm-sync', 'c1', 3],
      ['crm-sync', 'c2', 12.5],
      ['invoice-run', 'c3', 2],
      ['crm-sync', 'c4', 400],
    ] as const) {
      await agent('/v1/action', {
        capability: 'crm.read',
        action: 'read',
        task_id: task,
        effect_key_step: step,
        amount_usd: amount,
      });
    }
    browser = await launchChromium(spkiPin(ca));
    page = await browser.context.newPage();
    await page.setViewportSize(WIDE);
    watchPageErrors(page, pageErrors);
  });

  afterAll(async () => {
    await browser?.close();
    await consoleProc?.stop();
    await daemon?.stop();
    await provider?.close();
    tmp.cleanup();
  });

  it('serves the console over TLS on its own listener, never the daemon’s routes', async () => {
    expect(consoleProc.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(
      (
        await call(`${consoleProc.url}/v1/capabilities`, {
          ca,
          headers: { authorization: `Bearer ${tokens.olivia}` },
        })
      ).status,
    ).toBe(404);
    expect(
      (await call(`${daemon.url}/api/theme`, { ca, headers: { authorization: `Bearer ${tokens.olivia}` } }))
        .status,
    ).toBe(404);
  });

  it('signs in with a token and lands on the overview (an operator)', async () => {
    const index = await page.goto(consoleProc.url);
    expect(index?.headers()['content-security-policy']).toMatch(/script-src 'self';/);
    // It says where a token comes from, before anyone has one.
    await page.getByText('svc token issue --tenant <tenant> --actor <you>').waitFor();
    await shots('sign-in');
    await page.locator('#token').fill('svct_0123456789abcdef_not-a-real-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const refused = page.getByRole('alert');
    await refused.waitFor();
    expect(await refused.innerText()).toMatch(
      /^That token was not accepted: .*an administrator can issue you a new one\.$/,
    );
    expect(await refused.innerText()).not.toMatch(/Authorization: Bearer|`/);
    await accessible();
    await page.locator('#token').fill(tokens.olivia);
    await shot('sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const cookies = await browser.context.cookies(consoleProc.url);
    expect(cookies).toEqual([
      expect.objectContaining({
        name: '__Host-svc_session',
        httpOnly: true,
        secure: true,
        sameSite: 'Strict',
      }),
    ]);
    await page.getByRole('link', { name: 'Approvals', exact: true }).click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
  });

  it('shows a new approval without a reload, approves it with a confirmation, and the agent’s resume succeeds', async () => {
    // The list starts empty: the empty-state line is shown, exactly once (a locator alone is
    // always defined; waiting on it is what can fail).
    const empty = page.getByText('No pending approvals. Nothing waits for you.', { exact: true });
    await empty.waitFor({ timeout: 10_000 });
    expect(await empty.count()).toBe(1);
    // ...and says what fills it
    await page
      .getByText(/appears here, within 3 seconds, when an agent asks for an irreversible action/)
      .waitFor();
    await shots('approvals-empty');
    const pay = {
      capability: 'payments.send',
      action: 'write',
      task_id: 'invoice-run',
      effect_key_step: 'pay-7',
      amount_usd: 25,
      intent: 'pay invoice INV-7',
    };
    const deferred = await agent('/v1/action', pay);
    expect(deferred.status).toBe(202);
    const row = page.locator(
      `tr[data-approval="${(deferred.body.approval as { approval_id: string }).approval_id}"]`,
    );
    await row.waitFor({ timeout: 10_000 });
    expect(await row.innerText()).toMatch(
      /payments\.send[\s\S]*requester's estimate\)\s+25 USD[\s\S]*bot[\s\S]*invoice-run/,
    );
    await shot('approvals');
    await shots('approvals');
    // On a phone: one approval per card, its facts readable, its buttons large enough to hit.
    await page.setViewportSize(PHONE);
    // the shot shows the card's end: the last facts and the two buttons an approver reaches
    await row.locator('td.actions').scrollIntoViewIfNeeded();
    await snapshot(page, 'approval-phone', PHONE);
    await accessible();
    for (const name of ['Approve', 'Deny']) {
      const box = (await row.getByRole('button', { name }).boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.width).toBeGreaterThanOrEqual(120);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    }
    const params = (await row.locator('[data-fact="capability"]').boundingBox())!;
    expect(params.x + params.width).toBeLessThanOrEqual(PHONE.width);
    await row.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').waitFor();
    // the confirmation takes the focus, on its note (a stray Enter confirms nothing)
    expect(await page.evaluate('document.activeElement.id')).toBe('decision-note');
    await snapshot(page, 'approval-phone-confirm', PHONE);
    await accessible();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.setViewportSize(WIDE);
    await row.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').waitFor();
    await shot('approvals-confirm');
    await page.locator('#confirm-decision').click();
    await page.getByText(/Approved payments\.send for bot/).waitFor();
    // ...and the history below, empty until now, shows it decided without a reload
    await page
      .locator('section.approval-history tbody tr', { hasText: 'payments.send' })
      .waitFor({ timeout: 10_000 });
    const resumed = await agent('/v1/action/resume', pay);
    expect(resumed.status).toBe(200);
    expect(resumed.body.decision).toBe('allowed');
  });

  it('shows the hidden params of a brokered refund and the provider request they make, before anyone approves', async () => {
    const refund = {
      capability: 'pay.refund',
      action: 'write',
      task_id: 'refunds',
      effect_key_step: 'refund-42',
      amount_usd: 0.01,
      intent: 'refund 1 cent to customer 42',
      params: { amount_cents: 99999999, destination: 'acct-mallory' },
    };
    const deferred = await agent('/v1/brokered', refund);
    expect(deferred.status).toBe(202);
    const row = page.locator(
      `tr[data-approval="${(deferred.body.approval as { approval_id: string }).approval_id}"]`,
    );
    await row.waitFor({ timeout: 10_000 });
    const text = await row.innerText();
    expect(text).toMatch(/amount \(requester's estimate\)\s+0\.01 USD/);
    expect(text).toContain('"amount_cents":99999999');
    expect(text).toContain('acct-mallory');
    expect(text).toContain(`POST ${provider.url}/refunds`);
    expect(text).toContain("(the surface's credential, added by the daemon; not shown)");
    expect(text).not.toContain('pay-tok-e2e');
    await row.getByRole('button', { name: 'Deny' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('acct-mallory');
    await shot('approvals-hidden-params');
    // A double click on Confirm sends one decision: the second finds the button disabled.
    const decisions: string[] = [];
    const onRequest = (r: { method(): string; url(): string }) => {
      if (r.method() === 'POST' && r.url().endsWith('/decision')) decisions.push(r.url());
    };
    page.on('request', onRequest);
    await page.locator('#confirm-decision').dblclick();
    await page.getByText(/Denied pay\.refund for bot/).waitFor();
    page.off('request', onRequest);
    expect(decisions).toHaveLength(1);

    // With the amount taken from the params, the figure shown is the one that would be paid.
    const { amount_usd: _, ...priced } = {
      ...refund,
      capability: 'pay.refund_priced',
      effect_key_step: 'refund-43',
    };
    const derived = await agent('/v1/brokered', priced);
    expect(derived.status).toBe(202);
    const pricedRow = page.locator(
      `tr[data-approval="${(derived.body.approval as { approval_id: string }).approval_id}"]`,
    );
    await pricedRow.waitFor({ timeout: 10_000 });
    expect(await pricedRow.innerText()).toMatch(/amount \(from the params\)\s+999999\.99 USD/);
    expect(provider.calls).toHaveLength(0);
  });

  it('pages through every pending approval, newest first, and filters by requester and capability', async () => {
    const steps: string[] = [];
    for (let i = 0; i < 22; i++) {
      const step = `bulk-${String(i).padStart(2, '0')}`;
      const r = await agent('/v1/action', {
        capability: 'payments.send',
        action: 'write',
        // two tasks, so the default bound of 20 open approvals per task is not what this meets
        task_id: i % 2 === 0 ? 'invoice-run' : 'crm-sync',
        effect_key_step: step,
        amount_usd: 1,
        intent: `bulk payment ${step}`,
      });
      expect(r.status).toBe(202);
      steps.push(step);
    }
    await page.getByText('bulk payment bulk-21').waitFor({ timeout: 10_000 });
    // Newest first: the last one opened is on the first page; the priced refund is pushed to page 2.
    expect(await page.locator('tr[data-approval]').count()).toBe(20);
    expect(await page.locator('table.approvals tbody').innerText()).not.toContain('pay.refund_priced');
    await shot('approvals-page-1');
    await page.locator('#older-page').click();
    await page.getByText('page 2').waitFor();
    await page.getByText('bulk payment bulk-00').waitFor();
    expect(await page.locator('table.approvals tbody').innerText()).toContain('pay.refund_priced');
    await shot('approvals-page-2');
    await page.locator('#newer-page').click();
    await page.getByText('bulk payment bulk-21').waitFor();

    await page.locator('#filter-capability').fill('pay.refund_priced');
    await page.locator('#apply-filter').click();
    await until("document.querySelectorAll('tr[data-approval]').length === 1");
    expect(await page.locator('table.approvals tbody').innerText()).toContain('999999.99 USD');
    await shot('approvals-filtered');
    await page.locator('#filter-capability').fill('');
    await page.locator('#filter-requester').fill('nobody');
    await page.locator('#apply-filter').click();
    await page.getByText('No pending approvals match this filter.').waitFor();
    await page.locator('#filter-requester').fill('');
    await page.locator('#apply-filter').click();
    await page.getByText('bulk payment bulk-21').waitFor();
  });

  it('moves by keyboard: a visible skip link first, a focus ring, and the focus on the page after a move', async () => {
    await go('spend', 'Spend');
    // a fresh load: the focus starts at the top of the document
    await page.reload();
    await page.getByRole('heading', { name: 'Spend' }).waitFor();
    const active = (what: string) => page.evaluate(`document.activeElement.${what}`);
    await page.keyboard.press('Tab');
    expect(await active('className')).toBe('skip');
    const skip = (await page.locator('a.skip').boundingBox())!;
    expect(skip.y).toBeGreaterThanOrEqual(0);
    expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
    await page.keyboard.press('Enter');
    expect(await active('id')).toBe('main');
    // the navigation is next after the header: the current page is marked for screen readers
    const nav = page.getByRole('navigation', { name: 'Console pages' });
    expect(await nav.locator('[aria-current="page"]').innerText()).toBe('Spend');
    await nav.getByRole('link', { name: 'Records' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Records' }).waitFor();
    await until("document.activeElement && document.activeElement.id === 'main'");
  });

  it('shows records with filters and the sealed fields of one, spend with a chart, and the read-only views', async () => {
    await go('records', 'Records');
    await page.locator('table tbody tr').first().waitFor();
    await shot('records');
    await accessible();
    // the reworked page (issue 30): labelled filters, and the detail in words
    await page.locator('#records-capability').fill('crm.read');
    await page.locator('#records-outcome').selectOption('refused');
    await page.getByRole('button', { name: 'Filter' }).click();
    await until("document.querySelectorAll('table tbody tr').length === 1");
    await page.locator('table tbody tr td.num button').first().click();
    await page.getByRole('heading', { name: /^Decision #\d+: refused/ }).waitFor();
    expect(await page.locator('.facts').innerText()).toMatch(/Record hash/);
    await shot('record-detail');
    await page.getByRole('button', { name: 'Close' }).click();

    await go('spend', 'Spend');
    await page.locator('.budget-chart rect').first().waitFor();
    expect(await page.locator('table').innerText()).toMatch(
      /invoice-run[\s\S]*\$100\.00[\s\S]*\$27\.00[\s\S]*\$73\.00/,
    );
    await shot('spend');
    await shots('spend');
    // A generated task id never runs over its bar, at either width: it is cut, with a copy button.
    for (const size of [WIDE, NARROW]) {
      await page.setViewportSize(size);
      const label = (await page.locator(`[data-task="${LONG_TASK}"] .budget-label`).boundingBox())!;
      const bar = (await page.locator(`[data-task="${LONG_TASK}"] .budget-bar`).boundingBox())!;
      expect(label.x + label.width).toBeLessThanOrEqual(bar.x);
      const text = page.locator(`[data-task="${LONG_TASK}"] .id-text`);
      expect(await text.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
      expect(await text.getAttribute('title')).toBe(LONG_TASK);
    }
    await page.setViewportSize(WIDE);
    for (const [hash, heading, text] of [
      ['agents', 'People', /bot[\s\S]*olivia/],
      ['capabilities', 'Capabilities', /payments\.send/],
      ['policies', 'Policies', /permit \(principal, action, resource\);/],
      ['integrations', 'Integrations', /does not prove connectivity/],
    ] as const) {
      await go(hash, heading);
      await page.locator('main.content', { hasText: text }).waitFor();
      await shot(hash);
      await accessible();
    }
  });

  it('edits the appearance with a live preview and the whole console takes the new colours', async () => {
    await go('appearance', 'Appearance');
    const rootVar = (name: string) =>
      page.evaluate(
        `getComputedStyle(document.documentElement).getPropertyValue(${JSON.stringify(name)}).trim()`,
      );
    expect(await rootVar('--accent')).toBe('#4493f8');
    await page.locator('#appearance-mode').selectOption('light');
    for (const [key, value] of [
      ['bg', '#fbfaf7'],
      ['surface', '#ffffff'],
      ['text', '#1d1b16'],
      ['accent', '#b4235a'],
    ] as const) {
      await page.locator(`#colour-${key}`).fill(value);
    }
    await page.locator('#font-sans').fill('Georgia, "Times New Roman", serif');
    expect(
      await page.evaluate(
        "getComputedStyle(document.querySelector('.preview')).getPropertyValue('--accent').trim()",
      ),
    ).toBe('#b4235a');
    expect(await rootVar('--accent')).toBe('#4493f8');
    await page.locator('#colour-text').fill('#dddddd');
    await page.getByText(/Below WCAG AA contrast/).waitFor();
    // every failing pair is named, status colours included, and nothing so poor can be saved
    const warned = await page.locator('#contrast-warnings').innerText();
    expect(warned).toMatch(/text on bg 1\.\d+:1/);
    expect(warned).toMatch(/text on surface/);
    expect(await page.locator('#save-appearance').isDisabled()).toBe(true);
    await shot('appearance-contrast-warning');
    await page.locator('#colour-text').fill('#1d1b16');
    // A new logo through the editor: the theme names it by its digest, never as a data: URL,
    // and nothing is written to the provisioned asset store.
    const assetsDir = new DataDir(home).tenantAssets;
    const provisioned = readdirSync(assetsDir, { recursive: true }).map(String).sort();
    const logo = pngBytes(120, 40, [0x20, 0xa0, 0x60]);
    const logoUrl = `/tenant-assets/logo-${createHash('sha256').update(logo).digest('hex')}.png`;
    await page
      .locator('#logo-file')
      .setInputFiles({ name: 'brand.png', mimeType: 'image/png', buffer: logo });
    await page.locator('.preview img.logo[src^="data:image/png"]').waitFor();
    await page.locator('#save-appearance').click();
    await page.getByText('Saved as revision 2.').waitFor();
    await page.locator('#logo-served').getByText(logoUrl).waitFor();
    const header = page.locator('header.top img.logo');
    expect(await header.getAttribute('src')).toBe(logoUrl);
    await until("document.querySelector('header.top img.logo').naturalWidth === 120");
    const served = (await page.evaluate(
      `fetch(${JSON.stringify(logoUrl)}).then(async (r) => ({ status: r.status, type: r.headers.get('content-type'),
        hex: [...new Uint8Array(await r.arrayBuffer())].map((b) => b.toString(16).padStart(2, '0')).join('') }))`,
    )) as { status: number; type: string; hex: string };
    expect(served).toEqual({ status: 200, type: 'image/png', hex: logo.toString('hex') });
    expect((await call(`${consoleProc.url}${logoUrl}`, { ca })).status).toBe(401);
    const theme = (await page.evaluate("fetch('/api/theme').then((r) => r.text())")) as string;
    expect(JSON.parse(theme).theme.logo.url).toBe(logoUrl);
    expect(theme).not.toContain('data:');
    expect(readdirSync(assetsDir, { recursive: true }).map(String).sort()).toEqual(provisioned);
    // The page applies the saved theme after it reads it back: wait for it, then check it.
    await until(
      "getComputedStyle(document.documentElement).getPropertyValue('--accent').trim() === '#b4235a'",
    );
    expect(await rootVar('--accent')).toBe('#b4235a');
    await until("getComputedStyle(document.body).backgroundColor === 'rgb(251, 250, 247)'");
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(251, 250, 247)');
    await shot('appearance');
    await shots('appearance');
  });

  it('meets a stale revision with "someone else changed this" and a reload, overwriting nothing', async () => {
    // Another administrator saves from revision 1 through their own session.
    const signIn = await call(`${consoleProc.url}/api/session`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.alice}` },
      body: {},
    });
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0] as string;
    const theirs = await call(`${consoleProc.url}/api/settings/appearance`, {
      ca,
      method: 'POST',
      headers: { cookie, 'x-csrf-token': signIn.body.csrf_token as string },
      body: {
        revision: 2,
        settings: {
          appearance: 'light',
          accent: '#0f7b6c',
          bg: '#f7fbfa',
          surface: '#ffffff',
          text: '#102a26',
          font_sans: 'system-ui, sans-serif',
          logo: null,
        },
      },
    });
    expect(theirs.body).toMatchObject({ revision: 3 });
    await page.locator('#colour-accent').fill('#6633cc');
    await page.locator('#save-appearance').click();
    await page.getByText('Someone else changed this appearance').waitFor();
    await shot('appearance-stale');
    await page.locator('#reload-appearance').click();
    await page.getByText(/Revision 3/).waitFor();
    expect(await page.locator('#colour-accent').inputValue()).toBe('#0f7b6c');
  });

  it('switches the whole palette with the mode, so what is saved is readable everywhere', async () => {
    expect(await page.locator('#colour-bg').inputValue()).toBe('#f7fbfa');
    await page.locator('#appearance-mode').selectOption('dark');
    await page.locator('#mode-switched').waitFor();
    const dark = defaultTheme('dark').colors;
    expect(await page.locator('#colour-bg').inputValue()).toBe(dark.bg);
    expect(await page.locator('#colour-text').inputValue()).toBe(dark.text);
    // the administrator's accent, lightened until it reads on the dark background
    const accent = await page.locator('#colour-accent').inputValue();
    expect(accent).not.toBe('#0f7b6c');
    expect(await page.locator('#contrast-warnings').count()).toBe(0);
    expect(await page.locator('#save-appearance').isDisabled()).toBe(false);
    await shots('appearance-dark-draft');
    await page.locator('#save-appearance').click();
    await page.getByText('Saved as revision 4.').waitFor();
    await until("getComputedStyle(document.body).backgroundColor === 'rgb(13, 17, 23)'");
    // the saved status colours are the mode's own: the preview's "allowed" badge reads on its card
    const ok = await page.evaluate(
      "getComputedStyle(document.documentElement).getPropertyValue('--ok').trim()",
    );
    expect(ok).toBe(dark.ok);
    await accessible();
  });

  const verifyInPage = async (name: string, bytes: Buffer, keys: string[], requireAnchors = false) => {
    await page.locator('#export-file').setInputFiles({ name, mimeType: 'application/json', buffer: bytes });
    await page.locator('#public-key').fill(keys.join('\n'));
    await page.locator('#require-anchors').setChecked(requireAnchors);
    await page.locator('#verify').click();
    const result = page.locator('#verify-result');
    await result.waitFor();
    return {
      result: (await result.getAttribute('data-result')) as string,
      codes: ((await result.getAttribute('data-codes')) ?? '').split(' ').filter(Boolean),
    };
  };

  it('verifies an export in the browser: a good one passes, a tampered one fails, nothing is uploaded', async () => {
    const file = join(tmp.path, 'acme.jsonl');
    await runJson(['export', '--tenant', 'acme', '--out', file], env);
    const key = (await runJson<{ public_key: string }>(['key', 'show', '--tenant', 'acme'], env)).public_key;
    const uploads: string[] = [];
    page.on('request', (r) => {
      if (r.method() !== 'GET') uploads.push(r.url());
    });
    await go('verify', 'Verify an export');
    const good = readFileSync(file);
    expect(await verifyInPage('acme.jsonl', good, [key])).toEqual({ result: 'pass', codes: [] });
    await shot('verify-pass');
    const lines = good.toString('utf8').split('\n');
    const i = lines.findIndex((l) => l.includes('"type":"entry"') && l.includes('"amount_usd":25'));
    expect(i).toBeGreaterThan(0);
    lines[i] = (lines[i] as string).replace('"amount_usd":25', '"amount_usd":2.5');
    const tampered = await verifyInPage('tampered.jsonl', Buffer.from(lines.join('\n')), [key]);
    expect(tampered.result).toBe('fail');
    expect(tampered.codes).toContain('leaf_mismatch');
    await shot('verify-fail');
    await shots('verify');
    expect(uploads).toEqual([]);
  });

  it('streams a large file with a progress bar and reports its findings', async () => {
    const original = readFileSync(join(CORPUS_DIR, 'original.jsonl'), 'utf8');
    // Entry lines only: repeated anchors would make the test about signature checks, not streaming.
    const body =
      original
        .split('\n')
        .filter((l) => l.includes('"type":"entry"'))
        .join('\n') + '\n';
    const big = Buffer.from(original + body.repeat(Math.ceil((16 * 1024 * 1024) / body.length)));
    await go('verify', 'Verify an export');
    await page.evaluate(`(() => {
      window.__sawProgress = false;
      new MutationObserver(() => {
        if (document.querySelector('[role=progressbar]')) window.__sawProgress = true;
      }).observe(document.body, { childList: true, subtree: true });
    })()`);
    const corpus = loadCorpus();
    const r = await verifyInPage(
      'big.jsonl',
      big,
      corpus.trusted.map((k) => Buffer.from(k).toString('base64')),
    );
    expect(r.result).toBe('fail');
    expect(await page.evaluate('window.__sawProgress')).toBe(true);
    expect(await page.locator('#verify-result').innerText()).toMatch(/more findings not listed/);
  });

  it('agrees with the CLI verifier on the whole tamper corpus', async () => {
    const cases = JSON.parse(readFileSync(join(CORPUS_DIR, 'cases.json'), 'utf8')) as {
      id: string;
      codes: string[];
      trust?: 'attacker';
      require_anchors?: boolean;
    }[];
    const corpus = loadCorpus();
    const b64 = (k: Uint8Array) => Buffer.from(k).toString('base64');
    const disagreements: string[] = [];
    const inputs = [
      { id: 'original', bytes: readFileSync(join(CORPUS_DIR, 'original.jsonl')), codes: [] as string[] },
      ...cases.map((c) => ({ ...c, bytes: readFileSync(join(CORPUS_DIR, 'cases', `${c.id}.jsonl`)) })),
    ];
    expect(inputs.length).toBeGreaterThanOrEqual(41);
    for (const c of inputs) {
      const keys = 'trust' in c && c.trust === 'attacker' ? [rawPublicKey(attackerKey)] : corpus.trusted;
      const requireAnchors = 'require_anchors' in c && c.require_anchors === true;
      const cli = await verifyExport([c.bytes], { publicKeys: keys, requireAnchors }, nodeCrypto);
      const cliCodes = [...new Set(cli.findings.map((f) => f.code))].sort();
      const browser = await verifyInPage(`${c.id}.jsonl`, c.bytes, keys.map(b64), requireAnchors);
      if (browser.result !== cli.result || browser.codes.join() !== cliCodes.join()) {
        disagreements.push(
          `${c.id}: browser ${browser.result} [${browser.codes}] cli ${cli.result} [${cliCodes}]`,
        );
      }
      expect(cliCodes).toEqual([...c.codes].sort());
    }
    expect(disagreements).toEqual([]);
  });

  it('says so when signing out fails, and stays signed in: the session is still alive on the server', async () => {
    // another process holds the write lock past the console's deadline: the sign-out is a 503
    const locker = await holdWriteLock(new DataDir(home).database);
    try {
      await page.locator('#sign-out').click();
      const alert = page.locator('#sign-out-error');
      await alert.waitFor({ timeout: 15_000 });
      expect(await alert.textContent()).toBe(
        'Sign-out failed: the store is busy: another process holds its write lock; nothing was committed or executed. This session is still signed in; try again.',
      );
      expect(await page.locator('#token').count()).toBe(0);
      await shot('sign-out-failed');
    } finally {
      await locker.release();
    }
    expect(await page.evaluate("fetch('/api/session').then((r) => r.status)")).toBe(200);
  });

  it('signs out: the session ends server side and the sign-in page returns', async () => {
    await page.locator('#sign-out').click();
    await page.locator('#token').waitFor();
    expect(await page.evaluate("fetch('/api/session').then((r) => r.status)")).toBe(401);
  });

  it('keeps the tenant’s look on the sign-in page of this browser, and nothing the theme route guards', async () => {
    // A fresh load, signed out: the page wears the last tenant's colours from this browser...
    await page.reload();
    await page.locator('#token').waitFor();
    await until("getComputedStyle(document.body).backgroundColor === 'rgb(13, 17, 23)'");
    // ...which are the saved dark palette with the administrator's accent, not the default one
    const accent = (await page.evaluate(
      "getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()",
    )) as string;
    expect(accent).not.toBe(defaultTheme('dark').colors.accent);
    const kept = (await page.evaluate("localStorage.getItem('svc.console.look')")) as string;
    expect(Object.keys(JSON.parse(kept)).sort()).toEqual(['appearance', 'colors', 'mono', 'sans']);
    expect(kept).not.toMatch(/tenant-assets|acme|olivia|logo/);
    await accessible();
    await shot('sign-in-tenant-look');
    // a value planted in storage reaches the CSS as nothing but a colour: it is ignored whole
    await page.evaluate(
      `localStorage.setItem('svc.console.look', JSON.stringify({ appearance: 'dark', colors: { ...JSON.parse(localStorage.getItem('svc.console.look')).colors, bg: 'red; background: url(//evil.example/x)' }, sans: 'a', mono: 'b' }))`,
    );
    await page.reload();
    await page.locator('#token').waitFor();
    expect(await page.evaluate("document.documentElement.style.getPropertyValue('--bg')")).toBe('');
  });

  it('ran every page without a script error or a Content-Security-Policy violation', () => {
    expectNoPageErrors(pageErrors, { console: consoleProc, daemon });
  });
});
