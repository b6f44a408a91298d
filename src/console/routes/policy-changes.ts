import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { differenceJson, replayJson } from '../../api/policy-difference-view.js';
import { parseDuration } from '../../core/duration.js';
import { invalidField, SvcError } from '../../core/errors.js';
import { requireHuman } from '../../http/auth.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { replayPolicy, type ReplayBounds } from '../../provisioning/policy-replay.js';
import { shadowReport } from '../../provisioning/policy-shadow.js';
import { POLICY_OUTCOMES } from '../../policy/policy-difference.js';
import type { ReplayRange } from '../../store/replay-ports.js';
import type { ConsoleDeps } from '../deps.js';
import { requireReader } from './registry.js';

/** The most a pasted candidate may weigh, in UTF-8 bytes. */
export const CANDIDATE_MAX_BYTES = 64 * 1024;
/**
 * A console replay runs inside a long-lived server: it reads at most this many decisions and
 * spends at most this long reading and evaluating them, yielding to other requests between slices. A
 * longer replay is `svc policy replay`'s, which runs in its own process.
 */
export const REPLAY_BOUNDS: ReplayBounds = {
  maxRead: 200_000,
  maxBusyMs: 2_000,
  slice: 250,
  pause: () => yieldToEventLoop(),
  now: () => performance.now(),
};
/** The source name a pasted candidate's diagnostics carry (`candidate:3:5: ...`). */
const SOURCE = 'candidate';
const DAY = 24 * 60 * 60_000;

const Verdict = z.object({
  outcome: z.enum(POLICY_OUTCOMES).describe('deferred: sent to approval'),
  code: z.string().nullable().describe('the refusal code, when refused'),
  determining: z.array(z.string()).describe('the policies that decided, by id'),
});
const Example = z
  .object({
    intent_id: z.string().nullable(),
    seq: z.number().nullable().describe('the journal sequence of the decision'),
    at: z.string(),
    capability: z.string(),
    actor: z.string(),
    action: z.string(),
    task_id: z.string(),
    route: z.string(),
    amount_usd: z.number(),
    current: Verdict,
    candidate: Verdict,
  })
  .meta({ id: 'ConsolePolicyDifference' });
const DifferenceReport = z.object({
  evaluated: z.number().describe('decisions compared with the candidate'),
  differing: z.number(),
  to_approval: z.number().describe('of the differing, how many the candidate would send to approval'),
  by_pair: z.array(
    z.object({
      pair: z.string().describe('current -> candidate outcome, e.g. allowed->refused'),
      count: z.number(),
      examples: z.array(Example),
    }),
  ),
  by_capability: z.array(z.object({ capability: z.string(), count: z.number() })),
  by_actor: z.array(z.object({ actor: z.string(), count: z.number() })),
});

const ShadowReport = DifferenceReport.extend({
  tenant_id: z.string(),
  candidate_id: z.string(),
  source: z.string().describe('the file name the candidate was set from'),
  set_at: z.string(),
  dropped: z.number().describe("decisions not compared: a daemon's shadow queue was full"),
  uncompiled: z.number().describe('decisions not compared: the candidate did not compile then'),
  unreadable: z.number().describe('recorded differences that no longer parse'),
  failure: z.object({ message: z.string(), registry_version: z.number().nullable() }).nullable(),
  validates_now: z.boolean().describe("whether the candidate validates against today's registrations"),
}).meta({ id: 'ConsoleShadowReport' });

const ReplayBody = z.strictObject({
  candidate: z
    .string()
    .min(1)
    .max(CANDIDATE_MAX_BYTES)
    .describe('the candidate policy set, in Cedar syntax (at most 64 KiB of UTF-8)'),
  since: z.string().max(20).optional().describe('only decisions of the last DURATION (90d, 12h, 30m)'),
  from: z.number().int().min(1).optional().describe('only decisions from this journal sequence on'),
  to: z.number().int().min(1).optional().describe('only decisions up to this journal sequence'),
  task: z.string().min(1).max(200).optional().describe("only this task's decisions"),
});

const ReplayReport = DifferenceReport.extend({
  tenant_id: z.string(),
  candidate: z.string(),
  read: z.number().describe('decision records read'),
  replayed: z.number(),
  skipped: z.object({ unrecorded: z.number(), before_policy: z.number(), unreadable: z.number() }),
  policy_versions: z.array(z.number()),
  first_seq: z.number().nullable(),
  last_seq: z.number().nullable(),
  partial: z.boolean().describe('a bound stopped the replay before the end of the range'),
  stopped_by: z
    .enum(['decisions', 'time'])
    .nullable()
    .describe('which bound stopped it: the decisions read, or the time spent reading and evaluating'),
  bounds: z.object({ decisions: z.number(), busy_ms: z.number() }),
}).meta({ id: 'ConsoleReplayReport' });

const readers = {
  403: { description: 'not an operator, administrator or auditor', schema: ErrorBodySchema },
};

/** The range a console replay reads, from its body; `since` and `from`/`to` exclude each other. */
function rangeOf(body: z.infer<typeof ReplayBody>, now: Date): ReplayRange {
  if (body.since !== undefined && (body.from !== undefined || body.to !== undefined)) {
    throw invalidField('since', 'either since or from/to, not both');
  }
  if (body.from !== undefined && body.to !== undefined && body.from > body.to) {
    throw invalidField('to', `a sequence at or after from (${body.from})`);
  }
  const since =
    body.since === undefined
      ? undefined
      : parseDuration('since', body.since, { minMs: 1000, maxMs: 3650 * DAY });
  return {
    ...(body.from !== undefined ? { fromSeq: body.from } : {}),
    ...(body.to !== undefined ? { toSeq: body.to } : {}),
    ...(since !== undefined ? { since: new Date(now.getTime() - since).toISOString() } : {}),
    ...(body.task !== undefined ? { taskId: body.task } : {}),
  };
}

/**
 * The Policies page's two views of a change before it is made: the shadow policy's report
 * (read like the history) and a replay of a pasted candidate over the recorded decisions (an
 * administrator's: it costs the console CPU). A replay reads through a connection of its own
 * opened read-only, never the console's store, so it cannot write.
 */
export function policyChangeRoutes(deps: ConsoleDeps): AnyRoute[] {
  const bounds: ReplayBounds = { ...REPLAY_BOUNDS, ...deps.replayBounds };
  // One replay at a time per console: each is bounded, but many at once would still starve it.
  let replaying = false;
  return [
    defineRoute({
      method: 'GET',
      url: '/api/policies/shadow',
      summary:
        "the tenant's shadow policy and where it differs from the policy in force, or null when none is set (operator, administrator or auditor)",
      tag: 'Console policies',
      auth: 'token',
      responses: {
        200: {
          description: 'the shadow report (the shape of svc policy shadow report --json), or null',
          schema: z.object({ shadow: ShadowReport.nullable() }),
        },
        ...readers,
        404: { description: 'the shadow was cleared while it was read', schema: ErrorBodySchema },
      },
      handler: async ({ caller }) => {
        requireReader(caller);
        if ((await deps.store.shadows.get(caller.tenantId)) === undefined) return { shadow: null };
        const { status, report } = await shadowReport(deps.store, caller.tenantId);
        return { shadow: { ...status, ...differenceJson(report) } };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/api/policies/replay',
      summary:
        "replay the tenant's recorded decisions against a pasted candidate policy, read-only and bounded (administrator; CSRF token)",
      tag: 'Console policies',
      auth: 'token',
      body: ReplayBody,
      responses: {
        200: {
          description:
            'the summary of svc policy replay --json; partial (and stopped_by) when a bound stopped it before the end of the range',
          schema: ReplayReport,
        },
        400: {
          description: 'a candidate that does not validate (its lines named), or a bad range',
          schema: ErrorBodySchema,
        },
        403: { description: 'not an administrator', schema: ErrorBodySchema },
        409: { description: 'another replay is running on this console', schema: ErrorBodySchema },
      },
      handler: async ({ caller, body }) => {
        requireHuman(caller, 'administrator');
        if (Buffer.byteLength(body.candidate, 'utf8') > CANDIDATE_MAX_BYTES) {
          throw invalidField('candidate', 'a policy of at most 64 KiB (UTF-8)');
        }
        const range = rangeOf(body, deps.clock());
        if (replaying) {
          throw new SvcError('conflict', 'another policy replay is running on this console', {
            remedy: 'wait for it to finish, or run svc policy replay on the host',
          });
        }
        replaying = true;
        try {
          const recorded = await deps.recorded();
          try {
            const result = await replayPolicy(recorded, {
              tenantId: caller.tenantId,
              text: body.candidate,
              source: SOURCE,
              range,
              bounds,
            }).catch((e: unknown) => {
              // The CLI's exit-3 code is not one the console answers with: the family's is.
              if (e instanceof SvcError && e.code === 'policy_invalid') {
                throw new SvcError('invalid_request', e.reason, {
                  field: 'candidate',
                  ...(e.remedy !== undefined ? { remedy: e.remedy } : {}),
                });
              }
              throw e;
            });
            return {
              ...replayJson(caller.tenantId, SOURCE, result),
              partial: result.stopped !== null,
              stopped_by: result.stopped,
              bounds: { decisions: bounds.maxRead, busy_ms: bounds.maxBusyMs },
            };
          } finally {
            await recorded.close();
          }
        } finally {
          replaying = false;
        }
      },
    }),
  ];
}
