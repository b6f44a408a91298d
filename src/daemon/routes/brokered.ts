import { z } from 'zod';
import type { ExecutedOutcome } from '../../integration/broker.js';
import type { SealedReceipt } from '../../store/decision-ports.js';
import type { DaemonDeps } from '../deps.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { BrokeredResponse, OutcomeNotRecorded } from '../../api/brokered.js';
import { acceptActionRequest } from '../../api/action-request-fast.js';
import { ActionRequestBody, ConflictResponse, toDecisionRequest } from '../../api/decision.js';
import {
  checkClaims,
  decisionBody,
  decisionStatus,
  replyDecision,
  sealDecision,
  withResume,
} from './decision.js';

function providerView(executionId: string, o: ExecutedOutcome, receipt?: SealedReceipt) {
  return {
    execution_id: executionId,
    outcome: o.outcome,
    sent: o.sent,
    status: o.status,
    effect_id: o.effectId,
    digest: o.digest,
    error: o.error,
    reason: o.reason,
    ...(o.body !== undefined ? { body: o.body } : {}),
    ...(receipt
      ? {
          receipt: {
            receipt_id: receipt.receiptId,
            sequence: receipt.sequence,
            record_hash: receipt.recordHash,
            occurred_at: receipt.occurredAt,
          },
        }
      : {}),
  };
}

const responses = {
  200: {
    description:
      'allowed and executed: the decision and the provider outcome (succeeded, failed or unknown; see provider.outcome)',
    schema: BrokeredResponse,
  },
  202: {
    description: 'deferred: nothing executed; resume after the condition changes',
    schema: BrokeredResponse,
  },
  403: {
    description:
      'refused (including surface_unavailable): nothing executed; carries the sealed receipt; or an error body (claims_mismatch) when the body claims another caller',
    schema: z.union([BrokeredResponse, ErrorBodySchema]),
  },
  409: {
    description: 'the effect key is claimed or deferred, or a resume body differs',
    schema: ConflictResponse,
  },
  503: {
    description:
      'either nothing was committed or executed (an error body), or (code outcome_not_recorded) the provider was called and its outcome could not be recorded: reconcile the named intent',
    schema: z.union([OutcomeNotRecorded, ErrorBodySchema]),
  },
};

/**
 * POST /v1/brokered and its resume: the decision exactly as on /v1/action, then, only when
 * it allows, one call to the provider. The intent to execute is committed with the
 * decision before the call; the outcome is journaled after it.
 */
function brokeredRoute(
  deps: DaemonDeps,
  mode: 'new' | 'resume',
  url: string,
  summary: string,
  operationId: string,
): AnyRoute {
  return defineRoute({
    method: 'POST',
    url,
    summary,
    operationId,
    tag: 'Decision',
    auth: 'token',
    durableByCommit: true,
    body: ActionRequestBody,
    acceptBody: acceptActionRequest,
    responses: withResume(responses, mode),
    handler: async ({ caller, body, reply, request }) => {
      checkClaims(caller, body);
      const prepared = await deps.broker.prepare(toDecisionRequest('brokered', body));
      const req = prepared.request;
      if (prepared.diagnostic !== undefined) {
        request.log.warn(
          { surface_problem: prepared.diagnostic },
          'brokered: the surface credential cannot be used',
        );
      }
      const sealed = await sealDecision(
        request,
        () => deps.decisions.decide(req, caller.actor, mode, { ...deps.rules, surface: prepared.check }),
        { metrics: deps.metrics, route: 'brokered', tenantId: caller.tenantId, shadow: deps.shadow },
      );
      if (sealed.kind !== 'sealed') return replyDecision(reply, sealed);
      const pending = sealed.execution;
      if (!pending)
        return reply.status(decisionStatus(sealed)).send({ ...decisionBody(sealed), provider: null });

      const executed = await deps.broker.execute(prepared, pending);
      let receipt: SealedReceipt;
      try {
        receipt = await deps.broker.finish(req.tenantId, pending.executionId, executed);
      } catch (err) {
        request.log.error(
          { err, intent_id: sealed.intentId, execution_id: pending.executionId, outcome: executed.outcome },
          'the provider outcome could not be recorded',
        );
        return reply.status(503).send({
          code: 'outcome_not_recorded',
          reason: executed.sent
            ? `the provider was called but its outcome (${executed.outcome}) could not be recorded: the effect may have happened`
            : 'the request was not sent to the provider, but that could not be recorded',
          remedy: `reconcile intent ${sealed.intentId} with the provider and \`svc receipts list --task ${req.taskId}\`; do not resend with a new effect key`,
          intent_id: sealed.intentId,
          execution_id: pending.executionId,
          executed: executed.sent,
          provider: providerView(pending.executionId, executed),
          request_id: request.id,
        });
      }
      return reply
        .status(200)
        .send({ ...decisionBody(sealed), provider: providerView(pending.executionId, executed, receipt) });
    },
  });
}

export function brokeredRoutes(deps: DaemonDeps): AnyRoute[] {
  return [
    brokeredRoute(
      deps,
      'new',
      '/v1/brokered',
      'decide and, when allowed, execute through the configured connector',
      'brokered',
    ),
    brokeredRoute(
      deps,
      'resume',
      '/v1/brokered/resume',
      'revalidate a deferred brokered action with unchanged body and effect key; execute only if it allows',
      'resumeBrokered',
    ),
  ];
}
