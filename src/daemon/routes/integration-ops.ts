import { z } from 'zod';
import type { IntegrationOps } from '../../integration/operations.js';
import { NOT_LIVE } from '../../integration/operations.js';
import type { SealedReceipt } from '../../store/decision-ports.js';
import type { SurfaceChange } from '../../store/integration-ports.js';
import { requireHuman } from '../../http/auth.js';
import { ErrorBodySchema } from '../../http/openapi.js';
import { defineRoute, type AnyRoute } from '../../http/route.js';
import {
  ConnectionCheckBody,
  ConnectionCheckResponse,
  RevokeBody,
  RotateBody,
  SurfaceChangeResponse,
  SurfacesResponse,
} from '../../api/brokered.js';

const receiptRef = (r: SealedReceipt) => ({
  receipt_id: r.receiptId,
  sequence: r.sequence,
  record_hash: r.recordHash,
  occurred_at: r.occurredAt,
});

const changeView = (c: SurfaceChange, note: string) => ({
  surface_id: c.state.surfaceId,
  status: c.state.status,
  rotated_at: c.state.rotatedAt,
  revoked_at: c.state.revokedAt,
  note,
  receipt: receiptRef(c.receipt),
});

const errors = {
  403: { description: 'the caller lacks the role this route needs', schema: ErrorBodySchema },
  404: { description: 'no such surface is configured for this tenant', schema: ErrorBodySchema },
};

/**
 * The integration-operations routes, mounted only when the daemon has a document
 * (interface-spec Endpoints rule 1). Not agent routes: every one needs a registered human.
 */
/** Endpoints rule 1: without the document these routes do not exist at all. */
const MOUNTED_WITH = 'an integration-operations document (svc daemon start --integration-ops)';

export function integrationOpsRoutes(ops: IntegrationOps): AnyRoute[] {
  return [
    defineRoute({
      mountedOnlyWith: MOUNTED_WITH,
      method: 'GET',
      url: '/v1/integration-ops/surfaces',
      summary:
        'list configured surface ids and state without contacting adapters or exposing credential references; listing does not prove connectivity',
      tag: 'Integration operations',
      auth: 'token',
      query: z.strictObject({}),
      responses: {
        200: { description: 'the surfaces of the caller’s tenant', schema: SurfacesResponse },
        403: errors[403],
      },
      handler: async ({ caller }) => {
        requireHuman(caller);
        const surfaces = await ops.list(caller.tenantId);
        return {
          surfaces: surfaces.map((s) => ({
            surface_id: s.surfaceId,
            adapter: s.adapter,
            status: s.status,
            operations: s.operations,
            rotated_at: s.rotatedAt,
            revoked_at: s.revokedAt,
          })),
          note: 'configuration and state only: no adapter was contacted, so this does not prove connectivity',
        };
      },
    }),
    defineRoute({
      mountedOnlyWith: MOUNTED_WITH,
      method: 'POST',
      url: '/v1/integration-ops/connection-check',
      summary:
        "read the configured adapter's answer for a surface and credential reference; not live vendor verification",
      tag: 'Integration operations',
      auth: 'token',
      body: ConnectionCheckBody,
      responses: {
        200: { description: "the adapter's answer, journaled", schema: ConnectionCheckResponse },
        ...errors,
      },
      handler: async ({ caller, body }) => {
        requireHuman(caller, 'operator');
        const r = await ops.check(caller.actor, body.surface_id, body.credential_ref);
        return {
          surface_id: r.surfaceId,
          adapter: r.adapter,
          credential_ref: body.credential_ref ?? null,
          answer: r.answer,
          reason: r.reason,
          status: r.status,
          live_vendor_verification: false as const,
          note: NOT_LIVE,
          receipt: receiptRef(r.receipt),
        };
      },
    }),
    defineRoute({
      mountedOnlyWith: MOUNTED_WITH,
      method: 'POST',
      url: '/v1/integration-ops/rotate',
      summary: 'move a surface to a new credential reference and retire the old one',
      tag: 'Integration operations',
      auth: 'token',
      body: RotateBody,
      responses: {
        200: { description: 'rotated (and active), journaled', schema: SurfaceChangeResponse },
        ...errors,
        409: {
          description: 'the reference is the current one, or one this surface retired',
          schema: ErrorBodySchema,
        },
      },
      handler: async ({ caller, body }) => {
        requireHuman(caller, 'administrator');
        const c = await ops.rotate(caller.actor, body.surface_id, body.credential_ref);
        return changeView(
          c,
          'the next operation on this surface uses the new credential; the old reference is retired',
        );
      },
    }),
    defineRoute({
      mountedOnlyWith: MOUNTED_WITH,
      method: 'POST',
      url: '/v1/integration-ops/revoke',
      summary:
        'withdraw a surface so new operations on it are refused; the receipt does not prove live vendor revocation',
      tag: 'Integration operations',
      auth: 'token',
      body: RevokeBody,
      responses: {
        200: { description: 'revoked, journaled', schema: SurfaceChangeResponse },
        ...errors,
        409: { description: 'already revoked', schema: ErrorBodySchema },
      },
      handler: async ({ caller, body }) => {
        requireHuman(caller, 'administrator');
        const c = await ops.revoke(caller.actor, body.surface_id);
        return changeView(
          c,
          'new operations on this surface are refused from now on; this does not revoke the credential at the vendor',
        );
      },
    }),
  ];
}
