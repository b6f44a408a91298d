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
} from '../api/access.js';
import type { Column } from './list-output.js';
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

export const CARD_COLUMNS: Column<ManagerCard>[] = [
  { header: 'card', cell: (c) => c.card_id },
  { header: 'status', cell: (c) => c.status },
  { header: 'requester', cell: (c) => c.requester_id },
  { header: 'capability', cell: (c) => c.capability },
  { header: 'duration', cell: (c) => formatDuration(c.duration_seconds * 1000) },
  { header: 'reason', cell: (c) => c.reason },
  { header: 'requested', cell: (c) => c.created_at },
];

export const ENTITLEMENT_COLUMNS: Column<Entitlement>[] = [
  { header: 'entitlement', cell: (e) => e.entitlement_id },
  { header: 'status', cell: (e) => e.status },
  { header: 'holder', cell: (e) => e.actor_id },
  { header: 'capability', cell: (e) => e.capability },
  { header: 'expires', cell: (e) => e.expires_at },
  { header: 'granted by', cell: (e) => e.granted_by },
];
