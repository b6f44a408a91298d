import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { Caller } from '../../http/caller.js';
import { requireHuman } from '../../http/auth.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { parseSuite } from '../../policy/policy-test-suite.js';
import { checkPolicyText, setPolicy, verbsFor } from '../../provisioning/policy.js';
import { clearShadowPolicy, promoteShadow, setShadowPolicy } from '../../provisioning/policy-shadow.js';
import { readTenantPolicy } from '../../provisioning/policy-test-tenant.js';
import { runSuites } from '../../provisioning/policy-tests.js';
import type { ConsoleDeps } from '../deps.js';
import { CANDIDATE_MAX_BYTES } from './policy-changes.js';
import { requireReader } from './registry.js';

/** A pasted suite: far larger than any policy's tests need. */
export const SUITE_MAX_BYTES = 256 * 1024;
/**
 * The cases one console test run evaluates at most: the engine runs on the console's event
 * loop, so a run stays well under a second; `svc policy test` on the host has no such bound.
 */
export const SUITE_MAX_CASES = 500;

const PolicyText = z
  .string()
  .min(1)
  .max(CANDIDATE_MAX_BYTES)
  .describe('a policy set in Cedar syntax (at most 64 KiB of UTF-8)');
const Message = z.string().max(500).optional().describe('why, kept with the version in the history');

const Diagnostic = z.object({
  line: z.number(),
  column: z.number(),
  message: z.string(),
  help: z.string().optional(),
});
const Check = z.object({
  valid: z.boolean(),
  verbs: z.array(z.string()).describe("the actions of the tenant's schema the text was validated against"),
  errors: z.array(Diagnostic),
  warnings: z.array(Diagnostic),
});
const PolicySetResult = z
  .object({
    tenant_id: z.string(),
    version: z.number(),
    changed: z.boolean().describe('false when the text was already the stored one'),
    updated_at: z.string(),
    verbs: z.array(z.string()),
    warnings: z.array(Diagnostic),
  })
  .meta({ id: 'ConsolePolicySet' });
const Verdict = z.object({
  outcome: z.enum(['allowed', 'deferred', 'refused']),
  code: z.string().optional(),
  reason: z.string().optional(),
  determining: z.array(z.string()).optional(),
});
const CaseResult = z.object({
  name: z.string(),
  at: z.string().describe('suite:line:column of the case'),
  passed: z.boolean(),
  expected: Verdict,
  actual: Verdict,
});
const TestRun = z
  .object({
    passed: z.number(),
    failed: z.number(),
    suites: z.array(
      z.object({
        name: z.string(),
        file: z.string(),
        policy: z.string().describe('the policy tested: text (the editor) or tenant T (version N)'),
        passed: z.number(),
        failed: z.number(),
        cases: z.array(CaseResult),
      }),
    ),
  })
  .meta({ id: 'ConsolePolicyTestRun' });

const TextBody = z.strictObject({ text: PolicyText });
const InstallBody = z.strictObject({ text: PolicyText, message: Message });
const TestBody = z.strictObject({
  suite: z
    .string()
    .min(1)
    .max(SUITE_MAX_BYTES)
    .describe('a policy test suite, YAML or JSON, as `svc policy test` reads from a file'),
  text: PolicyText.optional().describe('the policy to test; absent: the policy in force'),
});
const PromoteBody = z.strictObject({
  candidate_id: z
    .string()
    .min(1)
    .max(100)
    .describe('the shadow the page showed: a shadow replaced since is not promoted'),
  message: Message,
});

const admin = { 403: { description: 'not an administrator', schema: ErrorBodySchema } };
const readers = {
  403: { description: 'not an operator, administrator or auditor', schema: ErrorBodySchema },
};
const invalid = {
  400: {
    description: 'a text that does not validate (every line named), or a bad field',
    schema: ErrorBodySchema,
  },
};

/** What the history and the shadow record as the author and source of a console change. */
const author = (caller: Caller) => `console:${caller.actorId}`;

/** The editor's text is the field at fault when a policy does not validate, whatever the CLI calls it. */
function asTextError(err: unknown): never {
  if (
    err instanceof SvcError &&
    (err.code === 'policy_invalid' || err.field === 'policy' || err.field === 'file')
  ) {
    throw new SvcError('invalid_request', err.reason, {
      field: 'text',
      ...(err.remedy !== undefined ? { remedy: err.remedy } : {}),
    });
  }
  throw err;
}

/** A suite is tested against text from the page or the store, never a file the server would read. */
function pastedSuite(text: string) {
  const suite = parseSuite(text, 'suite');
  if (suite.policy !== undefined) {
    throw new SvcError(
      'invalid_request',
      'suite: policy: names a file; the console tests the editor’s text',
      {
        field: 'suite',
        remedy: 'remove the policy: line; run svc policy test on the host to test a file',
      },
    );
  }
  if (suite.cases.length > SUITE_MAX_CASES) {
    throw new SvcError('invalid_request', `suite: at most ${SUITE_MAX_CASES} cases in the console`, {
      field: 'suite',
      remedy: 'split the suite, or run svc policy test on the host',
    });
  }
  return suite;
}

/**
 * Editing the tenant's policy from the Policies page: validate as one types and run the
 * policy tests (readers: nothing is written), and, for administrators, install a text, set it
 * as the shadow, promote or clear the shadow, through the functions `svc policy validate`,
 * `test`, `set` and `shadow set|promote|clear` call.
 */
export function policyEditRoutes(deps: ConsoleDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/policies/validate',
      summary:
        "validate a policy text against the tenant's schema, with each diagnostic's line and column; stores nothing (operator, administrator or auditor; CSRF token)",
      tag: 'Console policies',
      auth: 'token',
      body: TextBody,
      responses: { 200: { description: 'the check', schema: Check }, ...readers },
      handler: async ({ caller, body }) => {
        requireReader(caller);
        const verbs = await verbsFor({ store: deps.store, tenantId: caller.tenantId }, []);
        return checkPolicyText(body.text, verbs);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/policies/test',
      summary: `run a pasted policy test suite (at most ${SUITE_MAX_CASES} cases) against the editor's text or the policy in force, with the tenant's registrations; stores nothing (operator, administrator or auditor; CSRF token)`,
      tag: 'Console policies',
      auth: 'token',
      body: TestBody,
      responses: {
        200: {
          description: 'each case with its verdict (the shape of svc policy test --json)',
          schema: TestRun,
        },
        400: {
          description: 'a suite or a policy that is not valid, the field named',
          schema: ErrorBodySchema,
        },
        ...readers,
      },
      handler: async ({ caller, body }) => {
        requireReader(caller);
        const suite = pastedSuite(body.suite);
        const tenant = await readTenantPolicy(deps.store, caller.tenantId);
        try {
          return runSuites([{ suite }], {
            now: deps.clock(),
            tenant,
            ...(body.text !== undefined ? { candidate: { text: body.text, source: 'text' } } : {}),
          });
        } catch (err) {
          return asTextError(err);
        }
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/policies',
      summary:
        "install a policy text as the tenant's next version, validated first, as svc policy set (administrator; CSRF token)",
      tag: 'Console policies',
      auth: 'token',
      body: InstallBody,
      responses: {
        200: { description: 'the stored version', schema: PolicySetResult },
        ...invalid,
        ...admin,
      },
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      handler: async ({ caller, body }) => {
        return setPolicy(deps.store, {
          tenantId: caller.tenantId,
          text: body.text,
          source: 'text',
          now: deps.clock(),
          author: author(caller),
          ...(body.message !== undefined ? { message: body.message } : {}),
        }).catch(asTextError);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/policies/shadow',
      summary:
        'set a policy text as the shadow the daemon compares every decision with, validated first, as svc policy shadow set (administrator; CSRF token)',
      tag: 'Console policies',
      auth: 'token',
      body: TextBody,
      responses: {
        200: {
          description: 'the new shadow',
          schema: z.object({
            tenant_id: z.string(),
            candidate_id: z.string(),
            source: z.string(),
            set_at: z.string(),
            verbs: z.array(z.string()),
            warnings: z.array(Diagnostic),
          }),
        },
        ...invalid,
        ...admin,
      },
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      handler: async ({ caller, body }) => {
        return setShadowPolicy(deps.store, {
          tenantId: caller.tenantId,
          text: body.text,
          source: author(caller),
          now: deps.clock(),
        }).catch(asTextError);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/policies/shadow/promote',
      summary:
        "store the shadow the page showed as the tenant's next policy version, then clear it, as svc policy shadow promote (administrator; CSRF token)",
      tag: 'Console policies',
      auth: 'token',
      body: PromoteBody,
      responses: {
        200: {
          description: 'the stored version',
          schema: PolicySetResult.extend({ candidate_id: z.string() }),
        },
        ...invalid,
        ...admin,
        404: { description: 'no shadow is set', schema: ErrorBodySchema },
        409: { description: 'the shadow was replaced since the page showed it', schema: ErrorBodySchema },
      },
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      handler: async ({ caller, body }) => {
        return promoteShadow(deps.store, {
          tenantId: caller.tenantId,
          candidateId: body.candidate_id,
          now: deps.clock(),
          author: author(caller),
          ...(body.message !== undefined ? { message: body.message } : {}),
        }).catch(asTextError);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/policies/shadow/clear',
      summary:
        'remove the shadow policy and the differences recorded for it, as svc policy shadow clear (administrator; CSRF token)',
      tag: 'Console policies',
      auth: 'token',
      body: z.strictObject({}),
      responses: {
        200: {
          description: 'whether a shadow was set',
          schema: z.object({ tenant_id: z.string(), cleared: z.boolean() }),
        },
        ...admin,
      },
      beforeBody: (caller) => requireHuman(caller, 'administrator'),
      handler: async ({ caller }) => {
        return clearShadowPolicy(deps.store, caller.tenantId);
      },
    }),
  ];
}
