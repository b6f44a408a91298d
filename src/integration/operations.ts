import type { Actor } from '../core/actor.js';
import { SvcError } from '../core/errors.js';
import { authHeader, credentialProblem } from './auth-header.js';
import type { HttpConnector } from '../connectors/http.js';
import type { SealedReceipt } from '../store/decision-ports.js';
import type { SurfaceChange } from '../store/integration-ports.js';
import type { Store } from '../store/ports.js';
import { parseCredentialRef } from './credential-ref.js';
import type { CredentialResolver } from './credentials.js';
import type { SurfaceSpec } from './document.js';
import type { Surfaces } from './surfaces.js';

export interface SurfaceView {
  surfaceId: string;
  adapter: string;
  status: 'active' | 'revoked';
  operations: string[];
  rotatedAt: string | null;
  revokedAt: string | null;
}

export type CheckAnswer =
  | 'reachable'
  | 'credential_resolved'
  | 'credential_unavailable'
  | 'credential_rejected'
  | 'unexpected_status'
  | 'unreachable';

export interface CheckResult {
  surfaceId: string;
  adapter: string;
  credentialRef: string;
  answer: CheckAnswer;
  reason: string;
  status: number | null;
  receipt: SealedReceipt;
}

export const NOT_LIVE =
  "the configured adapter's answer from this daemon; not a live vendor verification of the credential's rights";

/** The integration-operations routes' work: surfaces as a tenant sees them, checks, rotations, revocations. */
export class IntegrationOps {
  constructor(
    private readonly surfaces: Surfaces,
    private readonly store: Store,
    private readonly credentials: CredentialResolver,
    private readonly connector: HttpConnector,
  ) {}

  /** Configured surfaces and their state; no adapter is contacted and no reference shown. */
  async list(tenantId: string): Promise<SurfaceView[]> {
    const states = new Map((await this.store.surfaces.list(tenantId)).map((s) => [s.surfaceId, s]));
    return this.surfaces.forTenant(tenantId).map((s) => {
      const st = states.get(s.id);
      return {
        surfaceId: s.id,
        adapter: s.adapter,
        status: st?.status ?? 'active',
        operations: [...s.operations.keys()],
        rotatedAt: st?.rotatedAt ?? null,
        revokedAt: st?.revokedAt ?? null,
      };
    });
  }

  async check(caller: Actor, surfaceId: string, given: string | undefined): Promise<CheckResult> {
    const surface = this.surface(caller.tenantId, surfaceId);
    const ref =
      given === undefined
        ? this.surfaces.currentRef(surface, await this.state(surface, caller))
        : this.allowed(surface, given);
    const r = await this.credentials.resolve(caller.tenantId, ref);
    const problem = r.ok ? credentialProblem(r.value, surface.auth) : r.problem;
    let answer: CheckAnswer;
    let reason: string;
    let status: number | null = null;
    if (!r.ok || problem !== undefined) {
      answer = 'credential_unavailable';
      reason = problem ?? 'the credential cannot be used';
    } else if (!surface.check) {
      answer = 'credential_resolved';
      reason =
        'the credential resolves and is well-formed; the surface declares no check request, so the provider was not contacted';
    } else {
      const o = await this.connector.execute({
        surfaceId: surface.id,
        baseUrl: surface.baseUrl,
        request: { method: surface.check.method, target: surface.check.path, headers: {}, body: null },
        auth: authHeader(surface.auth, r.value),
        timeoutMs: surface.timeoutMs,
        maxResponseBytes: surface.maxResponseBytes,
        effectId: null,
        returnBody: false,
      });
      status = o.status;
      if (o.status === null) {
        answer = 'unreachable';
        reason = o.reason;
      } else if (o.status >= 200 && o.status < 300) {
        answer = 'reachable';
        reason = `the check request answered HTTP ${o.status} with this credential`;
      } else if (o.status === 401 || o.status === 403) {
        answer = 'credential_rejected';
        reason = `the check request answered HTTP ${o.status}: the provider did not accept the credential`;
      } else {
        answer = 'unexpected_status';
        reason = `the check request answered HTTP ${o.status}`;
      }
    }
    const receipt = await this.store.surfaces.journalCheck(caller.tenantId, surface.id, caller, {
      credentialRef: ref,
      answer,
      reason,
      detail: { status, live_vendor_verification: false },
    });
    return {
      surfaceId: surface.id,
      adapter: surface.adapter,
      credentialRef: ref,
      answer,
      reason,
      status,
      receipt,
    };
  }

  async rotate(caller: Actor, surfaceId: string, ref: string): Promise<SurfaceChange> {
    const surface = this.surface(caller.tenantId, surfaceId);
    const next = this.allowed(surface, ref);
    // Moving to a credential that does not resolve would stop the surface; say so instead.
    const r = await this.credentials.resolve(caller.tenantId, next);
    const problem = r.ok ? credentialProblem(r.value, surface.auth) : r.problem;
    if (problem !== undefined) {
      throw new SvcError('invalid_request', `credential_ref: ${problem}`, {
        field: 'credential_ref',
        code: 'credential_unavailable',
        remedy: next.startsWith('secret:') ? 'store it first: svc secret set --tenant … --name …' : undefined,
      });
    }
    return this.store.surfaces.rotate(caller.tenantId, surface.id, {
      documentRef: surface.credentialRef,
      next,
      actor: caller,
    });
  }

  revoke(caller: Actor, surfaceId: string): Promise<SurfaceChange> {
    const surface = this.surface(caller.tenantId, surfaceId);
    return this.store.surfaces.revoke(caller.tenantId, surface.id, {
      documentRef: surface.credentialRef,
      actor: caller,
    });
  }

  private surface(tenantId: string, surfaceId: string): SurfaceSpec {
    const s = this.surfaces.find(tenantId, surfaceId);
    if (!s) {
      throw new SvcError('not_found', 'no such surface is configured for this tenant', {
        code: 'unknown_surface',
        remedy: 'see `svc integration-ops surfaces`',
      });
    }
    return s;
  }

  private state(surface: SurfaceSpec, caller: Actor) {
    return this.store.surfaces.get(caller.tenantId, surface.id);
  }

  private allowed(surface: SurfaceSpec, ref: string): string {
    parseCredentialRef('credential_ref', ref);
    if (!this.surfaces.refAllowed(surface, ref)) {
      throw new SvcError(
        'invalid_request',
        `credential_ref: surface ${surface.id} may not use that reference`,
        {
          field: 'credential_ref',
          code: 'credential_ref_not_allowed',
          remedy: `name a secret (secret:<name>, stored with \`svc secret set\`) or a reference listed under credential_refs for ${surface.id} in the integration-operations document`,
        },
      );
    }
    return ref;
  }
}
