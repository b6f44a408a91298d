import { checkVerbs, type Capability } from '../core/capability.js';
import { SvcError } from '../core/errors.js';
import { formatDiagnostic, type PolicyDiagnostic } from '../policy/diagnostic.js';
import { validatePolicy } from '../policy/validation.js';
import { verbsOf } from '../policy/verbs.js';
import type { Store } from '../store/ports.js';
import { checkMessage, operatorAuthorship } from './policy-authorship.js';
import { requireTenant } from './references.js';

/** The stable `--json` shape of a stored policy. */
export interface PolicyView {
  tenant_id: string;
  version: number;
  text: string;
  updated_at: string;
}

export interface PolicySet {
  tenant_id: string;
  version: number;
  /** false when the text was already the stored one (the version stays) */
  changed: boolean;
  updated_at: string;
  /** the actions of the schema the text was validated against */
  verbs: string[];
  warnings: DiagnosticView[];
}

export interface DiagnosticView {
  line: number;
  column: number;
  message: string;
  help?: string;
}

export interface PolicyCheck {
  valid: boolean;
  verbs: string[];
  errors: DiagnosticView[];
  warnings: DiagnosticView[];
}

function diagnosticView(d: PolicyDiagnostic): DiagnosticView {
  return { line: d.line, column: d.column, message: d.message, ...(d.help ? { help: d.help } : {}) };
}

/** The verbs of the tenant's schema as it stands in the store. */
async function storedVerbs(store: Store, tenantId: string): Promise<string[]> {
  return verbsOf(await store.capabilities.list(tenantId));
}

/**
 * A refusal that lists every validator message at its `source:line:column`, so the
 * operator fixes the whole text in one pass rather than one error per attempt.
 */
export function policyRejected(
  source: string,
  verbs: readonly string[],
  errors: readonly PolicyDiagnostic[],
  opts: { kind?: 'invalid_request' | 'conflict'; preface?: string; remedy?: string } = {},
): SvcError {
  const lines = errors.map((d) => `  ${source}:${formatDiagnostic(d)}`);
  const count = errors.length === 1 ? '1 error' : `${errors.length} errors`;
  const preface = opts.preface ?? `${source} does not validate against the schema`;
  return new SvcError(
    opts.kind ?? 'invalid_request',
    `${preface} (actions: ${verbs.join(', ')}), ${count}:\n${lines.join('\n')}`,
    { field: 'policy', remedy: opts.remedy ?? 'fix the lines above and try again' },
  );
}

export function checkPolicyText(text: string, verbs: readonly string[]): PolicyCheck {
  const result = validatePolicy(text, verbs);
  return {
    valid: result.ok,
    verbs: [...verbs],
    errors: result.ok ? [] : result.errors.map(diagnosticView),
    warnings: result.warnings.map(diagnosticView),
  };
}

/** The verbs `svc policy validate` checks against: the tenant's (with a store), the base verbs and `extra`. */
export async function verbsFor(
  target: { store: Store; tenantId: string } | undefined,
  extra: readonly string[],
): Promise<string[]> {
  const given = {
    actions:
      extra.length === 0
        ? []
        : checkVerbs(
            'verb',
            extra.flatMap((v) => v.split(',')),
          ),
  };
  if (target === undefined) return verbsOf([given]);
  await requireTenant(target.store, target.tenantId);
  return verbsOf([...(await target.store.capabilities.list(target.tenantId)), given]);
}

/** Validate against the tenant's schema, then store; an invalid text leaves the old policy in place. */
export async function setPolicy(
  store: Store,
  opts: {
    tenantId: string;
    text: string;
    source: string;
    now: Date;
    message?: string;
    /** who the history names; default the OS account of this process (the CLI) */
    author?: string;
    /** runs on a text that validates, before it is stored; a throw stores nothing */
    check?: () => Promise<void>;
  },
): Promise<PolicySet> {
  const message = checkMessage(opts.message);
  await requireTenant(store, opts.tenantId);
  const verbs = await storedVerbs(store, opts.tenantId);
  const result = validatePolicy(opts.text, verbs);
  if (!result.ok) {
    throw policyRejected(opts.source, verbs, result.errors, {
      remedy: 'fix the lines above and install the policy again; the stored policy is unchanged',
    });
  }
  if (opts.check !== undefined) await opts.check();
  const before = await store.policies.get(opts.tenantId);
  const record = await store.policies.set(
    opts.tenantId,
    opts.text,
    opts.now.toISOString(),
    opts.author === undefined ? operatorAuthorship(message) : { setBy: opts.author, message },
  );
  return {
    tenant_id: record.tenantId,
    version: record.version,
    changed: before?.version !== record.version,
    updated_at: record.updatedAt,
    verbs,
    warnings: result.warnings.map(diagnosticView),
  };
}

export async function showPolicy(store: Store, tenantId: string): Promise<PolicyView> {
  await requireTenant(store, tenantId);
  const record = await store.policies.get(tenantId);
  if (record === undefined) {
    throw new SvcError('not_found', `tenant ${tenantId} has no policy set, so every action is denied`, {
      remedy: `svc policy example > policy.cedar && svc policy set --tenant ${tenantId} --file policy.cedar`,
    });
  }
  return { tenant_id: tenantId, version: record.version, text: record.text, updated_at: record.updatedAt };
}

/**
 * Capabilities define the schema's verbs, so a change that drops a verb could leave the
 * stored policy invalid and the daemon unable to compile it. Refused before anything is
 * written; `replacing` are the registrations about to be stored.
 */
export async function checkStoredPolicyAfter(
  store: Store,
  tenantId: string,
  replacing: readonly Capability[],
): Promise<void> {
  const policy = await store.policies.get(tenantId);
  if (policy === undefined) return;
  const byName = new Map((await store.capabilities.list(tenantId)).map((c) => [c.name, c]));
  const before = verbsOf([...byName.values()]);
  for (const c of replacing) byName.set(c.name, c);
  const after = verbsOf([...byName.values()]);
  if (before.every((v) => after.includes(v))) return;
  const result = validatePolicy(policy.text, after);
  if (result.ok) return;
  const dropped = before.filter((v) => !after.includes(v));
  throw policyRejected('(stored policy)', after, result.errors, {
    kind: 'conflict',
    preface: `the stored policy of tenant ${tenantId} would no longer validate without ${dropped.map((v) => `"${v}"`).join(', ')}`,
    remedy:
      'first install a policy that does not name those verbs (svc policy set), then change the capability',
  });
}
