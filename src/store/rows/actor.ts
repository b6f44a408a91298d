import type { Actor, ActorKind, Role } from '../../core/actor.js';

/** An actors row as both drivers return it. */
export interface ActorRow {
  tenant_id: string;
  id: string;
  kind: ActorKind;
  roles: string;
  manager_id: string | null;
  cert_subject: string | null;
  display_name: string | null;
  /** added by SQLite migration 5 */
  chat_user_id?: string | null;
  collab_user_id?: string | null;
  created_at: string;
}

export function toActor(r: ActorRow): Actor {
  return {
    tenantId: r.tenant_id,
    id: r.id,
    kind: r.kind,
    roles: JSON.parse(r.roles) as Role[],
    managerId: r.manager_id,
    certSubject: r.cert_subject,
    displayName: r.display_name,
    ...(r.chat_user_id ? { chatUserId: r.chat_user_id } : {}),
    ...(r.collab_user_id ? { collabUserId: r.collab_user_id } : {}),
    createdAt: r.created_at,
  };
}

/** The values of a new actors row, in the column order of both adapters' INSERT. */
export const actorValues = (a: Actor): unknown[] => [
  a.tenantId,
  a.id,
  a.kind,
  JSON.stringify(a.roles),
  a.managerId,
  a.certSubject,
  a.displayName,
  a.chatUserId ?? null,
  a.collabUserId ?? null,
  a.createdAt,
];

/**
 * What an actor insert collided with, worded once for both drivers: each names the unique
 * index its driver reported (`undefined` when the failure was no unique violation).
 */
export function actorCollision(actor: Actor, index: 'chat_user' | 'collab_user' | 'key' | undefined): string {
  if (index === 'chat_user')
    return `an actor with chat user id ${actor.chatUserId ?? ''} in tenant ${actor.tenantId}`;
  if (index === 'collab_user') {
    return `an actor with collaboration user id ${actor.collabUserId ?? ''} in tenant ${actor.tenantId}`;
  }
  if (index === 'key' && actor.certSubject !== null) {
    return `an actor with id ${actor.id} or certificate subject ${actor.certSubject.replaceAll('\n', ', ')}`;
  }
  return `actor ${actor.id} in tenant ${actor.tenantId}`;
}
