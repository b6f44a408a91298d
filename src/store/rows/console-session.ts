import type { ConsoleSession } from '../console-ports.js';

/** A console_sessions row as both drivers return it (without its id hash). */
export interface SessionRow {
  tenant_id: string;
  actor_id: string;
  token_id: string | null;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

export const toSession = (r: SessionRow): ConsoleSession => ({
  tenantId: r.tenant_id,
  actorId: r.actor_id,
  tokenId: r.token_id,
  createdAt: r.created_at,
  lastSeenAt: r.last_seen_at,
  expiresAt: r.expires_at,
});
