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
