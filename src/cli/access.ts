import { Flags } from '@oclif/core';
import type { z } from 'zod';
import { MAX_ACCESS_SECONDS, MIN_ACCESS_SECONDS } from '../core/access.js';
import { formatDuration, parseDuration } from '../core/duration.js';
import type {
  AccessRequestView,
  AccessStepResult,
  CardDecisionResult,
  EntitlementRevokeResult,
  EntitlementView,
  ManagerCardView,
} from '../daemon/schemas/access.js';
import { renderRecord } from './render.js';
import { renderTable } from './table.js';

/** What `svc access`, `svc cards` and `svc entitlements` read back from the daemon. */
export type AccessRequest = z.output<typeof AccessRequestView>;
export type AccessStep = z.output<typeof AccessStepResult>;
export type ManagerCard = z.output<typeof ManagerCardView>;
export type CardDecision = z.output<typeof CardDecisionResult>;
export type Entitlement = z.output<typeof EntitlementView>;
export type EntitlementRevoke = z.output<typeof EntitlementRevokeResult>;

/** A duration flag (`8h`, `7d`) in whole seconds, within what the daemon accepts. */
export function durationSeconds(text: string): number {
  return (
    parseDuration('duration', text, { minMs: MIN_ACCESS_SECONDS * 1000, maxMs: MAX_ACCESS_SECONDS * 1000 }) /
    1000
  );
}

export const noteFlag = { note: Flags.string({ summary: 'Why; journaled with the step.' }) };

export function renderAccessRequest(r: AccessRequest): string {
  const { cards, ...rest } = r;
  return [
    renderRecord({ ...rest, duration: formatDuration(r.duration_seconds * 1000) }),
    renderTable(
      ['card', 'recipient', 'role', 'status'],
      cards.map((c) => [c.card_id, c.recipient_id, c.role, c.status]),
    ),
  ].join('\n');
}

export function renderCards(cards: ManagerCard[]): string {
  return renderTable(
    ['card', 'status', 'requester', 'capability', 'duration', 'reason', 'requested'],
    cards.map((c) => [
      c.card_id,
      c.status,
      c.requester_id,
      c.capability,
      formatDuration(c.duration_seconds * 1000),
      c.reason,
      c.created_at,
    ]),
  );
}

export function renderEntitlements(items: Entitlement[]): string {
  return renderTable(
    ['entitlement', 'status', 'holder', 'capability', 'expires', 'granted by'],
    items.map((e) => [e.entitlement_id, e.status, e.actor_id, e.capability, e.expires_at, e.granted_by]),
  );
}
