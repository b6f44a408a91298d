import { z } from 'zod';
import {
  ACCESS_STATUSES,
  CARD_STATUSES,
  ENTITLEMENT_STATUSES,
  MAX_ACCESS_SECONDS,
  MIN_ACCESS_SECONDS,
} from '../core/access.js';
import { CAPABILITY_NAME } from '../core/capability.js';

const Seconds = z
  .number()
  .int()
  .min(MIN_ACCESS_SECONDS)
  .max(MAX_ACCESS_SECONDS)
  .describe(`seconds, ${MIN_ACCESS_SECONDS} to ${MAX_ACCESS_SECONDS} (90 days)`);

const Note = z.string().min(1).max(1000).describe('why; journaled with the step');

export const AccessRequestBody = z
  .strictObject({
    capability: z.string().regex(CAPABILITY_NAME).describe('a capability from the caller’s catalogue'),
    reason: z.string().min(1).max(1000).describe('why the caller needs it; shown on the manager cards'),
    duration_seconds: Seconds.describe('how long the entitlement should last once approved'),
  })
  .meta({ id: 'AccessRequestInput' });

export const RevokeBody = z.strictObject({ note: Note.optional() }).meta({ id: 'RevokeInput' });

export const CardDecisionBody = z
  .strictObject({
    card_id: z.string().min(1).max(200),
    decision: z.enum(['approve', 'deny']),
    duration_seconds: Seconds.optional().describe(
      'approve only: at most the requested duration; the requested one when absent',
    ),
    note: Note.optional(),
  })
  .meta({ id: 'ManagerCardDecision' });

export const CardStatus = z.enum(CARD_STATUSES);
export const AccessStatus = z.enum(ACCESS_STATUSES);
export const EntitlementStatus = z.enum(ENTITLEMENT_STATUSES);

const AccessReceiptView = z
  .object({
    receipt_id: z.string().describe('the journal receipt (kind access) of this step'),
    sequence: z.number().int().describe("its position in the tenant's journal"),
  })
  .meta({ id: 'AccessReceipt' });

export const AccessRequestView = z
  .object({
    access_request_id: z.string(),
    status: AccessStatus.describe('expired is computed: approved, and the entitlement ran out'),
    actor_id: z.string().describe('the requester'),
    capability: z.string(),
    reason: z.string(),
    duration_seconds: z.number().int().describe('as requested'),
    decision: z.enum(['approve', 'deny']).nullable(),
    decided_by: z.string().nullable(),
    decided_at: z.string().nullable(),
    granted_seconds: z.number().int().nullable().describe('as approved: at most the requested duration'),
    note: z.string().nullable().describe("the decider's note"),
    entitlement_id: z.string().nullable(),
    entitlement_expires_at: z.string().nullable(),
    revoked_by: z.string().nullable(),
    revoked_at: z.string().nullable(),
    created_at: z.string(),
    cards: z.array(
      z.object({
        card_id: z.string(),
        recipient_id: z.string(),
        role: z.enum(['manager', 'owner']),
        status: CardStatus,
      }),
    ),
  })
  .meta({ id: 'AccessRequest' });

export const AccessStepResult = z
  .object({ access_request: AccessRequestView, receipt: AccessReceiptView })
  .meta({ id: 'AccessStepResult' });

export const ManagerCardView = z
  .object({
    card_id: z.string(),
    access_request_id: z.string(),
    status: CardStatus.describe('closed: another recipient decided, or the request was withdrawn'),
    role: z
      .enum(['manager', 'owner'])
      .describe("why the card is yours: the requester's manager, or an owner"),
    requester_id: z.string(),
    capability: z.string(),
    reason: z.string(),
    duration_seconds: z.number().int().describe('requested'),
    request_status: AccessStatus,
    decided_by: z.string().nullable(),
    decided_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'ManagerCard' });

export const EntitlementView = z
  .object({
    entitlement_id: z.string(),
    actor_id: z.string().describe('the holder'),
    capability: z.string(),
    status: EntitlementStatus,
    access_request_id: z.string().nullable(),
    granted_by: z.string().nullable(),
    created_at: z.string(),
    expires_at: z.string(),
    revoked_at: z.string().nullable(),
    revoked_by: z.string().nullable(),
  })
  .meta({ id: 'Entitlement' });

export const CardDecisionResult = z
  .object({
    card: ManagerCardView,
    access_request: AccessRequestView,
    entitlement: EntitlementView.nullable().describe('created by an approval'),
    receipt: AccessReceiptView,
  })
  .meta({ id: 'ManagerCardDecisionResult' });

export const EntitlementRevokeResult = z
  .object({ entitlement: EntitlementView, receipt: AccessReceiptView })
  .meta({ id: 'EntitlementRevokeResult' });
