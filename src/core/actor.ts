import { invalidField, SvcError } from './errors.js';
import { normalizeSubject } from './cert-subject.js';
import { checkSlug } from './ids.js';

export const ACTOR_KINDS = ['agent', 'human', 'service'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

export const ROLES = ['operator', 'administrator', 'approver', 'manager', 'auditor'] as const;
export type Role = (typeof ROLES)[number];

export interface Actor {
  tenantId: string;
  id: string;
  kind: ActorKind;
  roles: Role[];
  /** The accountable human manager; every agent names one. */
  managerId: string | null;
  /** The client-certificate subject that identifies this actor in mutual-TLS mode. */
  certSubject: string | null;
  displayName: string | null;
  /**
   * The exact user ids by which an approval channel names this human (a chat user id, a
   * collaboration-suite object id); never an email or a display name. Absent means none.
   */
  chatUserId?: string | null;
  collabUserId?: string | null;
  createdAt: string;
}

export interface ActorInput {
  tenantId: string;
  id: string;
  kind: string;
  roles?: string[];
  managerId?: string | null;
  certSubject?: string | null;
  displayName?: string | null;
  chatUserId?: string | null;
  collabUserId?: string | null;
}

/**
 * Platform user ids (`U024BE7LH`, an Entra object id): compared exactly, so kept exactly.
 * No `@`, so an email address cannot be registered in place of the platform's id.
 */
const CHANNEL_USER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function checkChannelUserId(field: string, kind: ActorKind, value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (!CHANNEL_USER_ID.test(value)) {
    throw invalidField(
      field,
      'the platform user id (not an email): 1 to 128 letters, digits, ".", "_", ":" or "-"',
    );
  }
  if (kind !== 'human') {
    throw new SvcError('invalid_request', `${field}: only humans decide through approval channels`, {
      field,
    });
  }
  return value;
}

/**
 * Validate a new actor's own fields. Whether the manager exists and is a human is a
 * question for the store, answered by the caller.
 */
export function checkActorInput(input: ActorInput, createdAt: string): Actor {
  checkSlug('tenant', input.tenantId);
  checkSlug('id', input.id);
  if (!(ACTOR_KINDS as readonly string[]).includes(input.kind)) {
    throw invalidField('kind', `one of ${ACTOR_KINDS.join(', ')}`);
  }
  const kind = input.kind as ActorKind;
  const roles = [...new Set(input.roles ?? [])];
  for (const r of roles) {
    if (!(ROLES as readonly string[]).includes(r)) throw invalidField('role', `one of ${ROLES.join(', ')}`);
  }
  if (roles.length > 0 && kind !== 'human') {
    throw new SvcError('invalid_request', 'role: only human actors carry roles', { field: 'role' });
  }
  const managerId = input.managerId ?? null;
  if (kind === 'agent' && managerId === null) {
    throw new SvcError('invalid_request', 'manager: every agent names its accountable human manager', {
      field: 'manager',
      remedy: 'add --manager <human actor id>',
    });
  }
  if (managerId !== null) {
    checkSlug('manager', managerId);
    if (kind !== 'agent')
      throw new SvcError('invalid_request', 'manager: only agents name a manager', { field: 'manager' });
  }
  const certSubject =
    input.certSubject === undefined || input.certSubject === null
      ? null
      : normalizeSubject(input.certSubject);
  const displayName = input.displayName ?? null;
  if (displayName !== null && (displayName.length > 200 || !displayName.isWellFormed())) {
    throw invalidField('display-name', 'at most 200 characters of well-formed text');
  }
  const chatUserId = checkChannelUserId('chat-user-id', kind, input.chatUserId);
  const collabUserId = checkChannelUserId('collab-user-id', kind, input.collabUserId);
  return {
    tenantId: input.tenantId,
    id: input.id,
    kind,
    roles: roles as Role[],
    managerId,
    certSubject,
    displayName,
    ...(chatUserId !== null ? { chatUserId } : {}),
    ...(collabUserId !== null ? { collabUserId } : {}),
    createdAt,
  };
}

export function hasRole(actor: Actor, role: Role): boolean {
  return actor.kind === 'human' && actor.roles.includes(role);
}
