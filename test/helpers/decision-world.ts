import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, Client, type Dispatcher } from 'undici';
import { runJson } from './cli.js';

/**
 * A data dir with what decisions under load need, made through the CLI: tenant acme, agent
 * `bot` granted `crm.notes` (allowed by a permissive policy) on a task (t1 unless named)
 * with a large budget.
 */
export async function decisionWorld(
  env: Record<string, string>,
  dir: string,
  task: { id: string; budgetUsd: string } = { id: 't1', budgetUsd: '100000' },
): Promise<{ caCert: string; bot: string }> {
  const t = ['--tenant', 'acme'];
  const init = await runJson<{ ca_cert: string }>(['init', ...t, '--admin', 'alice'], env);
  await provisionNotesAgent(env, dir, {
    tenant: 'acme',
    task: task.id,
    budgetUsd: task.budgetUsd,
    tier: '1',
  });
  const bot = (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
  return { caCert: init.ca_cert, bot };
}

/**
 * Through the built CLI, after `svc init --admin alice`: agent `bot` (managed by alice) with
 * capability `crm.notes` (action `write`) under a permit-all policy, and a task alice sponsors
 * that bot works on. What an end-to-end test needs before `bot` can be allowed a decision.
 */
export async function provisionNotesAgent(
  env: Record<string, string>,
  scratch: string,
  o: { tenant: string; task: string; budgetUsd: string; tier: string },
): Promise<void> {
  const t = ['--tenant', o.tenant];
  await runJson(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', 'alice'], env);
  await runJson(
    ['capability', 'register', ...t, '--name', 'crm.notes', '--actions', 'write', '--tier', o.tier],
    env,
  );
  await runJson(['permission', 'grant', ...t, '--actor', 'bot', '--capability', 'crm.notes'], env);
  const policy = join(scratch, 'policy.cedar');
  writeFileSync(policy, 'permit (principal, action, resource);\n');
  await runJson(['policy', 'set', ...t, '--file', policy], env);
  await runJson(
    [
      'task',
      'create',
      ...t,
      '--id',
      o.task,
      '--sponsor',
      'alice',
      '--budget-usd',
      o.budgetUsd,
      '--actor',
      'bot',
    ],
    env,
  );
}

/** One decision request's body, told apart by its step. */
export function decisionBody(step: string): string {
  return JSON.stringify({
    tenant_id: 'acme',
    actor_id: 'bot',
    capability: 'crm.notes',
    action: 'write',
    task_id: 't1',
    effect_key_step: step,
  });
}

/** What one load request ended with: an answer, or the error that took its place. */
export interface LoadResult {
  step: string;
  status?: number;
  receiptId?: string;
  connection?: string;
  error?: string;
}

/**
 * Decisions in a loop until `stop.now`: `keepAlive` workers each on their own kept-alive
 * connection, the others on a new connection per request. Every outcome is recorded; a worker
 * stops at its first failure.
 */
export function decisionLoad(
  url: string,
  ca: string | Buffer,
  bot: string,
  o: { keepAlive: number; fresh: number; stop: { now: boolean }; results: LoadResult[] },
): Promise<void> {
  /** false once the request failed: the worker then stops (the daemon is gone or refusing). */
  const one = async (d: Dispatcher, step: string): Promise<boolean> => {
    try {
      const res = await d.request({
        origin: url,
        method: 'POST',
        path: '/v1/action',
        headers: { authorization: `Bearer ${bot}`, 'content-type': 'application/json' },
        body: decisionBody(step),
      });
      const body = (await res.body.json()) as { receipt?: { receipt_id: string } };
      const connection = res.headers.connection;
      o.results.push({
        step,
        status: res.statusCode,
        ...(body.receipt ? { receiptId: body.receipt.receipt_id } : {}),
        ...(typeof connection === 'string' ? { connection } : {}),
      });
      return true;
    } catch (err) {
      const e = err as { code?: string; message?: string };
      o.results.push({ step, error: `${e.code ?? ''} ${e.message ?? String(err)}` });
      return false;
    }
  };
  const kept = Array.from({ length: o.keepAlive }, async (_, w) => {
    const client = new Client(url, { connect: { ca }, pipelining: 1 });
    for (let i = 0; !o.stop.now && (await one(client, `k${w}-${i}`)); i++);
    await client.destroy();
  });
  const fresh = Array.from({ length: o.fresh }, async (_, w) => {
    for (let i = 0, ok = true; !o.stop.now && ok; i++) {
      const agent = new Agent({ connect: { ca }, pipelining: 0 });
      ok = await one(agent, `f${w}-${i}`);
      await agent.destroy();
    }
  });
  return Promise.all([...kept, ...fresh]).then(() => undefined);
}
