import { readFileSync } from 'node:fs';
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
import { call } from '../helpers/https.js';
import { pageShots } from '../helpers/console-shots.js';
import { axeViolations } from '../helpers/axe.js';
import { tmpDir } from '../helpers/tmp.js';

/**
 * The People and Capabilities administration in a real browser: the built binary serves the
 * console over TLS; an administrator adds people, issues a token (shown once) and revokes it,
 * grants and revokes a permission, registers and edits a capability, each error next to its
 * field; an approver who is not an administrator gets no form, and the server refuses him.
 */
describe('console people administration in chromium (built binary, TLS)', () => {
  const tmp = tmpDir('svc-e2e-console-people-');
  const env = { SVC_HOME: join(tmp.path, 'home') };
  const t = ['--tenant', 'acme'];
  let consoleProc: ConsoleProcess;
  let daemon: DaemonProcess;
  let entitlementId: string;
  let tokens: Record<'alice' | 'bob', string>;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const pageErrors: string[] = [];
  const svc = <T = Record<string, unknown>>(args: string[]) => runJson<T>(args, env);

  const signIn = (token: string, hash: string) => signInAs(page, consoleProc, token, hash);
  /** Serious or critical axe-core findings over the whole page as it is now. */
  const axe = () => axeViolations(page);
  /** The committed screenshots at 1400 and 800 px, each checked like `expectAccessible`. */
  const snapshots = (name: string) => pageShots(page, name);
  /** The page's own POST with its session, optionally without the CSRF token. */
  const postFromPage = (url: string, body: unknown, csrf: boolean) =>
    page.evaluate(
      async ([u, b, withCsrf]) => {
        const s = await fetch('/api/session');
        const token = s.ok ? ((await s.json()) as { csrf_token: string }).csrf_token : '';
        const r = await fetch(u as string, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(withCsrf ? { 'x-csrf-token': token } : {}) },
          body: JSON.stringify(b),
        });
        return { status: r.status, body: (await r.json()) as { code: string; reason: string } };
      },
      [url, body, csrf] as const,
    );

  beforeAll(async () => {
    const init = await runJson<{ ca_cert: string; admin_token: string }>(
      ['init', ...t, '--admin', 'alice'],
      env,
    );
    await svc([
      'actor',
      'add',
      ...t,
      '--id',
      'bob',
      '--kind',
      'human',
      '--role',
      'approver',
      '--role',
      'operator',
    ]);
    await svc(['actor', 'add', ...t, '--id', 'billing', '--kind', 'service']);
    await svc(['capability', 'register', ...t, '--name', 'crm.read', '--tier', '1', '--actions', 'read']);
    tokens = {
      alice: init.admin_token,
      bob: (await svc<{ token: string }>(['token', 'issue', ...t, '--actor', 'bob', '--label', 'laptop']))
        .token,
    };
    // An entitlement of ledger-bot, as the access routes make one: its request, approved by
    // its manager bob through the daemon.
    await svc(['actor', 'add', ...t, '--id', 'ledger-bot', '--kind', 'agent', '--manager', 'bob']);
    await svc([
      'capability',
      'register',
      ...t,
      '--name',
      'ledger.export',
      '--tier',
      '1',
      '--actions',
      'read',
      '--requestable',
    ]);
    const ledgerBot = (await svc<{ token: string }>(['token', 'issue', ...t, '--actor', 'ledger-bot'])).token;
    daemon = await startDaemonProcess([], env);
    const ca = readFileSync(init.ca_cert);
    const asked = await call(`${daemon.url}/v1/access-requests`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${ledgerBot}` },
      body: { capability: 'ledger.export', reason: 'month end', duration_seconds: 86400 },
    });
    expect(asked.status).toBe(201);
    const cards = await call(`${daemon.url}/v1/manager-cards`, {
      ca,
      headers: { authorization: `Bearer ${tokens.bob}` },
    });
    const decided = await call(`${daemon.url}/v1/manager-cards/decide`, {
      ca,
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.bob}` },
      body: { card_id: (cards.body as unknown as { card_id: string }[])[0]!.card_id, decision: 'approve' },
    });
    entitlementId = (decided.body.entitlement as { entitlement_id: string }).entitlement_id;
    consoleProc = await startConsoleProcess([], env);
    browser = await launchChromium(spkiPin(readFileSync(init.ca_cert)));
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: consoleProc.url,
    });
    page = await browser.context.newPage();
    watchPageErrors(page, pageErrors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await consoleProc?.stop();
    await daemon?.stop();
    tmp.cleanup();
  });

  it('lists humans, agents and services with roles and tokens; the kind filter narrows; #/agents opens it', async () => {
    await signIn(tokens.alice, '#/agents');
    await page.getByRole('heading', { name: 'People' }).waitFor();
    const rows = page.locator('table.people tbody tr');
    await page.locator('tr[data-actor="bob"]').waitFor();
    expect(await page.locator('tr[data-actor="bob"]').innerText()).toMatch(
      /bob\s+human\s+approver, operator\s+–\s+1/,
    );
    expect(await rows.count()).toBe(4);
    await page.locator('#people-kind').selectOption('service');
    await page.locator('tr[data-actor="bob"]').waitFor({ state: 'detached' });
    expect(await rows.count()).toBe(1);
    await page.locator('#people-kind').selectOption('');
    await page.locator('tr[data-actor="bob"]').waitFor();
  });

  it('adds an agent with its manager, naming a wrong field next to it', async () => {
    await page.goto(`${consoleProc.url}/#/people`);
    const form = page.locator('#add-person');
    await form.locator('#person-id').fill('crm-bot');
    await form.locator('#person-kind').selectOption('agent');
    await form.getByRole('button', { name: 'Add' }).click();
    await page
      .locator('#person-manager-error')
      .filter({ hasText: 'manager: every agent names its accountable human manager' })
      .waitFor();
    expect(await page.locator('#person-manager').getAttribute('aria-invalid')).toBe('true');
    await form.locator('#person-manager').selectOption('bob');
    await form.getByRole('button', { name: 'Add' }).click();
    await page.getByRole('status').filter({ hasText: 'Added agent crm-bot' }).waitFor();
    expect(await page.locator('tr[data-actor="crm-bot"]').innerText()).toMatch(/crm-bot\s+agent\s+–\s+bob/);
    const actors = await svc<{ items: { actor_id: string; manager: string | null }[] }>([
      'actor',
      'list',
      ...t,
    ]);
    expect(actors.items.find((a) => a.actor_id === 'crm-bot')?.manager).toBe('bob');
    await snapshots('people');
  });

  it('issues a token shown once with a copy button, never again, and revokes it after a confirmation', async () => {
    await page.goto(`${consoleProc.url}/#/people/crm-bot`);
    await page.locator('#no-tokens').waitFor();
    await page.locator('#token-ttl').fill('5y');
    await page.getByRole('button', { name: 'Issue a token' }).click();
    await page.locator('#token-ttl-error').filter({ hasText: 'ttl:' }).waitFor();
    await page.locator('#token-ttl').fill('12h');
    await page.locator('#token-label').fill('ci');
    await page.getByRole('button', { name: 'Issue a token' }).click();
    const dialog = page.locator('#issued-token-dialog');
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('it will not be shown again');
    const secret = await page.locator('#issued-token').innerText();
    expect(secret).toMatch(/^svct_[0-9a-f]{16}_\S+$/);
    const tokenId = secret.slice(5, 21);
    await page.locator('#copy-token').click();
    await page.locator('#copy-token').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await snapshots('token-issued');
    expect(page.url()).not.toContain(secret.slice(5));
    await page.locator('#close-token').click();
    await dialog.waitFor({ state: 'detached' });
    // Closed: the only copy is gone from the page; the list shows its public id only.
    const row = page.locator(`tr[data-token="${tokenId}"]`);
    await row.waitFor();
    expect(await page.content()).not.toContain(secret.slice(22));
    const listed = await svc<{ items: { token_id: string; label: string; state: string }[] }>([
      'token',
      'list',
      ...t,
      '--actor',
      'crm-bot',
    ]);
    expect(listed.items).toEqual([
      expect.objectContaining({ token_id: tokenId, label: 'ci', state: 'active' }),
    ]);

    await row.getByRole('button', { name: `revoke token ${tokenId}` }).click();
    await page
      .getByRole('dialog')
      .filter({ hasText: `Revoke token ${tokenId}?` })
      .waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await row.locator('.pill').innerText()).toBe('active');
    await row.getByRole('button', { name: `revoke token ${tokenId}` }).click();
    await page.locator('#admin-confirm').click();
    await page
      .getByRole('status')
      .filter({ hasText: `Revoked token ${tokenId}` })
      .waitFor();
    await row.locator('.pill.bad').filter({ hasText: 'revoked' }).waitFor();
    const after = await svc<{ items: { state: string }[] }>(['token', 'list', ...t, '--actor', 'crm-bot']);
    expect(after.items[0]?.state).toBe('revoked');
  });

  it('grants a standing permission and revokes it after a confirmation', async () => {
    await page.goto(`${consoleProc.url}/#/people/crm-bot`);
    await page.locator('#grant-capability').selectOption('crm.read');
    await page.getByRole('button', { name: 'Grant' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Granted crm-bot a standing permission on crm.read' })
      .waitFor();
    const row = page.locator('table.permissions tr[data-capability="crm.read"]');
    await row.waitFor();
    expect(
      (await svc<{ items: { capability: string }[] }>(['permission', 'list', ...t, '--actor', 'crm-bot']))
        .items,
    ).toEqual([expect.objectContaining({ capability: 'crm.read' })]);
    await snapshots('person');
    await row.getByRole('button', { name: 'revoke crm.read' }).click();
    await page.locator('#admin-confirm').click();
    await page.locator('#no-permissions').waitFor();
    expect(
      (await svc<{ items: unknown[] }>(['permission', 'list', ...t, '--actor', 'crm-bot'])).items,
    ).toEqual([]);
  });

  it('revokes an entitlement after a confirmation; the revocation is journaled', async () => {
    await page.goto(`${consoleProc.url}/#/people/ledger-bot`);
    const row = page.locator(`tr[data-entitlement="${entitlementId}"]`);
    await row.waitFor();
    expect(await row.innerText()).toMatch(/ledger\.export\s+active\s+bob/);
    // Another person's page keeps no result of the one before (crm-bot's, in the tests above).
    expect(await page.locator('#person').innerText()).not.toContain('crm-bot');
    await row.getByRole('button', { name: 'revoke entitlement on ledger.export' }).click();
    await page
      .getByRole('dialog')
      .filter({ hasText: "Revoke ledger-bot's entitlement on ledger.export?" })
      .waitFor();
    await page.locator('#admin-confirm').click();
    await page
      .getByRole('status')
      .filter({ hasText: /Revoked ledger-bot's entitlement on ledger\.export; journaled as receipt \S+/ })
      .waitFor();
    await row.filter({ hasText: 'revoked' }).waitFor();
    expect(await axe()).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'person-entitlement-revoked.png'), fullPage: true });
    const listed = await call(`${daemon.url}/v1/entitlements/${entitlementId}`, {
      ca: readFileSync(join(env.SVC_HOME, 'tls', 'deployment-cert.pem')),
      headers: { authorization: `Bearer ${tokens.alice}` },
    });
    expect(listed.body).toMatchObject({ status: 'revoked', revoked_by: 'alice' });
  });

  it('registers and edits a capability from the Capabilities page, errors next to their field', async () => {
    await page.goto(`${consoleProc.url}/#/capabilities`);
    const form = page.locator('#capability-form');
    await form.locator('#cap-name').fill('payments.refund');
    await form.locator('#cap-tier').fill('4');
    await form.locator('#cap-actions').fill('write');
    await form.locator('#cap-approvers').fill('crm-bot');
    await form.getByRole('button', { name: 'Register' }).click();
    await page
      .locator('#cap-approvers-error')
      .filter({ hasText: 'approvers: crm-bot is an agent, not a human' })
      .waitFor();
    await form.locator('#cap-approvers').fill('bob');
    await form.locator('#cap-cost').fill('25');
    await form.getByText('Irreversible').click();
    await form.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('status').filter({ hasText: 'Registered payments.refund.' }).waitFor();
    const row = page.locator('tr[data-capability="payments.refund"]');
    await row.waitFor();
    expect(await row.innerText()).toMatch(/payments\.refund\s+4\s+yes\s+grant\s+write\s+\$25\.00\s+no\s+bob/);
    await row.getByRole('button', { name: 'edit payments.refund' }).click();
    await page.getByRole('heading', { name: 'Edit payments.refund' }).waitFor();
    await form.locator('#cap-tier').fill('5');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Updated payments.refund: tier changed.' }).waitFor();
    const caps = await svc<{ items: { name: string; tier: number; approvers: string[] }[] }>([
      'capability',
      'list',
      ...t,
    ]);
    expect(caps.items.find((c) => c.name === 'payments.refund')).toMatchObject({
      tier: 5,
      approvers: ['bob'],
    });
    await snapshots('capabilities');
  });

  it('gives an approver who is not an administrator no form, and the server refuses his writes naming the role', async () => {
    await signIn(tokens.bob, '#/people/crm-bot');
    await page.locator('#person').waitFor();
    expect(await page.locator('#issue-token, #grant-permission').count()).toBe(0);
    await page.goto(`${consoleProc.url}/#/people`);
    await page.getByText('Administrators add people and issue tokens.').waitFor();
    expect(await page.locator('#add-person').count()).toBe(0);
    const refused = await postFromPage('/api/tokens', { actor_id: 'crm-bot' }, true);
    expect(refused).toEqual({
      status: 403,
      body: expect.objectContaining({ code: 'forbidden', reason: 'this route needs the administrator role' }),
    });
    await signIn(tokens.alice, '#/people');
    expect(await postFromPage('/api/tokens', { actor_id: 'crm-bot' }, false)).toMatchObject({
      status: 403,
      body: { code: 'csrf_failed' },
    });
    await page.locator('#sign-out').click();
    await page.locator('#token').waitFor();
    expect(await postFromPage('/api/tokens', { actor_id: 'crm-bot' }, true)).toMatchObject({
      status: 401,
      body: { code: 'unauthenticated' },
    });
    const listed = await svc<{ items: unknown[] }>(['token', 'list', ...t, '--actor', 'crm-bot']);
    expect(listed.items).toHaveLength(1);
  });

  it('ran every page without a script error or a Content-Security-Policy violation', () => {
    expectNoPageErrors(pageErrors, { console: consoleProc, daemon });
  });
});
