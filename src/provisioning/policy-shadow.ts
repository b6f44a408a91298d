/**
 * `svc policy shadow`: a candidate policy the daemon evaluates live decisions against as
 * well (daemon/policy-shadow.ts), its report, its promotion to the policy in force and its
 * removal. The CLI writes the store directly; the daemon notices on its next batch.
 */
import { SvcError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { summarise, type DifferenceReport } from '../policy/policy-difference.js';
import { validatePolicy } from '../policy/validation.js';
import { verbsOf } from '../policy/verbs.js';
import type { Store } from '../store/ports.js';
import { policyRejected, setPolicy, type DiagnosticView, type PolicySet } from './policy.js';
import { requireTenant } from './references.js';

export interface ShadowSet {
  tenant_id: string;
  candidate_id: string;
  source: string;
  set_at: string;
  /** the actions of the schema the candidate was validated against */
  verbs: string[];
  warnings: DiagnosticView[];
}

export interface ShadowStatus {
  tenant_id: string;
  candidate_id: string;
  source: string;
  set_at: string;
  /** decisions not compared: a daemon's queue was full */
  dropped: number;
  /** decisions not compared: the candidate did not compile against the registrations then */
  uncompiled: number;
  /** recorded differences that no longer parse: counted, never guessed */
  unreadable: number;
  /** what a daemon found when the candidate last failed to compile; null while it compiles */
  failure: { message: string; registry_version: number | null } | null;
  /** whether the candidate validates against the tenant's registrations now */
  validates_now: boolean;
}

/** Validated against the tenant's registrations first: a candidate that does not validate is refused. */
export async function setShadowPolicy(
  store: Store,
  opts: { tenantId: string; text: string; source: string; now: Date },
): Promise<ShadowSet> {
  await requireTenant(store, opts.tenantId);
  const verbs = verbsOf(await store.capabilities.list(opts.tenantId));
  const result = validatePolicy(opts.text, verbs);
  if (!result.ok) {
    const rejected = policyRejected(opts.source, verbs, result.errors, {
      remedy: 'fix the lines above and set the candidate again; the shadow in place (if any) is unchanged',
    }) as SvcError;
    throw new SvcError('invalid_request', rejected.reason, {
      code: 'policy_invalid',
      field: 'file',
      ...(rejected.remedy !== undefined ? { remedy: rejected.remedy } : {}),
    });
  }
  const record = await store.shadows.set({
    tenantId: opts.tenantId,
    candidateId: newId('shd'),
    text: opts.text,
    source: opts.source,
    setAt: opts.now.toISOString(),
  });
  return {
    tenant_id: record.tenantId,
    candidate_id: record.candidateId,
    source: record.source,
    set_at: record.setAt,
    verbs,
    warnings: result.warnings.map((w) => ({
      line: w.line,
      column: w.column,
      message: w.message,
      ...(w.help ? { help: w.help } : {}),
    })),
  };
}

/** The candidate's report: its counts and the one summary of differences shadow and replay share. */
export async function shadowReport(
  store: Store,
  tenantId: string,
): Promise<{ status: ShadowStatus; report: DifferenceReport }> {
  await requireTenant(store, tenantId);
  const record = await requireShadow(store, tenantId);
  const { differences, unreadable } = await store.shadows.differences(tenantId, record.candidateId);
  const verbs = verbsOf(await store.capabilities.list(tenantId));
  const status: ShadowStatus = {
    tenant_id: tenantId,
    candidate_id: record.candidateId,
    source: record.source,
    set_at: record.setAt,
    dropped: record.dropped,
    uncompiled: record.uncompiled,
    unreadable,
    failure:
      record.failure === null
        ? null
        : { message: record.failure, registry_version: record.failureRegistryVersion },
    validates_now: validatePolicy(record.text, verbs).ok,
  };
  return { status, report: summarise(record.compared, differences) };
}

/**
 * The candidate stored as the tenant's next policy version through the same path as
 * `svc policy set` (validated against the registrations as they are now); the shadow is then
 * cleared, since it would only compare the policy in force with itself.
 */
export async function promoteShadow(
  store: Store,
  opts: {
    tenantId: string;
    now: Date;
    /** kept with the new version in the policy history */
    message?: string;
    /** who the history names; default the OS account of this process (the CLI) */
    author?: string;
    /** the shadow the caller read (the console's page): one replaced since is not promoted */
    candidateId?: string;
    /** runs on the candidate once it validates, before it is stored (`--test`); a throw stores nothing */
    check?: (candidate: { text: string; source: string }) => Promise<void>;
  },
): Promise<PolicySet & { candidate_id: string }> {
  await requireTenant(store, opts.tenantId);
  const record = await requireShadow(store, opts.tenantId);
  if (opts.candidateId !== undefined && record.candidateId !== opts.candidateId) {
    throw new SvcError(
      'conflict',
      `candidate_id: the shadow is now ${record.candidateId}, not ${opts.candidateId}`,
      { field: 'candidate_id', remedy: 'read the new shadow’s report first, then promote it' },
    );
  }
  const check = opts.check;
  const set = await setPolicy(store, {
    tenantId: opts.tenantId,
    text: record.text,
    source: record.source,
    now: opts.now,
    ...(opts.message !== undefined ? { message: opts.message } : {}),
    ...(opts.author !== undefined ? { author: opts.author } : {}),
    ...(check !== undefined ? { check: () => check({ text: record.text, source: record.source }) } : {}),
  });
  await store.shadows.clear(opts.tenantId);
  return { ...set, candidate_id: record.candidateId };
}

export async function clearShadowPolicy(
  store: Store,
  tenantId: string,
): Promise<{ tenant_id: string; cleared: boolean }> {
  await requireTenant(store, tenantId);
  return { tenant_id: tenantId, cleared: await store.shadows.clear(tenantId) };
}

async function requireShadow(store: Store, tenantId: string) {
  const record = await store.shadows.get(tenantId);
  if (record === undefined) {
    throw new SvcError('not_found', `tenant ${tenantId} has no shadow policy set`, {
      remedy: `svc policy shadow set --tenant ${tenantId} --file candidate.cedar`,
    });
  }
  return record;
}
