import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runJson } from './cli.js';

export interface RefundTenant {
  /** the tenant, already made by `svc init` */
  tenant: string;
  /** the human who sponsors the tasks and manages the agent */
  sponsor: string;
  /** where the policy file is written */
  dir: string;
  /** the irreversible capability the agent asks for (default `refunds.issue`) */
  capability?: string;
  /** tasks the agent works on (default `t1`) */
  tasks?: string[];
  /** each task's budget (default 1000 USD) */
  budgetUsd?: number;
}

/**
 * The deferred-refund set-up the end-to-end suites of approvals and notifications share: an
 * agent `bot` managed by the sponsor, an irreversible capability (tier 4, 40 USD a call)
 * granted to it, a permit-all policy (so what defers is the capability, not the policy), and
 * the tasks, sponsored, with the agent on them (1000 USD each unless told). Returns the agent's token.
 */
export async function provisionRefunds(
  env: Record<string, string | undefined>,
  o: RefundTenant,
): Promise<string> {
  const svc = (args: string[]) => runJson(args, env);
  const t = ['--tenant', o.tenant];
  const capability = o.capability ?? 'refunds.issue';
  await svc(['actor', 'add', ...t, '--id', 'bot', '--kind', 'agent', '--manager', o.sponsor]);
  await svc([
    'capability',
    'register',
    ...t,
    '--name',
    capability,
    '--actions',
    'write',
    '--tier',
    '4',
    '--irreversible',
    '--cost-usd',
    '40',
  ]);
  await svc(['permission', 'grant', ...t, '--actor', 'bot', '--capability', capability]);
  const policy = join(o.dir, 'policy.cedar');
  writeFileSync(policy, 'permit (principal, action, resource);\n');
  await svc(['policy', 'set', ...t, '--file', policy]);
  for (const task of o.tasks ?? ['t1']) {
    await svc([
      'task',
      'create',
      ...t,
      '--id',
      task,
      '--sponsor',
      o.sponsor,
      '--budget-usd',
      String(o.budgetUsd ?? 1000),
      '--actor',
      'bot',
    ]);
  }
  return (await runJson<{ token: string }>(['token', 'issue', ...t, '--actor', 'bot'], env)).token;
}
