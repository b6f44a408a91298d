/**
 * One run of policy tests, as `svc policy test` and `svc policy set --test` make it: find and
 * parse the suites (every bad file is exit 2 before anything runs), choose each suite's
 * policy, validate it against the suite's schema (exit 3), then run the cases
 * (provisioning/policy-tests.ts, which the console's test run shares).
 */
import { readTenantPolicy, type TenantPolicy } from '../provisioning/policy-test-tenant.js';
import { runSuites, type PolicyTestRun } from '../provisioning/policy-tests.js';
import type { Store } from '../store/ports.js';
import { findSuiteFiles, loadSuites, readPolicyFile, shownPath } from './policy-test-files.js';

export type { PolicyTestRun } from '../provisioning/policy-tests.js';

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

export async function runPolicyTests(o: PolicyTestOptions): Promise<PolicyTestRun> {
  const files = findSuiteFiles(o.paths.length === 0 ? ['.'] : o.paths, o.cwd);
  const loaded = loadSuites(files, o.cwd);
  const tenant: TenantPolicy | undefined =
    o.tenant === undefined ? undefined : await readTenantPolicy(o.tenant.store, o.tenant.tenantId);
  // A suite's own policy file is read only when no candidate replaces it, as before.
  const suites = loaded.map(({ suite, policyPath }) => ({
    suite,
    ...(o.candidate === undefined && policyPath !== undefined
      ? { named: { text: readPolicyFile(policyPath, 'policy'), source: shownPath(policyPath, o.cwd) } }
      : {}),
  }));
  return runSuites(suites, {
    now: o.now,
    ...(o.candidate !== undefined ? { candidate: o.candidate } : {}),
    ...(tenant !== undefined ? { tenant } : {}),
  });
}
