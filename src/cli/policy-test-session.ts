/**
 * One run of policy tests, as `svc policy test` and `svc policy set --test` make it: find and
 * parse the suites (every bad file is exit 2 before anything runs), choose each suite's
 * policy, validate it against the suite's schema (exit 3), then run the cases.
 *
 * The policy of a suite is, first found: the candidate (`--policy FILE`, or the text
 * `policy set` is about to store), the suite's own `policy:` file, the tenant's stored
 * policy (`--tenant`). Without any, the suite cannot run: a usage error, never a pass.
 */
import { SvcError } from '../core/errors.js';
import { compileForSuite, resolveSuite, runSuite, type SuiteResult } from '../policy/policy-test-run.js';
import type { Store } from '../store/ports.js';
import { findSuiteFiles, loadSuites, readPolicyFile, shownPath } from './policy-test-files.js';
import { readTenantPolicy, type TenantPolicy } from './policy-test-tenant.js';

export interface PolicyTestOptions {
  /** files and directories; none: the working directory */
  paths: readonly string[];
  cwd: string;
  /** the time of a case that names none */
  now: Date;
  /** the policy every suite runs against, whatever it names */
  candidate?: { text: string; source: string };
  /** the tenant whose registrations (and stored policy) fill in what a suite does not name */
  tenant?: { store: Store; tenantId: string };
}

export interface PolicyTestRun {
  passed: number;
  failed: number;
  suites: SuiteResult[];
}

/** The tenant id a request carries when no tenant is given: it only appears in messages. */
const OFFLINE_TENANT = 'test';

export async function runPolicyTests(o: PolicyTestOptions): Promise<PolicyTestRun> {
  const files = findSuiteFiles(o.paths.length === 0 ? ['.'] : o.paths, o.cwd);
  const loaded = loadSuites(files, o.cwd);
  const tenant: TenantPolicy | undefined =
    o.tenant === undefined ? undefined : await readTenantPolicy(o.tenant.store, o.tenant.tenantId);
  const suites: SuiteResult[] = [];
  for (const { suite, policyPath } of loaded) {
    const resolved = resolveSuite(suite, tenant?.registrations, o.now);
    let policy: { text: string | null; source: string };
    if (o.candidate !== undefined) {
      policy = o.candidate;
    } else if (policyPath !== undefined) {
      policy = { text: readPolicyFile(policyPath, 'policy'), source: shownPath(policyPath, o.cwd) };
    } else if (tenant !== undefined) {
      const id = tenant.registrations.tenantId;
      policy =
        tenant.policy === undefined
          ? { text: null, source: `tenant ${id} (none installed)` }
          : { text: tenant.policy.text, source: `tenant ${id} (version ${tenant.policy.version})` };
    } else {
      throw new SvcError('usage', `${suite.file}: names no policy to test`, {
        field: 'policy',
        remedy:
          'give --policy FILE, add `policy: <file>` to the suite, or run with --tenant T to test its stored policy',
      });
    }
    const compiled =
      policy.text === null ? null : compileForSuite(policy.text, policy.source, resolved.verbs);
    suites.push(
      runSuite(compiled, resolved, {
        tenantId: tenant?.registrations.tenantId ?? OFFLINE_TENANT,
        policy: policy.source,
      }),
    );
  }
  const failed = suites.reduce((n, s) => n + s.failed, 0);
  const total = suites.reduce((n, s) => n + s.cases.length, 0);
  return { passed: total - failed, failed, suites };
}
