import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcClient, SvcError, type Deferred, type Decision } from '../../src/sdk/index.js';
import { ROOT } from '../helpers/cli.js';
import { DEPLOYMENT as D, runSuite, sdkHarness, type SdkHarness } from '../helpers/sdk-harness.js';

/** The TypeScript SDK against the built daemon over TLS: every method and every typed outcome. */
describe('TypeScript SDK (svc/sdk) against a real daemon', () => {
  let h: SdkHarness;
  let bot: SvcClient;
  let bob: SvcClient;
  let n = 0;
  const step = () => `ts-${h.env.SVC_TEST_RUN}-${++n}`;
  const ask = (capability: string, action = 'write') => ({
    capability,
    action,
    task_id: D.task,
    effect_key_step: step(),
  });

  beforeAll(async () => {
    h = await sdkHarness('reports.typescript');
    bot = new SvcClient({ env: h.env });
    bob = new SvcClient({ env: { ...h.env, SVC_TOKEN: h.env.SVC_TEST_APPROVER_TOKEN } });
  });
  afterAll(async () => {
    await bot?.close();
    await bob?.close();
    await h?.close();
  });

  it('is the package export svc/sdk, and fills the identity claims from the token', async () => {
    const pkg = 'svc/sdk';
    const mod = (await import(pkg)) as { SvcClient: unknown };
    expect(typeof mod.SvcClient).toBe('function');
    expect(await bot.identity()).toEqual({ tenant_id: 'acme', actor_id: 'bot' });
    expect(await bot.health()).toEqual({ status: 'ok' });
    const caps = await bot.capabilities();
    expect(caps.capabilities.map((c) => c.name).sort()).toEqual(
      [D.allowed, D.irreversible, D.brokered, D.brokeredIrreversible, D.passThrough].sort(),
    );
  });

  it('allowed: a grant, presented and its effect journaled; the same key again is a conflict', async () => {
    const req = { ...ask(D.allowed, 'read'), intent: 'read the notes' };
    const out = await bot.action(req);
    if (out.kind !== 'allowed') throw new Error(JSON.stringify(out));
    expect(out.request).toMatchObject({ tenant_id: 'acme', actor_id: 'bot', ...req });
    const grant = out.decision.grant!;
    expect(await bot.presentGrant(grant.grant_id)).toMatchObject({
      grant_id: grant.grant_id,
      presented_by: 'bot',
    });
    const effect = await bot.grantReceipt({
      grant_id: grant.grant_id,
      status: 'succeeded',
      effect_id: 'n-1',
    });
    expect(effect).toMatchObject({ intent_id: out.decision.intent_id, effect_id: 'n-1', observed: true });

    const again = await bot.action(req);
    expect(again).toMatchObject({
      kind: 'conflict',
      code: 'duplicate_effect',
      intent_id: out.decision.intent_id,
      prior_outcome: 'allowed',
    });
  });

  it('refused: reason, remedy and the sealed receipt; federate is refused before any decision', async () => {
    const out = await bot.action({ ...ask(D.allowed, 'read'), amount_usd: 5000 });
    if (out.kind !== 'refused') throw new Error(JSON.stringify(out));
    expect(out.code).toBe('budget_exceeded');
    expect(out.remedy).toMatch(/budget/);
    expect(out.decision?.receipt).toMatchObject({ outcome: 'refused', code: 'budget_exceeded' });
    expect((await bot.receipt(out.decision!.receipt.receipt_id)).allowed).toBe(false);

    const fed = await bot.federate(ask(D.allowed, 'read'));
    expect(fed).toMatchObject({
      kind: 'refused',
      code: 'no_federated_backend',
      reason: 'no federated backend',
      decision: null,
    });
  });

  it('deferred: carries what resume needs; approved by a human, the resume allows', async () => {
    const out = await bot.action({ ...ask(D.irreversible), amount_usd: 1 });
    if (out.kind !== 'deferred') throw new Error(JSON.stringify(out));
    expect(out.approval_id).toMatch(/^apr_/);
    expect((await bot.approval(out.approval_id!)).status).toBe('pending');
    expect((await bot.resume(out)).kind).toBe('deferred');
    const pending = await bob.approvals({ status: 'pending', limit: 200 });
    expect(pending.items.map((a) => a.approval_id)).toContain(out.approval_id);
    await bob.decideApproval(out.approval_id!, { decision: 'approve', note: 'ok' });
    const resumed = await bot.resume(out);
    expect(resumed).toMatchObject({
      kind: 'allowed',
      decision: { decision: 'allowed', intent_id: out.decision.intent_id },
    });
    await expect(bot.resume(out)).rejects.toMatchObject({ code: 'no_deferral' });
  });

  it('brokered: executed through the provider; an irreversible one resumes on the brokered route', async () => {
    const out = await bot.brokered({ ...ask(D.brokered), params: { team: 'sales', name: 'Ada' } });
    if (out.kind !== 'allowed') throw new Error(JSON.stringify(out));
    expect(out.decision.provider).toMatchObject({
      outcome: 'succeeded',
      status: 201,
      effect_id: expect.stringMatching(/^c-/),
    });
    expect(h.provider.calls.at(-1)).toMatchObject({ method: 'POST', url: '/contacts/sales' });

    const calls = h.provider.calls.length;
    const deferred = await bot.brokered({ ...ask(D.brokeredIrreversible), params: { team: 'ops' } });
    if (deferred.kind !== 'deferred') throw new Error(JSON.stringify(deferred));
    expect(h.provider.calls.length).toBe(calls);
    await expect(bot.resume(deferred as unknown as Deferred<Decision>)).rejects.toMatchObject({
      code: 'usage',
    });
    await bob.decideApproval(deferred.approval_id!, { decision: 'approve' });
    const resumed = await bot.resumeBrokered(deferred);
    expect(resumed).toMatchObject({ kind: 'allowed', decision: { provider: { outcome: 'succeeded' } } });
    expect(h.provider.calls.length).toBe(calls + 1);
  });

  it('observe: the effect of a pass_through intent, labelled observed', async () => {
    const out = await bot.action(ask(D.passThrough));
    if (out.kind !== 'allowed') throw new Error(JSON.stringify(out));
    const seen = await bot.observe({
      intent_id: out.decision.intent_id,
      status: 'succeeded',
      effect_id: 'mail-1',
    });
    expect(seen).toMatchObject({ outcome: 'succeeded', effect_id: 'mail-1', observed: true });
  });

  it('access: catalogue, request, manager card decided, entitlement, revoke', async () => {
    const requestable = h.env.SVC_TEST_REQUESTABLE!;
    expect((await bot.catalogue()).map((c) => c.name)).toContain(requestable);
    const made = await bot.requestAccess({
      capability: requestable,
      reason: 'monthly report',
      duration_seconds: 3600,
    });
    const id = made.access_request.access_request_id;
    expect((await bot.accessRequest(id)).status).toBe('pending');
    const card = (await bob.managerCards()).find((c) => c.access_request_id === id)!;
    const decided = await bob.decideManagerCard({ card_id: card.card_id, decision: 'approve' });
    expect(decided.entitlement).toMatchObject({ capability: requestable, status: 'active' });
    const held = await bot.entitlements({ status: 'active' });
    expect(held.items.map((e) => e.capability)).toContain(requestable);
    expect((await bot.revokeAccessRequest(id, { note: 'done' })).access_request.status).toBe('revoked');
  });

  it('tasks, task, execution constraints, and receipts as an async iterator over pages', async () => {
    expect((await bot.tasks()).items.map((t) => t.task_id)).toEqual([D.task]);
    expect((await bot.task(D.task)).status).toBe('active');
    expect((await bot.executionConstraints(D.task)).installed).toBe(false);
    const pages = [];
    for await (const page of bot.receipts({ task_id: D.task, limit: 2 })) pages.push(page);
    expect(pages.length).toBeGreaterThan(2);
    const all = pages.flatMap((p) => p.items);
    expect(new Set(all.map((r) => r.receipt_id)).size).toBe(all.length);
    expect(all.map((r) => r.sequence)).toEqual([...all.map((r) => r.sequence)].sort((a, b) => a - b));
  });

  it('a lost response is an unknown outcome; reconcile finds the decision; the same key is not decided twice', async () => {
    const lossy = new SvcClient({ env: { ...h.env, SVC_ENDPOINT: h.env.SVC_TEST_DROP_ENDPOINT! } });
    try {
      const req = ask(D.allowed, 'read');
      const out = await lossy.action(req);
      expect(out).toMatchObject({ kind: 'unknown', task_id: D.task, effect_key_step: req.effect_key_step });
      const found = await bot.reconcile(D.task, req.effect_key_step);
      expect(found).toMatchObject({
        found: true,
        outcome: 'allowed',
        decision: { kind: 'decision', effect_key_step: req.effect_key_step },
      });
      const again = await bot.action(req);
      expect(again).toMatchObject({ kind: 'conflict', intent_id: found.intent_id, prior_outcome: 'allowed' });
      const none = await bot.reconcile(D.task, 'never-sent');
      expect(none).toMatchObject({ found: false, decision: null });
      expect(none.note).toMatch(/does not prove/);
    } finally {
      await lossy.close();
    }
  });

  it('a daemon-originated 503 is a failure outcome, and nothing was committed', async () => {
    const busy = new SvcClient({ env: { ...h.env, SVC_ENDPOINT: h.env.SVC_TEST_LOCKED_ENDPOINT! } });
    try {
      const req = ask(D.allowed, 'read');
      const out = await busy.action(req);
      expect(out).toMatchObject({ kind: 'failure', status: 503, code: 'unavailable' });
      expect((await bot.reconcile(D.task, req.effect_key_step)).found).toBe(false);
      expect((await bot.action(req)).kind).toBe('allowed');
    } finally {
      await busy.close();
    }
  }, 30_000);

  it('the example agent asks, and reports the decision', async () => {
    const env = {
      SVC_ENDPOINT: h.env.SVC_ENDPOINT!,
      SVC_TOKEN: h.env.SVC_TOKEN!,
      SVC_CA_CERT: h.env.SVC_CA_CERT!,
    };
    const example = join(ROOT, 'src/sdk/examples/agent.mjs');
    const allowed = await runSuite(process.execPath, [example, D.allowed, 'read', D.task], ROOT, env);
    expect(allowed.code, allowed.output).toBe(0);
    expect(allowed.output).toMatch(/bot asks to read notes.read for task t1\nallowed: intent int_/);
    const discovered = await runSuite(process.execPath, [example], ROOT, env);
    // no arguments: the first capability that takes no parameters, the first active task
    expect(discovered.code, discovered.output).toBe(0);
    expect(discovered.output).toMatch(/bot asks to write mail.send for task t1\nallowed: intent int_/);
    const fromEnv = await runSuite(process.execPath, [example], ROOT, {
      ...env,
      SVC_EXAMPLE_CAPABILITY: D.irreversible,
    });
    expect(fromEnv.output).toMatch(
      /deferred: waiting for approval apr_\w+; approve it \(svc approvals approve apr_/,
    );
    const wrong = await runSuite(process.execPath, [example, 'nothing.here'], ROOT, env);
    expect(wrong.code).toBe(1);
    expect(wrong.output).toMatch(/bot may use no capability named nothing.here/);
  });

  it('a daemon that cannot be reached is an error, never an empty capability list', async () => {
    const gone = new SvcClient({ env: { ...h.env, SVC_ENDPOINT: 'https://127.0.0.1:1' } });
    await expect(gone.capabilities()).rejects.toMatchObject({ kind: 'unavailable', code: 'unreachable' });
    await expect(gone.action(ask(D.allowed, 'read'))).rejects.toBeInstanceOf(SvcError);
    await gone.close();
    const untrusted = new SvcClient({ env: { ...h.env, SVC_CA_CERT: '' } });
    await expect(untrusted.capabilities()).rejects.toMatchObject({
      remedy: expect.stringMatching(/SVC_CA_CERT/),
    });
    await untrusted.close();
    const stranger = new SvcClient({ env: { ...h.env, SVC_TOKEN: 'svc_not-a-token' } });
    await expect(stranger.capabilities()).rejects.toMatchObject({ kind: 'unauthenticated' });
    await stranger.close();
    expect(() => new SvcClient({ env: { SVC_ENDPOINT: h.env.SVC_ENDPOINT } })).toThrow(/SVC_TOKEN/);
    expect(() => new SvcClient({ env: { ...h.env, SVC_ENDPOINT: 'ftp://x' } })).toThrow(/SVC_ENDPOINT/);
  });
});
