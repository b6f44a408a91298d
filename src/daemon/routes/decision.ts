import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { Route } from '../../core/decision/request.js';
import { formatUsd } from '../../core/money.js';
import type { Sealed } from '../../store/decision-ports.js';
import type { Caller } from '../../http/caller.js';
import type { DaemonDeps } from '../deps.js';
import type { PolicyShadow } from '../policy-shadow.js';
import type { DecisionMetrics } from '../../metrics/registry.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import { acceptActionRequest } from '../../api/action-request-fast.js';
import {
  ActionRequestBody,
  ConflictResponse,
  DecisionResponse,
  NoDeferralResponse,
  toDecisionRequest,
} from '../../api/decision.js';

/** Step 1: the body's identity claims must be the caller's own; they never select a tenant. */
export function checkClaims(caller: Caller, body: { tenant_id: string; actor_id: string }): void {
  if (body.tenant_id !== caller.tenantId || body.actor_id !== caller.actorId) {
    const field = body.tenant_id !== caller.tenantId ? 'tenant_id' : 'actor_id';
    throw new SvcError('forbidden', `${field}: the claim does not match the authenticated caller`, {
      code: 'claims_mismatch',
      field,
      remedy: 'send the tenant_id and actor_id of the credential in use',
    });
  }
}

/** A sealed decision as HTTP: 200 allowed, 202 deferred, 403 refused (with its receipt). */
export function replyDecision(reply: FastifyReply, s: Sealed) {
  if (s.kind === 'no_deferral') {
    // 404 as the spec says; the body says why and, to the intent's own actor, which intent holds the key.
    return reply.status(404).send({
      code: 'no_deferral',
      reason: s.reason,
      remedy: s.remedy,
      ...(s.intentId !== undefined ? { intent_id: s.intentId, outcome: s.prior } : {}),
    });
  }
  if (s.kind === 'conflict') {
    return reply
      .status(409)
      .send({ code: s.code, reason: s.reason, remedy: s.remedy, intent_id: s.intentId, outcome: s.prior });
  }
  return reply.status(decisionStatus(s)).send(decisionBody(s));
}

type SealedDecision = Extract<Sealed, { kind: 'sealed' }>;

/** 200 allowed, 202 deferred, 403 refused. */
export const decisionStatus = (s: SealedDecision): number =>
  s.outcome === 'allowed' ? 200 : s.outcome === 'deferred' ? 202 : 403;

/** The decision-shaped body, shared by the action and brokered routes. */
export function decisionBody(s: SealedDecision) {
  const r = s.receipt.record;
  const amount = formatUsd(s.amountMicros);
  return {
    decision: s.outcome,
    intent_id: s.intentId,
    ...(s.code !== undefined ? { code: s.code } : {}),
    ...(s.reason !== undefined ? { reason: s.reason } : {}),
    ...(s.remedy !== undefined ? { remedy: s.remedy } : {}),
    amount_usd: amount,
    grant: s.grant
      ? {
          grant_id: s.grant.grantId,
          expires_at: s.grant.expiresAt,
          capability: r.capability,
          action: r.action,
          intent_id: s.intentId,
          task_id: r.task_id,
        }
      : null,
    approval: s.approval
      ? {
          approval_id: s.approval.approvalId,
          status: s.approval.status,
          ...(s.approval.expiresAt ? { expires_at: s.approval.expiresAt } : {}),
        }
      : null,
    receipt: {
      receipt_id: s.receipt.receiptId,
      sequence: s.receipt.sequence,
      record_hash: s.receipt.recordHash,
      occurred_at: s.receipt.occurredAt,
      intent_id: s.intentId,
      task_id: r.task_id,
      capability: r.capability,
      action: r.action,
      outcome: s.outcome,
      code: s.code ?? null,
      amount_usd: amount,
    },
  };
}

const responses = {
  200: {
    description: 'allowed: the decision is sealed and, on /v1/action, a grant is minted',
    schema: DecisionResponse,
  },
  202: {
    description: 'deferred: not authorizing execution; resume after the condition changes',
    schema: DecisionResponse,
  },
  403: {
    description:
      'refused: decision-shaped, carrying the sealed receipt; or an error body (claims_mismatch) when the body claims another caller',
    schema: z.union([DecisionResponse, ErrorBodySchema]),
  },
  409: {
    description: 'the effect key is claimed or deferred, or a resume body differs',
    schema: ConflictResponse,
  },
  503: { description: 'the decision could not be recorded; nothing was committed', schema: ErrorBodySchema },
};

/** A resume route can also answer 404: no standing deferral matches. */
export function withResume<R extends Record<number, unknown>>(responses: R, mode: 'new' | 'resume') {
  return mode === 'resume'
    ? {
        ...responses,
        404: {
          description:
            "no standing deferral for this key on this route; names the caller's own intent that holds the key (for example already allowed)",
          schema: NoDeferralResponse,
        },
      }
    : responses;
}

/**
 * Run a decision; an unexpected failure inside it rolled back its savepoint, so it is
 * answered as 503 saying nothing was committed or executed.
 */
export async function sealDecision(
  request: FastifyRequest,
  decide: () => Promise<Sealed>,
  seen?: {
    metrics: DecisionMetrics | undefined;
    route: Route;
    tenantId: string;
    shadow?: PolicyShadow | undefined;
  },
): Promise<Sealed> {
  const started = seen?.metrics ? performance.now() : 0;
  const tell = (outcome: string, code: string) =>
    seen?.metrics?.decided({
      route: seen.route,
      outcome,
      code,
      tenantId: seen.tenantId,
      seconds: (performance.now() - started) / 1000,
    });
  try {
    const sealed = await decide();
    if (sealed.kind === 'sealed') tell(sealed.outcome, sealed.code ?? '');
    else tell(sealed.kind, sealed.kind === 'conflict' ? sealed.code : '');
    // Committed: the shadow policy compares it later, off this reply's path.
    seen?.shadow?.observe(seen.tenantId, sealed);
    return sealed;
  } catch (err) {
    tell('error', err instanceof SvcError ? err.code : 'unavailable');
    if (err instanceof SvcError) throw err;
    request.log.error({ err }, 'decision failed before it was sealed');
    throw new SvcError(
      'unavailable',
      'the decision could not be completed safely; nothing was committed or executed',
      {
        cause: err,
        remedy: 'retry with the same body and effect key',
      },
    );
  }
}

export function decisionRoute(
  deps: DaemonDeps,
  route: Route,
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
      const req = toDecisionRequest(route, body);
      const sealed = await sealDecision(
        request,
        () => deps.decisions.decide(req, caller.actor, mode, deps.rules),
        { metrics: deps.metrics, route, tenantId: caller.tenantId, shadow: deps.shadow },
      );
      return replyDecision(reply, sealed);
    },
  });
}

const noFederatedBackend = () =>
  new SvcError('forbidden', 'no federated backend', { code: 'no_federated_backend' });

export function decisionRoutes(deps: DaemonDeps): AnyRoute[] {
  return [
    decisionRoute(
      deps,
      'action',
      'new',
      '/v1/action',
      'record a decision; mint a grant when allowed; does not execute',
      'action',
    ),
    decisionRoute(
      deps,
      'action',
      'resume',
      '/v1/action/resume',
      'revalidate a deferred action decision with unchanged body and effect key; does not execute',
      'resume',
    ),
    defineRoute({
      method: 'POST',
      url: '/v1/federate',
      operationId: 'federate',
      summary:
        'federated grants: no minting backend is wired in this distribution, so always 403 before any decision runs',
      tag: 'Decision',
      auth: 'token',
      responses: { 403: { description: 'no federated backend', schema: ErrorBodySchema } },
      // The spec's 403 comes before the decision runs, so before the body is read: no body,
      // however malformed, turns it into a 400.
      beforeBody: () => {
        throw noFederatedBackend();
      },
      handler: async () => {
        throw noFederatedBackend();
      },
    }),
  ];
}
