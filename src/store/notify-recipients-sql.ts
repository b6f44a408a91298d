/**
 * The reads of the chat and collab senders (issue 26), in SQLite's dialect; the PostgreSQL
 * adapter swaps the JSON functions and numbers the parameters.
 */

/**
 * core/approval.ts `decisionRefusal` in SQL: humans with the approver role or named by the
 * capability, never the requester. Parameters: tenant, requester, capability.
 */
export const CHAT_APPROVERS = `SELECT a.id AS actor_id, a.chat_user_id FROM actors a
  WHERE a.tenant_id = ? AND a.kind = 'human' AND a.chat_user_id IS NOT NULL AND a.id <> ?
    AND (EXISTS (SELECT 1 FROM json_each(a.roles) r WHERE r.value = 'approver')
      OR EXISTS (SELECT 1 FROM capabilities c, json_each(c.approvers) n
        WHERE c.tenant_id = a.tenant_id AND c.name = ? AND n.value = a.id))
  ORDER BY a.id`;

/** Parameters: tenant, destination, approval. */
export const POST_PENDING = `SELECT 1 AS pending FROM notify_deliveries l
  JOIN notify_events e ON e.tenant_id = l.tenant_id AND e.id = l.event_id
  WHERE l.tenant_id = ? AND l.destination_id = ? AND l.state = 'pending'
    AND l.event_type IN ('approval.requested', 'approval.reminder')
    AND json_extract(e.data, '$.approval_id') = ?
  LIMIT 1`;

export interface ChatApproverRow {
  actor_id: string;
  chat_user_id: string;
}
