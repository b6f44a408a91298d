import type { Actor } from '../core/actor.js';

/** The stable `--json` shape of an actor. */
export interface ActorView {
  tenant_id: string;
  actor_id: string;
  kind: string;
  roles: string[];
  manager: string | null;
  cert_subject: string | null;
  display_name: string | null;
  chat_user_id: string | null;
  collab_user_id: string | null;
  created_at: string;
}

export function actorView(a: Actor): ActorView {
  return {
    tenant_id: a.tenantId,
    actor_id: a.id,
    kind: a.kind,
    roles: a.roles,
    manager: a.managerId,
    cert_subject: a.certSubject === null ? null : a.certSubject.replaceAll('\n', ', '),
    display_name: a.displayName,
    chat_user_id: a.chatUserId ?? null,
    collab_user_id: a.collabUserId ?? null,
    created_at: a.createdAt,
  };
}
