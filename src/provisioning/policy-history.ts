import { SvcError, invalidField } from '../core/errors.js';
import type { PolicyVersion, PolicyVersionSummary } from '../core/policy-version.js';
import { unifiedDiff, MAX_CHANGED_LINES } from '../policy/text-diff.js';
import { validatePolicy } from '../policy/validation.js';
import { verbsOf } from '../policy/verbs.js';
import type { Store } from '../store/ports.js';
import { checkMessage, operatorAuthorship } from './policy-authorship.js';
import { policyRejected, showPolicy, type PolicyView } from './policy.js';
import { requireTenant } from './references.js';

/** The stable `--json` shape of one stored version (the text only where one version is read). */
export interface PolicyVersionView {
  version: number;
  /** SHA-256 of the text's UTF-8 bytes, hex */
  sha256: string;
  set_by: string;
  set_at: string;
  message: string | null;
  /** this version is the tenant's policy now */
  current: boolean;
}

export interface PolicyDiff {
  tenant_id: string;
  from: PolicyVersionView;
  to: PolicyVersionView;
  /** a unified diff of the texts; empty when they are the same */
  diff: string;
}

export interface PolicyRollback {
  tenant_id: string;
  /** the version whose text was stored again */
  to: number;
  /** the version the tenant has now: a new one, or the current one when its text was already that */
  version: number;
  changed: boolean;
  sha256: string;
  message: string | null;
}

export const HISTORY_PAGE = { default: 50, max: 200 };

/** A stored version as every reader shows it; `current` is the tenant's version now. */
export function versionView(v: PolicyVersionSummary, current: number | undefined): PolicyVersionView {
  return {
    version: v.version,
    sha256: v.sha256,
    set_by: v.setBy,
    set_at: v.setAt,
    message: v.message,
    current: v.version === current,
  };
}

/** A page of the tenant's policy history, newest first; the cursor is the last version shown. */
export async function policyHistory(
  store: Store,
  opts: { tenantId: string; limit: number; cursor?: string },
): Promise<{ items: PolicyVersionView[]; next_cursor: string | null }> {
  if (!Number.isInteger(opts.limit) || opts.limit < 1 || opts.limit > HISTORY_PAGE.max) {
    throw invalidField('limit', `an integer from 1 to ${HISTORY_PAGE.max}`);
  }
  const before = opts.cursor === undefined ? {} : { before: versionNumber('cursor', opts.cursor) };
  await requireTenant(store, opts.tenantId);
  const current = (await store.policies.get(opts.tenantId))?.version;
  const rows = await store.policies.history(opts.tenantId, { limit: opts.limit + 1, ...before });
  const page = rows.slice(0, opts.limit);
  return {
    items: page.map((v) => versionView(v, current)),
    next_cursor: rows.length > opts.limit ? String(page[page.length - 1]!.version) : null,
  };
}

/** A version number as text (a cursor, a console query): a whole number from 1. */
export function versionNumber(field: string, text: string): number {
  const n = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) throw invalidField(field, 'a policy version: a whole number from 1');
  return n;
}

/** One stored version with its text; an unknown number is refused naming the versions there are. */
export async function policyVersion(
  store: Store,
  tenantId: string,
  version: number,
  field = 'version',
): Promise<PolicyVersion & { current: boolean }> {
  await requireTenant(store, tenantId);
  const [found, current] = await Promise.all([
    store.policies.version(tenantId, version),
    store.policies.get(tenantId),
  ]);
  if (found === undefined) {
    const range =
      current === undefined ? 'it has no policy versions' : `its versions are 1 to ${current.version}`;
    throw new SvcError(
      'not_found',
      `${field}: tenant ${tenantId} has no policy version ${version}; ${range}`,
      {
        field,
        remedy: `see \`svc policy history --tenant ${tenantId}\``,
      },
    );
  }
  return { ...found, current: found.version === current?.version };
}

/** A unified diff from one stored version's text to another's. */
export async function policyDiff(
  store: Store,
  tenantId: string,
  from: number,
  to: number,
): Promise<PolicyDiff> {
  const a = await policyVersion(store, tenantId, from, 'from');
  const b = await policyVersion(store, tenantId, to, 'to');
  const current = a.current ? a.version : b.current ? b.version : undefined;
  const diff = unifiedDiff(
    { name: `v${a.version}`, note: `${a.setAt} sha256:${a.sha256}`, text: a.text },
    { name: `v${b.version}`, note: `${b.setAt} sha256:${b.sha256}`, text: b.text },
  );
  if (diff === undefined) {
    throw new SvcError(
      'invalid_request',
      `versions ${from} and ${to} differ in more than ${MAX_CHANGED_LINES} lines, too many to diff`,
      { remedy: `read each whole: svc policy show --tenant ${tenantId} --version ${from}` },
    );
  }
  return { tenant_id: tenantId, from: versionView(a, current), to: versionView(b, current), diff };
}

/**
 * Store an earlier version's text as a new version (the history only grows). It is validated
 * against the tenant's registrations as they are today first: capabilities may have dropped a
 * verb it names since, and the daemon could not compile it. The message names the rollback.
 */
export async function rollbackPolicy(
  store: Store,
  opts: { tenantId: string; to: number; message?: string; now: Date },
): Promise<PolicyRollback> {
  const note = checkMessage(opts.message);
  const target = await policyVersion(store, opts.tenantId, opts.to, 'to');
  const verbs = verbsOf(await store.capabilities.list(opts.tenantId));
  const result = validatePolicy(target.text, verbs);
  if (!result.ok) {
    throw policyRejected(`version ${opts.to}`, verbs, result.errors, {
      kind: 'conflict',
      preface: `version ${opts.to} of the policy of tenant ${opts.tenantId} no longer validates against the tenant's capabilities`,
      remedy:
        'nothing was stored; install a corrected text with svc policy set, or register the verbs it names',
    });
  }
  const message = `rollback to version ${opts.to}${note === null ? '' : `: ${note}`}`;
  const before = await store.policies.get(opts.tenantId);
  const record = await store.policies.set(
    opts.tenantId,
    target.text,
    opts.now.toISOString(),
    operatorAuthorship(message),
  );
  const changed = before?.version !== record.version;
  return {
    tenant_id: opts.tenantId,
    to: opts.to,
    version: record.version,
    changed,
    sha256: target.sha256,
    message: changed ? message : null,
  };
}

/** What `svc policy show` prints: a version's text with its history entry. */
export type PolicyShown = PolicyView & PolicyVersionView;

/** The current policy, or with `version` an earlier one, with who set it, when and why. */
export async function showPolicyVersion(
  store: Store,
  tenantId: string,
  version?: number,
): Promise<PolicyShown> {
  // Without a version, the current one: showPolicy says how to install one when there is none.
  const wanted = version ?? (await showPolicy(store, tenantId)).version;
  const v = await policyVersion(store, tenantId, wanted);
  return {
    tenant_id: tenantId,
    text: v.text,
    updated_at: v.setAt,
    ...versionView(v, v.current ? v.version : undefined),
  };
}
