import type { Actor } from '../core/actor.js';
import type {
  AccessDecision,
  AccessStatus,
  CardRole,
  CardStatus,
  EntitlementStatus,
} from '../core/access.js';
import type { NewAccessRequest } from '../core/access-request.js';
import type { CardDecisionInput } from '../core/card-decision.js';
import type { ChannelConfig, ChannelKind } from '../core/channel.js';
import type { AccessReceipt } from '../core/records/access-record.js';
import type { Keyset, KeysetPage } from './query-ports.js';

/**
 * Access requests, manager cards, entitlements and approval channels. Every write is one
 * transaction that also appends its journal record (kind `access`), under the rules of
 * core/access.ts; reads answer only inside the viewer's tenant and as those rules allow,
 * so what a viewer may not read is simply absent.
 */

export interface CardSummary {
  cardId: string;
  recipientId: string;
  role: CardRole;
  status: CardStatus;
}

export interface AccessRequestRecord {
  id: string;
  tenantId: string;
  actorId: string;
  capability: string;
  reason: string;
  durationSeconds: number;
  /** `expired` computed at read time */
  status: AccessStatus;
  decision: AccessDecision | null;
  decidedBy: string | null;
  decidedAt: string | null;
  grantedSeconds: number | null;
  note: string | null;
  entitlementId: string | null;
  entitlementExpiresAt: string | null;
  revokedBy: string | null;
  revokedAt: string | null;
  createdAt: string;
  cards: CardSummary[];
}

export interface ManagerCardRecord {
  id: string;
  requestId: string;
  recipientId: string;
  role: CardRole;
  status: CardStatus;
  requestStatus: AccessStatus;
  requesterId: string;
  capability: string;
  reason: string;
  durationSeconds: number;
  decidedBy: string | null;
  decidedAt: string | null;
  createdAt: string;
}

export interface EntitlementRecord {
  id: string;
  tenantId: string;
  actorId: string;
  capability: string;
  accessRequestId: string | null;
  /** who approved the request it came from, when it came from one */
  grantedBy: string | null;
  status: EntitlementStatus;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  revokedBy: string | null;
}

export type { AccessReceipt, NewAccessRequest };

/** The decision's input is the use case's (core/card-decision.ts). */
export type { CardDecisionInput };

export interface EntitlementKey {
  createdAt: string;
  id: string;
}

export interface AccessRequestStore {
  /**
   * Open a request for a capability in the requester's catalogue (registered, requestable,
   * not held), with a card for each decider; refused when nobody could decide it or one is
   * already pending for the same capability.
   */
  request(input: NewAccessRequest): Promise<{ request: AccessRequestRecord; receipt: AccessReceipt }>;
  get(viewer: Actor, id: string, now: Date): Promise<AccessRequestRecord | undefined>;
  /** Withdraw a pending request, or end an approved one and its entitlement at once. */
  revoke(
    viewer: Actor,
    id: string,
    note: string | null,
    at: Date,
  ): Promise<{ request: AccessRequestRecord; receipt: AccessReceipt }>;
}

/** A decided card as its readers see it: the card, its request and the entitlement granted. */
export interface DecidedCard {
  card: ManagerCardRecord;
  request: AccessRequestRecord;
  entitlement: EntitlementRecord | null;
}

export interface ManagerCardStore {
  /** The viewer's own cards, oldest first. */
  list(viewer: Actor, filter: { status?: CardStatus }, now: Date): Promise<ManagerCardRecord[]>;
  /** The first decision wins; approval creates the entitlement in the same transaction. */
  decide(input: CardDecisionInput): Promise<DecidedCard & { receipt: AccessReceipt }>;
}

export interface EntitlementStore {
  /** oldest first */
  list(
    viewer: Actor,
    page: Keyset<EntitlementKey>,
    filter: { status?: EntitlementStatus; actorId?: string },
    now: Date,
  ): Promise<KeysetPage<EntitlementRecord, EntitlementKey>>;
  get(viewer: Actor, id: string, now: Date): Promise<EntitlementRecord | undefined>;
  /** Stops new decisions at once; the request it came from reads as revoked too. */
  revoke(
    viewer: Actor,
    id: string,
    note: string | null,
    at: Date,
  ): Promise<{ entitlement: EntitlementRecord; receipt: AccessReceipt }>;
}

export interface ChannelRepo {
  add(channel: ChannelConfig): Promise<void>;
  get(id: string): Promise<ChannelConfig | undefined>;
  list(tenantId?: string): Promise<ChannelConfig[]>;
  /** false when there was no such channel */
  remove(id: string): Promise<boolean>;
  /** The registered actor whose chat or collaboration user id is exactly `userId`. */
  approverFor(tenantId: string, kind: ChannelKind, userId: string): Promise<Actor | undefined>;
  /**
   * Remember a verified signature until `expiresAtSec` (unix seconds); false when it was
   * already seen, i.e. the request is a replay. Expired entries are forgotten on the way.
   */
  rememberSignature(
    channelId: string,
    signature: string,
    expiresAtSec: number,
    nowSec: number,
  ): Promise<boolean>;
}

export interface AccessPorts {
  readonly accessRequests: AccessRequestStore;
  readonly managerCards: ManagerCardStore;
  readonly entitlements: EntitlementStore;
  readonly channels: ChannelRepo;
}
