import type { z } from 'zod';
import type { Capability } from '../core/capability.js';
import { formatUsd } from '../core/money.js';
import { previewProviderRequest } from '../integration/provider-request.js';
import type { Surfaces } from '../integration/surfaces.js';
import type { ApprovalRecord } from '../store/query-ports.js';
import type { Store } from '../store/ports.js';
import type { ApprovalView } from './approval.js';

export type ApprovalWire = z.output<typeof ApprovalView>;

/** Where an approval's provider request is worked out: the registry and the configured surfaces. */
export interface ApprovalContext {
  store: Pick<Store, 'capabilities'>;
  surfaces: Surfaces;
}

function requestOf(a: ApprovalRecord): Record<string, unknown> | null {
  return a.request === null ? null : (JSON.parse(a.request) as Record<string, unknown>);
}

function view(a: ApprovalRecord, cap: Capability | undefined, ctx: ApprovalContext, tenantId: string) {
  const request = requestOf(a);
  const params = (request?.params as Record<string, unknown> | undefined) ?? null;
  return {
    approval_id: a.id,
    status: a.status,
    intent_id: a.intentId,
    task_id: a.taskId,
    effect_key_step: a.step,
    capability: a.capability,
    action: a.action,
    intent: a.intent,
    requester_id: a.requesterId,
    amount_usd: formatUsd(a.amountMicros),
    amount_source: a.amountSource,
    params,
    request,
    // Only a stored body can say what would run; an older approval shows none rather than a guess.
    provider_request: request === null ? null : previewProviderRequest(ctx.surfaces, cap, tenantId, params),
    request_digest: a.requestDigest,
    decided_by: a.decidedBy,
    decided_at: a.decidedAt,
    channel: a.channel,
    note: a.note,
    expires_at: a.expiresAt,
    created_at: a.createdAt,
  } satisfies ApprovalWire;
}

/**
 * Approvals as every surface shows them (API, console, CLI; the chat and collaboration cards
 * to come): the request they bind, params included, and for a brokered capability the
 * provider request those params make. Readers are the approval's own, so nothing is shown
 * that the digest did not already bind for them.
 */
export async function approvalViews(
  ctx: ApprovalContext,
  tenantId: string,
  records: readonly ApprovalRecord[],
): Promise<ApprovalWire[]> {
  const caps = new Map<string, Capability | undefined>();
  for (const name of new Set(records.map((a) => a.capability))) {
    caps.set(name, await ctx.store.capabilities.get(tenantId, name));
  }
  return records.map((a) => view(a, caps.get(a.capability), ctx, tenantId));
}

export async function approvalViewOf(
  ctx: ApprovalContext,
  tenantId: string,
  record: ApprovalRecord,
): Promise<ApprovalWire> {
  return (await approvalViews(ctx, tenantId, [record]))[0]!;
}
