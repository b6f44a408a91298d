import { SvcError } from '../core/errors.js';
import type { Store } from '../store/ports.js';
import type { PutResult } from '../store/registry-ports.js';
import type { DataDir } from '../store/data-dir.js';
import { planChannels } from './apply-channels.js';
import { planNotifications } from './apply-notifications.js';
import { planActors, planCapabilities, planPermissions } from './apply-registrations.js';
import { planPolicy } from './apply-policy.js';
import { planTasks } from './apply-tasks.js';
import type { DeploymentDocument } from './deployment-document.js';
import type { ApplyChange } from './apply-step.js';
import { requireTenant } from './references.js';

export interface ApplyResult {
  tenant_id: string;
  file: string;
  dry_run: boolean;
  created: number;
  updated: number;
  unchanged: number;
  changes: ApplyChange[];
  /** webhook signing secrets this run made, by destination id, shown once (none written to a secret_out file) */
  secrets: Record<string, string>;
}

/**
 * Apply a deployment document. The whole document is checked against itself and the
 * store before the first write, so a mistake anywhere writes nothing; then the changes are
 * written in dependency order (humans before the agents they manage, capabilities before
 * permissions and policy, parents before children). Applying the same document again finds
 * everything unchanged and writes nothing.
 */
export async function applyDeployment(
  store: Store,
  doc: DeploymentDocument,
  opts: { now: Date; dryRun?: boolean; dir?: DataDir },
): Promise<ApplyResult> {
  const tenantId = doc.content.tenant;
  try {
    await requireTenant(store, tenantId);
  } catch (err) {
    throw doc.fail(['tenant'], err);
  }
  const at = opts.now.toISOString();
  const actors = await planActors(store, doc, at);
  const capabilities = await planCapabilities(store, doc, actors.lookup, at);
  const permissions = await planPermissions(store, doc, actors.lookup, capabilities.names, at);
  const policy = await planPolicy(store, doc, capabilities.registrations, at);
  const tasks = await planTasks(store, doc, actors.lookup, at);
  const channels = await planChannels(store, doc, at);
  const notifications = await planNotifications(store, opts.dir, doc, at);
  const steps = [
    ...actors.steps,
    ...(policy.first ? policy.steps : []),
    ...capabilities.steps,
    ...permissions,
    ...(policy.first ? [] : policy.steps),
    ...tasks,
    ...channels,
    ...notifications.steps,
  ];
  if (opts.dryRun !== true) {
    for (const step of steps) {
      try {
        await step.write?.();
      } catch (err) {
        // Everything was checked first; this is a concurrent change, and what was written stays.
        const e = err instanceof SvcError ? err : new SvcError('internal', String(err), { cause: err });
        throw new SvcError(e.kind, `${step.change.kind} ${step.change.id}: ${e.reason}`, {
          remedy: 'the entries before it were written; fix the cause and apply the document again',
          cause: err,
        });
      }
    }
  }
  const changes = steps.map((s) => s.change);
  const count = (r: PutResult) => changes.filter((c) => c.result === r).length;
  return {
    tenant_id: tenantId,
    file: doc.file,
    dry_run: opts.dryRun === true,
    created: count('created'),
    updated: count('updated'),
    unchanged: count('unchanged'),
    changes,
    secrets: Object.fromEntries(notifications.shown),
  };
}
