import { createHash } from 'node:crypto';
import type { DecisionRequest } from '../core/decision/request.js';
import { authHeader, credentialProblem } from './auth-header.js';
import type { HttpConnector } from '../connectors/http.js';
import type { ProviderOutcome } from '../connectors/outcome.js';
import type { PendingExecution, SealedReceipt, SurfaceCheck } from '../store/decision-ports.js';
import type { Store } from '../store/ports.js';
import type { CredentialResolver } from './credentials.js';
import type { SurfaceSpec } from './document.js';
import { withDerivedAmount } from './operation-amount.js';
import { operationOf, REGISTRATION_CHANGED } from './provider-request.js';
import { planRequest, type OperationSpec, type PlannedRequest } from './request-plan.js';
import type { Surfaces } from './surfaces.js';

/** A brokered request made ready before its decision: the request mapped, the credential in hand. */
export interface Prepared {
  /** the request the decision judges: the amount derived from the params when the operation says so */
  request: DecisionRequest;
  /** step 7 of the decision, run inside its transaction */
  check: SurfaceCheck;
  call?: {
    surface: SurfaceSpec;
    op: OperationSpec;
    plan: PlannedRequest;
    credential: string;
    credentialRef: string;
  };
  /** for the operator's log when the credential is unusable; never any part of its value */
  diagnostic?: string;
}

export type ExecutedOutcome = ProviderOutcome & { sentDigest: string | null };

/**
 * Brokered custody: the daemon holds the credential and executes for the agent. The work
 * that can fail on the caller's input (mapping params onto the operation) or on the
 * deployment (resolving the credential) happens before the decision, so it is a 400 or a
 * sealed refusal that claims nothing, never a claimed effect key with nothing sent.
 */
export class Broker {
  constructor(
    private readonly surfaces: Surfaces,
    private readonly store: Store,
    private readonly credentials: CredentialResolver,
    private readonly connector: HttpConnector,
  ) {}

  async prepare(req: DecisionRequest): Promise<Prepared> {
    const cap = await this.store.capabilities.get(req.tenantId, req.capability);
    // decide() refuses these before step 7; one that changes in between is refused, not guessed at.
    const found = operationOf(this.surfaces, cap, req.tenantId);
    if (!found.ok) return { request: req, check: () => ({ ok: false, problem: found.problem }) };
    const { surface, op } = found;
    const plan = planRequest(op, req.params);
    const request = op.amount ? withDerivedAmount(req, op.amount, op.name) : req;
    const state = await this.store.surfaces.get(req.tenantId, surface.id);
    const ref = this.surfaces.currentRef(surface, state);
    let credential: string | undefined;
    let diagnostic: string | undefined;
    if (state?.status !== 'revoked') {
      const r = await this.credentials.resolve(req.tenantId, ref);
      diagnostic = r.ok ? credentialProblem(r.value, surface.auth) : r.problem;
      if (r.ok && diagnostic === undefined) credential = r.value;
    }
    const check: SurfaceCheck = (q) => {
      if (q.surfaceId !== surface.id || q.operation !== op.name)
        return { ok: false, problem: REGISTRATION_CHANGED };
      if (q.state?.status === 'revoked') return { ok: false, problem: `surface ${surface.id} is revoked` };
      if (this.surfaces.currentRef(surface, q.state) !== ref) {
        return {
          ok: false,
          problem: `the credential of surface ${surface.id} was rotated while the request was prepared; send it again`,
        };
      }
      // The reason is published in receipts, so it names no reference; the daemon log does.
      if (credential === undefined)
        return { ok: false, problem: `surface ${surface.id} has no usable credential` };
      return { ok: true, credentialRef: ref };
    };
    return {
      request,
      check,
      ...(credential !== undefined ? { call: { surface, op, plan, credential, credentialRef: ref } } : {}),
      ...(diagnostic !== undefined ? { diagnostic: `surface ${surface.id}, ${ref}: ${diagnostic}` } : {}),
    };
  }

  /** Call the provider once for an allowed decision. Never throws: every failure is an outcome. */
  async execute(prepared: Prepared, pending: PendingExecution): Promise<ExecutedOutcome> {
    const call = prepared.call;
    if (!call || call.credentialRef !== pending.credentialRef || call.surface.id !== pending.surfaceId) {
      return {
        outcome: 'failed',
        sent: false,
        status: null,
        effectId: null,
        digest: null,
        bytes: 0,
        error: 'not_sent',
        reason: 'the prepared call does not match the decision; the request was not sent',
        sentDigest: null,
      };
    }
    const { surface, op, plan } = call;
    const outcome = await this.connector.execute({
      surfaceId: surface.id,
      baseUrl: surface.baseUrl,
      request: plan,
      auth: authHeader(surface.auth, call.credential),
      timeoutMs: surface.timeoutMs,
      maxResponseBytes: surface.maxResponseBytes,
      effectId: op.effectId,
      returnBody: op.returnBody,
    });
    // What was sent, as a digest: enough to match against the provider's logs, nothing to leak.
    const sent = createHash('sha256')
      .update(`${plan.method} ${plan.target}\n${plan.body ?? ''}`)
      .digest('hex');
    return { ...outcome, sentDigest: outcome.sent ? sent : null };
  }

  finish(tenantId: string, executionId: string, o: ExecutedOutcome): Promise<SealedReceipt> {
    return this.store.executions.finish(tenantId, executionId, {
      outcome: o.outcome,
      sent: o.sent,
      status: o.status,
      effectId: o.effectId,
      digest: o.digest,
      bytes: o.bytes,
      error: o.error,
      reason: o.reason,
      sentDigest: o.sentDigest,
    });
  }

  close(): Promise<void> {
    return this.connector.close();
  }
}
