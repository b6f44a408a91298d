/**
 * The cases of parsed policy test suites run against the policy each one names: what `svc
 * policy test` does once its files are read, and what the console's test run does with a
 * pasted suite. One loop, so both give the same verdicts for the same suite and policy.
 */
import { SvcError } from '../core/errors.js';
import { compileForSuite, resolveSuite, type SuiteResult, runSuite } from '../policy/policy-test-run.js';
import type { PolicyTestSuite } from '../policy/policy-test-suite.js';
import type { TenantPolicy } from './policy-test-tenant.js';

export interface PolicyTestRun {
  passed: number;
  failed: number;
  suites: SuiteResult[];
}

/** A parsed suite and, when it names one (`policy:`), the text of that policy. */
export interface SuiteToRun {
  suite: PolicyTestSuite;
  named?: { text: string; source: string };
}

/** The tenant id a request carries when no tenant is given: it only appears in messages. */
const OFFLINE_TENANT = 'test';

/**
 * The policy of a suite is, first found: the candidate, the suite's own `policy:`, the
 * tenant's stored policy. Without any, the suite cannot run: a usage error, never a pass.
 */
export function runSuites(
  suites: readonly SuiteToRun[],
  o: { now: Date; candidate?: { text: string; source: string }; tenant?: TenantPolicy },
): PolicyTestRun {
  const results: SuiteResult[] = [];
  for (const { suite, named } of suites) {
    const resolved = resolveSuite(suite, o.tenant?.registrations, o.now);
    let policy: { text: string | null; source: string };
    if (o.candidate !== undefined) {
      policy = o.candidate;
    } else if (named !== undefined) {
      policy = named;
    } else if (o.tenant !== undefined) {
      const id = o.tenant.registrations.tenantId;
      policy =
        o.tenant.policy === undefined
          ? { text: null, source: `tenant ${id} (none installed)` }
          : { text: o.tenant.policy.text, source: `tenant ${id} (version ${o.tenant.policy.version})` };
    } else {
      throw new SvcError('usage', `${suite.file}: names no policy to test`, {
        field: 'policy',
        remedy:
          'give --policy FILE, add `policy: <file>` to the suite, or run with --tenant T to test its stored policy',
      });
    }
    const compiled =
      policy.text === null ? null : compileForSuite(policy.text, policy.source, resolved.verbs);
    results.push(
      runSuite(compiled, resolved, {
        tenantId: o.tenant?.registrations.tenantId ?? OFFLINE_TENANT,
        policy: policy.source,
      }),
    );
  }
  const failed = results.reduce((n, s) => n + s.failed, 0);
  const total = results.reduce((n, s) => n + s.cases.length, 0);
  return { passed: total - failed, failed, suites: results };
}
