import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addActor } from '../../src/provisioning/actor.js';
import { issueToken } from '../../src/provisioning/token.js';
import { DataDir } from '../../src/store/data-dir.js';
import {
  type ConsoleProcess,
  expectNoPageErrors,
  launchChromium,
  signInAs,
  spkiPin,
  startConsoleProcess,
  watchPageErrors,
} from '../helpers/browser.js';
import { runJson, runSvc, startDaemonProcess, type DaemonProcess } from '../helpers/cli.js';
import { call } from '../helpers/https.js';
import { capability, register } from '../helpers/registry.js';
import { pageShots, snapshot, WIDE } from '../helpers/console-shots.js';
import { axeViolations } from '../helpers/axe.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The Overview (the landing page), Records and the approval history in a real browser against
 * the built binary over TLS: what the figures say, where their links lead, records newest
 * first with a kind and intent, search, a detail in words that links on and a proof that
 * downloads, routine states not coloured as errors, an approver landing on approvals, and
 * axe-core finding no serious or critical violation on any of these pages.
 */
describe('console overview and records in chromium (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-console-overview-');
  const home = join(tmp.path, 'home');
  const env = { SVC_HOME: home };
  let daemon: DaemonProcess;
  let consoleProc: ConsoleProcess;
  let ca: Buffer;
  let caPath: string;
  let tokens: Record<'olivia' | 'bob' | 'bot', string>;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let deferredApproval: string;
  let decidedApproval: string;
  const pageErrors: string[] = [];

  const agent = (body: Record<string, unknown>) =>
    call(`${daemon.url}/v1/action`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.bot}` },
      body: { tenant_id: 'acme', actor_id: 'bot', action: 'read', capability: 'crm.read', ...body },
    });
  /** The committed screenshots at 1400 and 800 px, each checked like `expectAccessible`. */
  const atWidths = (name: string) => pageShots(page, name);
  const shot = (name: string) => snapshot(page, name, WIDE);
  /** axe-core over the whole page: no serious or critical violation. */
  const noSeriousViolations = async () => expect(await axeViolations(page)).toEqual([]);
  const signIn = (token: string, hash = '') => signInAs(page, consoleProc, token, hash);

  beforeAll(async () => {
    const init = await runJson<{ admin_token: string; ca_cert: string }>(
      ['init', '--tenant', 'acme', '--admin', 'alice'],
      env,
    );
    caPath = init.ca_cert;
    ca = readFileSync(caPath);
    const dir = new DataDir(home);
    const store = await dir.openStore();
    const now = new Date();
    try {
      await addActor(
        store,
        { tenantId: 'acme', id: 'olivia', kind: 'human', roles: ['operator', 'administrator', 'approver'] },
        now,
      );
      await addActor(store, { tenantId: 'acme', id: 'bob', kind: 'human', roles: ['approver'] }, now);
      await addActor(store, { tenantId: 'acme', id: 'bot', kind: 'agent', managerId: 'olivia' }, now);
      await register(store, 'acme', {
        caps: [
          capability('acme', 'payments.send', {
            actions: ['write'],
            irreversible: true,
            tier: 3,
            costMicros: 10_000_000n,
          }),
          capability('acme', 'crm.read', { actions: ['read'], costMicros: 1_000_000n }),
        ],
        grants: [
          ['bot', 'payments.send'],
          ['bot', 'crm.read'],
        ],
        policy: 'permit (principal, action, resource);\n',
        tasks: [
          { id: 'invoice-run', sponsor: 'olivia', budget: 100_000_000n },
          { id: 'task_01a218b92b45217c486d31c4288d2f47', sponsor: 'olivia', budget: 10_000_000n },
        ],
      });
      const ttlMs = 86_400_000;
      const token = async (actorId: string) =>
        (await issueToken(store, { tenantId: 'acme', actorId, ttlMs, now })).token;
      tokens = { olivia: await token('olivia'), bob: await token('bob'), bot: await token('bot') };
    } finally {
      await store.close();
    }
    daemon = await startDaemonProcess(['--anchor-interval', '1s'], env);
    consoleProc = await startConsoleProcess([], env);
    const long = 'task_01a218b92b45217c486d31c4288d2f47';
    for (const [task, step, amount, intent] of [
      [long, 's1', 3, 'sync the CRM contacts of region north'],
      [long, 's2', 4, 'sync the CRM contacts of region south'],
      [long, 's3', 9, 'sync every CRM contact at once'],
      ['invoice-run', 'c1', 2, 'look up the customer of invoice INV-1045'],
    ] as const) {
      await agent({ task_id: task, effect_key_step: step, amount_usd: amount, intent });
    }
    const pay = (step: string, intent: string) =>
      agent({
        capability: 'payments.send',
        action: 'write',
        task_id: 'invoice-run',
        effect_key_step: step,
        amount_usd: 25,
        intent,
      });
    decidedApproval = ((await pay('pay-1', 'pay invoice INV-1045')).body.approval as { approval_id: string })
      .approval_id;
    deferredApproval = ((await pay('pay-2', 'pay invoice INV-1046')).body.approval as { approval_id: string })
      .approval_id;
    // bob approves the first from the CLI: the history names the channel
    const approved = await runSvc(['approvals', 'approve', decidedApproval, '--note', 'invoice checked'], {
      ...env,
      SVC_ENDPOINT: daemon.url,
      SVC_TOKEN: tokens.bob,
      SVC_CA_CERT: caPath,
    });
    expect(approved.code, approved.stderr).toBe(0);
    browser = await launchChromium(spkiPin(ca));
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1400, height: 900 });
    watchPageErrors(page, pageErrors);
  });

  afterAll(async () => {
    await browser?.close();
    await consoleProc?.stop();
    await daemon?.stop();
    tmp.cleanup();
  });

  it('lands an operator on the overview: what waits, the day by outcome, refusal codes, burn, anchors', async () => {
    await signIn(tokens.olivia);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const tile = (name: string) => page.locator('section.tile', { has: page.getByRole('heading', { name }) });
    const waiting = tile('Waiting for approval');
    expect(await waiting.locator('.tile-count .big').innerText()).toBe('1');
    expect(
      await waiting.getByRole('link', { name: /payments\.send \(write\) \$25\.00/ }).getAttribute('href'),
    ).toBe(`#/approvals/${deferredApproval}`);
    // 5 allowed (4 reads, the approved payment waits for its resume: deferred twice), 1 refused
    const day = tile('Decisions, last 24 hours');
    expect(await day.innerText()).toMatch(/24 hours: 3 allowed · 2 deferred · 1 refused/);
    const codes = tile('Top refusal codes, 24 hours');
    const code = codes.getByRole('link', { name: 'budget exceeded' });
    expect(await code.getAttribute('href')).toBe(
      '#/records/kind=decision&outcome=refused&code=budget_exceeded',
    );
    expect(await tile('Budget burn').innerText()).toMatch(/\$7\.00 of \$10\.00 \(70 %\)/);
    // the daemon anchors every second: the head covers the journal and shows its timestamp state
    await expect
      .poll(
        async () => {
          await page.reload();
          await tile('Evidence: anchors and witnesses').waitFor();
          return tile('Evidence: anchors and witnesses').innerText();
        },
        { timeout: 15_000, interval: 500 },
      )
      .toMatch(/Latest signed head\s+\d+ records, signed/);
    expect(await tile('Notifications').innerText()).toMatch(
      /0 dead letters · 0 pending · 0\s+destinations disabled/,
    );
    await noSeriousViolations();
    await atWidths('overview');
    expectNoPageErrors(pageErrors, { console: consoleProc, daemon });
  });

  it('follows a refusal code to its records: newest first, each with its kind and intent, the refusal in red only', async () => {
    await page.getByRole('link', { name: 'budget exceeded' }).click();
    await page.getByRole('heading', { name: 'Records' }).waitFor();
    const rows = page.locator('table.records tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().innerText()).toMatch(
      /Decision\s+sync every CRM contact at once[\s\S]*refused\s+budget_exceeded/,
    );
    expect(await rows.first().locator('.pill').getAttribute('class')).toBe('pill bad');
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => rows.count()).toBe(7);
    const sequences = await page.locator('table.records tbody tr td.num button').allInnerTexts();
    expect(sequences.map(Number)).toEqual([...sequences.map(Number)].sort((a, b) => b - a));
    // routine states are information, not errors: a deferral is not red
    const deferred = rows.filter({ hasText: 'pay invoice INV-1046' });
    expect(await deferred.locator('.pill').getAttribute('class')).toBe('pill info');
    const approval = rows.filter({ hasText: 'Approval' });
    expect(await approval.innerText()).toMatch(/Approval[\s\S]*bob[\s\S]*approved/);
    await noSeriousViolations();
    await atWidths('records');
    expectNoPageErrors(pageErrors, { console: consoleProc, daemon });
  });

  it('searches, and opens a record in words that links to its task, approval and actor, with its proof', async () => {
    await page.locator('#records-q').fill('INV-1046');
    await page.getByRole('button', { name: 'Filter' }).click();
    const rows = page.locator('table.records tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    await rows.first().locator('td.num button').click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const text = await dialog.innerText();
    expect(text).toMatch(/Decision #\d+: deferred/);
    expect(text).toMatch(/Intent\s+pay invoice INV-1046/);
    expect(text).toMatch(/Effect key step\s+pay-2/);
    expect(text).not.toMatch(/\bnull\b|_id\b|effect_key_step/);
    expect(await dialog.getByRole('link', { name: 'bot' }).getAttribute('href')).toBe('#/people/bot');
    expect(await dialog.getByRole('link', { name: deferredApproval }).getAttribute('href')).toBe(
      `#/approvals/${deferredApproval}`,
    );
    expect(await dialog.getByRole('link', { name: 'invoice-run' }).getAttribute('href')).toBe(
      '#/spend/invoice-run',
    );
    const proofHref = await dialog
      .getByRole('link', { name: /Download the receipt with its inclusion proof/ })
      .getAttribute('href');
    const proof = await page.evaluate(async (href) => (await fetch(href!)).json(), proofHref);
    expect(proof).toMatchObject({ outcome: 'deferred', proof: { entry: { type: 'entry' } } });
    await noSeriousViolations();
    await shot('records-detail-1400');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expectNoPageErrors(pageErrors, { console: consoleProc, daemon });
  });

  it('shows the approval history on the Approvals page: who decided, when, through which channel', async () => {
    await page.goto(`${consoleProc.url}/#/approvals`);
    const history = page.locator('section.approval-history');
    const row = history.locator('tbody tr', { hasText: 'invoice checked' });
    await row.waitFor();
    expect(await row.innerText()).toMatch(
      /payments\.send \(write\) \$25\.00[\s\S]*bot[\s\S]*approved, not yet used[\s\S]*bob[\s\S]*\d{4}-\d\d-\d\dT[\s\S]*API or CLI/,
    );
    await noSeriousViolations();
    await history.scrollIntoViewIfNeeded();
    await shot('approvals-history-1400');
    expectNoPageErrors(pageErrors, { console: consoleProc, daemon });
  });

  it('lands an approver who reads no journal summary on approvals, and the overview refuses it', async () => {
    await signIn(tokens.bob);
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    const o = await page.evaluate(async () => (await fetch('/api/overview')).status);
    expect(o).toBe(403);
    expectNoPageErrors(pageErrors, { console: consoleProc, daemon });
  });
});
