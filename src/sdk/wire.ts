/* Generated from the daemon's OpenAPI document by test/helpers/sdk-wire.ts: do not edit.
 * Regenerate with `UPDATE_SNAPSHOTS=1 npx vitest run test/unit/sdk/wire.test.ts`; the test
 * fails whenever the daemon and these types disagree. */

export type AccessReceipt = { receipt_id: string; sequence: number };
export type AccessRequest = {
  access_request_id: string;
  status: 'pending' | 'approved' | 'denied' | 'revoked' | 'expired';
  actor_id: string;
  capability: string;
  reason: string;
  duration_seconds: number;
  decision: 'approve' | 'deny' | null;
  decided_by: string | null;
  decided_at: string | null;
  granted_seconds: number | null;
  note: string | null;
  entitlement_id: string | null;
  entitlement_expires_at: string | null;
  revoked_by: string | null;
  revoked_at: string | null;
  created_at: string;
  cards: Array<{
    card_id: string;
    recipient_id: string;
    role: 'manager' | 'owner';
    status: 'pending' | 'approved' | 'denied' | 'closed';
  }>;
};
export type AccessRequestInput = { capability: string; reason: string; duration_seconds: number };
export type AccessStepResult = { access_request: AccessRequest; receipt: AccessReceipt };
export type ActionRequest = {
  tenant_id: string;
  actor_id: string;
  capability: string;
  action: string;
  task_id: string;
  effect_key_step: string;
  amount_usd?: number;
  intent?: string;
  params?: Record<string, unknown>;
  correlation_id?: string;
  trace_id?: string;
};
export type Admission = {
  reservation_id: string;
  task_id: string;
  actor_id: string;
  capability: string;
  amount_usd: number;
  intent_id: string;
  created_at: string;
};
export type AmountSource = 'requester_estimate' | 'capability_default' | 'params';
export type AnchorLine = {
  type: 'anchor';
  head: TreeHead;
  key_id?: string;
  algorithm?: string;
  timestamp?: {
    authority: string;
    digest: string;
    time: string;
    token?: string;
    noop?: boolean;
    verified?: string;
  };
  witnesses?: Array<{
    witness_id: string;
    public_key?: string;
    signature: string;
    signed_at: string;
    key_holder?: string;
  }>;
};
export type Approval = {
  approval_id: string;
  status: 'pending' | 'approved' | 'denied' | 'consumed' | 'expired';
  intent_id: string;
  task_id: string;
  effect_key_step: string;
  capability: string;
  action: string;
  intent: string | null;
  requester_id: string;
  amount_usd: number;
  amount_source: AmountSource | null;
  params: Record<string, unknown> | null;
  request: Record<string, unknown> | null;
  provider_request: ProviderRequest | null;
  request_digest: string;
  decided_by: string | null;
  decided_at: string | null;
  channel: string | null;
  note: string | null;
  expires_at: string;
  created_at: string;
};
export type ApprovalDecision = { decision: 'approve' | 'deny'; note?: string };
export type ApprovalDecisionResult = { approval: Approval; receipt_id: string; sequence: number };
export type BrokeredDecision = {
  decision: 'allowed' | 'refused' | 'deferred';
  intent_id: string;
  code?:
    | 'unknown_capability'
    | 'action_not_allowed'
    | 'wrong_route'
    | 'unknown_task'
    | 'task_not_active'
    | 'task_not_assigned'
    | 'not_permitted'
    | 'surface_unavailable'
    | 'constraints_violation'
    | 'no_policy'
    | 'policy_denied'
    | 'budget_exceeded'
    | 'approval_denied'
    | 'approval_expired'
    | 'approval_mismatch'
    | 'open_approvals_limit';
  reason?: string;
  remedy?: string;
  amount_usd: number;
  grant: {
    grant_id: string;
    expires_at: string;
    capability: string;
    action: string;
    intent_id: string;
    task_id: string;
  } | null;
  approval: { approval_id: string; status: string; expires_at?: string } | null;
  receipt: {
    receipt_id: string;
    sequence: number;
    record_hash: string;
    occurred_at: string;
    intent_id: string;
    task_id: string;
    capability: string;
    action: string;
    outcome: string;
    code: string | null;
    amount_usd: number;
  };
  provider: ProviderOutcome | null;
};
export type CapabilityEntry = {
  name: string;
  tier: number;
  irreversible: boolean;
  custody: 'grant' | 'brokered' | 'pass_through';
  actions: Array<string>;
};
export type CatalogueEntry = {
  name: string;
  tier: number;
  irreversible: boolean;
  custody: 'grant' | 'brokered' | 'pass_through';
  actions: Array<string>;
  default_amount_usd: number;
};
export type Conflict = {
  code: 'duplicate_effect' | 'deferral_pending' | 'request_mismatch';
  reason: string;
  remedy: string;
  intent_id: string;
  outcome: string;
};
export type Decision = {
  decision: 'allowed' | 'refused' | 'deferred';
  intent_id: string;
  code?:
    | 'unknown_capability'
    | 'action_not_allowed'
    | 'wrong_route'
    | 'unknown_task'
    | 'task_not_active'
    | 'task_not_assigned'
    | 'not_permitted'
    | 'surface_unavailable'
    | 'constraints_violation'
    | 'no_policy'
    | 'policy_denied'
    | 'budget_exceeded'
    | 'approval_denied'
    | 'approval_expired'
    | 'approval_mismatch'
    | 'open_approvals_limit';
  reason?: string;
  remedy?: string;
  amount_usd: number;
  grant: {
    grant_id: string;
    expires_at: string;
    capability: string;
    action: string;
    intent_id: string;
    task_id: string;
  } | null;
  approval: { approval_id: string; status: string; expires_at?: string } | null;
  receipt: {
    receipt_id: string;
    sequence: number;
    record_hash: string;
    occurred_at: string;
    intent_id: string;
    task_id: string;
    capability: string;
    action: string;
    outcome: string;
    code: string | null;
    amount_usd: number;
  };
};
export type EffectReceipt = {
  receipt_id: string;
  sequence: number;
  record_hash: string;
  occurred_at: string;
  intent_id: string;
  outcome: string;
  effect_id: string | null;
  observed: true;
};
export type Entitlement = {
  entitlement_id: string;
  actor_id: string;
  capability: string;
  status: 'active' | 'expired' | 'revoked';
  access_request_id: string | null;
  granted_by: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
};
export type EntitlementRevokeResult = { entitlement: Entitlement; receipt: AccessReceipt };
export type EntryLine = {
  type: 'entry';
  tenant_id: string;
  sequence: number;
  record_hash: string;
  intent_id: string;
  actor_id: string;
  capability: string;
  tier: number;
  allowed: boolean;
  grant_id: string;
  amount_usd: number;
  occurred_at: string;
  linked_at: string;
  tombstone?: {
    from_sequence: number;
    to_sequence: number;
    reason: string;
    authorised_by: string;
    policy_id?: string;
    record_count?: number;
    receipt_count?: number;
    removed_at: string;
  };
  chain_hash: string;
  leaf: string;
};
export type ErrorBody = {
  code:
    | 'invalid_request'
    | 'asset_url_refused'
    | 'contrast_too_low'
    | 'bad_request'
    | 'headers_too_large'
    | 'method_not_allowed'
    | 'request_timeout'
    | 'unsupported_media_type'
    | 'credential_ref_not_allowed'
    | 'credential_unavailable'
    | 'svg_refused'
    | 'usage'
    | 'payload_too_large'
    | 'unauthenticated'
    | 'replayed_request'
    | 'bad_signature'
    | 'bad_timestamp'
    | 'missing_signature'
    | 'bad_token'
    | 'missing_token'
    | 'stale_request'
    | 'token_expired'
    | 'forbidden'
    | 'claims_mismatch'
    | 'csrf_failed'
    | 'grant_expired'
    | 'grant_not_presented'
    | 'no_federated_backend'
    | 'not_a_decider'
    | 'not_a_revoker'
    | 'not_an_approver'
    | 'not_in_catalogue'
    | 'not_intent_actor'
    | 'not_sponsor'
    | 'open_approvals_limit'
    | 'self_approval'
    | 'unmapped_user'
    | 'not_found'
    | 'no_deferral'
    | 'unknown_channel'
    | 'unknown_grant'
    | 'unknown_intent'
    | 'unknown_surface'
    | 'conflict'
    | 'already_decided'
    | 'already_held'
    | 'approval_expired'
    | 'constraints_installed'
    | 'credential_in_use'
    | 'credential_retired'
    | 'effect_recorded'
    | 'grant_presented'
    | 'intent_not_allowed'
    | 'no_decider'
    | 'not_pass_through'
    | 'not_revocable'
    | 'not_root'
    | 'request_pending'
    | 'request_revoked'
    | 'stale_revision'
    | 'surface_revoked'
    | 'task_not_draft'
    | 'task_used'
    | 'unknown_capability'
    | 'already_exists'
    | 'not_initialized'
    | 'unavailable'
    | 'internal';
  reason: string;
  remedy?: string;
  field?: string;
  request_id?: string;
};
export type Error400 = {
  code:
    | 'invalid_request'
    | 'asset_url_refused'
    | 'contrast_too_low'
    | 'bad_request'
    | 'unsupported_media_type'
    | 'credential_ref_not_allowed'
    | 'credential_unavailable'
    | 'svg_refused'
    | 'usage';
  reason: string;
  remedy?: string;
  field?: string;
  request_id?: string;
};
export type Error401 = {
  code:
    | 'unauthenticated'
    | 'replayed_request'
    | 'bad_signature'
    | 'bad_timestamp'
    | 'missing_signature'
    | 'bad_token'
    | 'missing_token'
    | 'stale_request'
    | 'token_expired';
  reason: string;
  remedy?: string;
  field?: string;
  request_id?: string;
};
export type Error403 = {
  code:
    | 'forbidden'
    | 'claims_mismatch'
    | 'csrf_failed'
    | 'grant_expired'
    | 'grant_not_presented'
    | 'no_federated_backend'
    | 'not_a_decider'
    | 'not_a_revoker'
    | 'not_an_approver'
    | 'not_in_catalogue'
    | 'not_intent_actor'
    | 'not_sponsor'
    | 'open_approvals_limit'
    | 'self_approval'
    | 'unmapped_user';
  reason: string;
  remedy?: string;
  field?: string;
  request_id?: string;
};
export type Error404 = {
  code:
    'not_found' | 'no_deferral' | 'unknown_channel' | 'unknown_grant' | 'unknown_intent' | 'unknown_surface';
  reason: string;
  remedy?: string;
  field?: string;
  request_id?: string;
};
export type Error409 = {
  code:
    | 'conflict'
    | 'already_decided'
    | 'already_held'
    | 'approval_expired'
    | 'constraints_installed'
    | 'credential_in_use'
    | 'credential_retired'
    | 'effect_recorded'
    | 'grant_presented'
    | 'intent_not_allowed'
    | 'no_decider'
    | 'not_pass_through'
    | 'not_revocable'
    | 'not_root'
    | 'request_pending'
    | 'request_revoked'
    | 'stale_revision'
    | 'surface_revoked'
    | 'task_not_draft'
    | 'task_used'
    | 'unknown_capability'
    | 'already_exists';
  reason: string;
  remedy?: string;
  field?: string;
  request_id?: string;
};
export type Error413 = {
  code: 'payload_too_large';
  reason: string;
  remedy?: string;
  field?: string;
  request_id?: string;
};
export type Error500 = {
  code: 'internal';
  reason: string;
  remedy?: string;
  field?: string;
  request_id?: string;
};
export type Error503 = {
  code: 'not_initialized' | 'unavailable';
  reason: string;
  remedy?: string;
  field?: string;
  request_id?: string;
};
export type ExecutionPlan = {
  capabilities?: Array<string>;
  actors?: Array<string>;
  max_amount_usd_per_action?: number;
  max_total_usd?: number;
  max_actions?: number;
  not_before?: string;
  not_after?: string;
};
export type ExecutionPlanView = {
  capabilities?: Array<string>;
  actors?: Array<string>;
  max_amount_usd_per_action?: number;
  max_total_usd?: number;
  max_actions?: number;
  not_before?: string;
  not_after?: string;
};
export type ExecutionProfile = {
  task_id: string;
  root_id: string;
  installed: boolean;
  plan: ExecutionPlanView | null;
  installed_at: string | null;
  installed_by: string | null;
  ledger: unknown;
};
export type ManagerCard = {
  card_id: string;
  access_request_id: string;
  status: 'pending' | 'approved' | 'denied' | 'closed';
  role: 'manager' | 'owner';
  requester_id: string;
  capability: string;
  reason: string;
  duration_seconds: number;
  request_status: 'pending' | 'approved' | 'denied' | 'revoked' | 'expired';
  decided_by: string | null;
  decided_at: string | null;
  created_at: string;
};
export type ManagerCardDecision = {
  card_id: string;
  decision: 'approve' | 'deny';
  duration_seconds?: number;
  note?: string;
};
export type ManagerCardDecisionResult = {
  card: ManagerCard;
  access_request: AccessRequest;
  entitlement: Entitlement | null;
  receipt: AccessReceipt;
};
export type NoDeferral = {
  code: 'no_deferral';
  reason: string;
  remedy: string;
  intent_id?: string;
  outcome?: string;
};
export type OutcomeNotRecorded = {
  code: 'outcome_not_recorded';
  reason: string;
  remedy: string;
  intent_id: string;
  execution_id: string;
  executed: boolean;
  provider?: ProviderOutcome;
  request_id: string;
};
export type ProviderOutcome = {
  execution_id: string;
  outcome: 'succeeded' | 'failed' | 'unknown';
  sent: boolean;
  status: number | null;
  effect_id: string | null;
  digest: string | null;
  error: string | null;
  reason: string;
  body?: unknown;
  receipt?: { receipt_id: string; sequence: number; record_hash: string; occurred_at: string };
};
export type ProviderRequest = {
  surface_id: string;
  operation: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  credential_header: string;
  body: string | null;
};
export type Receipt = {
  receipt_id: string;
  sequence: number;
  kind:
    | 'decision'
    | 'observation'
    | 'grant_effect'
    | 'approval'
    | 'execution'
    | 'redaction'
    | 'integration_op'
    | 'access';
  intent_id: string;
  task_id: string | null;
  actor_id: string;
  capability: string;
  action: string | null;
  intent: string | null;
  effect_key_step: string | null;
  outcome: string;
  allowed: boolean;
  code: string | null;
  reason: string | null;
  remedy: string | null;
  amount_usd: number;
  grant_id: string | null;
  approval_id: string | null;
  effect: Record<string, unknown> | null;
  effect_id: string | null;
  observed: boolean;
  occurred_at: string;
  linked_at: string;
  record_hash: string;
  leaf: string;
  redacted: boolean;
  policy_version: number | null;
};
export type ReceiptProof = {
  entry: EntryLine;
  leaf_index: number;
  tree_size: number;
  audit_path: Array<string>;
  anchor: AnchorLine;
};
export type ReceiptWithProof = {
  receipt_id: string;
  sequence: number;
  kind:
    | 'decision'
    | 'observation'
    | 'grant_effect'
    | 'approval'
    | 'execution'
    | 'redaction'
    | 'integration_op'
    | 'access';
  intent_id: string;
  task_id: string | null;
  actor_id: string;
  capability: string;
  action: string | null;
  intent: string | null;
  effect_key_step: string | null;
  outcome: string;
  allowed: boolean;
  code: string | null;
  reason: string | null;
  remedy: string | null;
  amount_usd: number;
  grant_id: string | null;
  approval_id: string | null;
  effect: Record<string, unknown> | null;
  effect_id: string | null;
  observed: boolean;
  occurred_at: string;
  linked_at: string;
  record_hash: string;
  leaf: string;
  redacted: boolean;
  policy_version: number | null;
  proof?: ReceiptProof | null;
};
export type RevokeInput = { note?: string };
export type Task = {
  task_id: string;
  title: string | null;
  status: 'draft' | 'active' | 'closed';
  sponsor_id: string;
  parent_id: string | null;
  root_id: string;
  budget_usd: number;
  reserved_usd: number;
  remaining_usd: number;
  actors: Array<string>;
  constraints_installed: boolean;
  created_at: string;
  closed_at: string | null;
};
export type TreeHead = {
  log_id: string;
  index: number;
  root_hash: string;
  tree_size: number;
  signed_at: string;
  signature: string;
};
export type HealthResponse = { status: string };
export type CapabilitiesResponse = {
  tenant_id: string;
  actor_id: string;
  capabilities: Array<CapabilityEntry>;
};
export type ActionBody = ActionRequest;
export type ActionResponse = Decision;
export type ResumeBody = ActionRequest;
export type ResumeResponse = Decision;
export type BrokeredBody = ActionRequest;
export type BrokeredResponse = BrokeredDecision;
export type ResumeBrokeredBody = ActionRequest;
export type ResumeBrokeredResponse = BrokeredDecision;
export type PresentGrantBody = { grant_id: string };
export type PresentGrantResponse = {
  grant_id: string;
  intent_id: string;
  actor_id: string;
  capability: string;
  action: string;
  task_id: string;
  expires_at: string;
  presented_by: string;
  presented_at: string;
};
export type GrantReceiptBody = {
  grant_id: string;
  status: 'succeeded' | 'failed' | 'unknown';
  effect_id?: string;
  detail?: Record<string, unknown>;
};
export type GrantReceiptResponse = EffectReceipt;
export type ObserveBody = {
  intent_id: string;
  status: 'succeeded' | 'failed' | 'unknown';
  effect_id?: string;
  detail?: Record<string, unknown>;
};
export type ObserveResponse = EffectReceipt;
export type CatalogueResponse = Array<CatalogueEntry>;
export type TasksQuery = { limit?: number; cursor?: string; status?: 'draft' | 'active' | 'closed' };
export type TasksResponse = { items: Array<Task>; next_cursor: string | null };
export type TaskResponse = Task;
export type ExecutionConstraintsResponse = ExecutionProfile;
export type ApprovalsQuery = {
  limit?: number;
  cursor?: string;
  status?: 'pending' | 'approved' | 'denied' | 'consumed' | 'expired';
};
export type ApprovalsResponse = { items: Array<Approval>; next_cursor: string | null };
export type ApprovalResponse = Approval;
export type DecideApprovalBody = ApprovalDecision;
export type DecideApprovalResponse = ApprovalDecisionResult;
export type RequestAccessBody = AccessRequestInput;
export type RequestAccessResponse = AccessStepResult;
export type AccessRequestResponse = AccessRequest;
export type RevokeAccessRequestBody = RevokeInput;
export type RevokeAccessRequestResponse = AccessStepResult;
export type ManagerCardsQuery = { status?: 'pending' | 'approved' | 'denied' | 'closed' };
export type ManagerCardsResponse = Array<ManagerCard>;
export type DecideManagerCardBody = ManagerCardDecision;
export type DecideManagerCardResponse = ManagerCardDecisionResult;
export type EntitlementsQuery = {
  limit?: number;
  cursor?: string;
  status?: 'active' | 'expired' | 'revoked';
  actor_id?: string;
};
export type EntitlementsResponse = { items: Array<Entitlement>; next_cursor: string | null };
export type ReceiptsQuery = { limit?: number; cursor?: string; task_id?: string; work_id?: string };
export type ReceiptsResponse = { items: Array<Receipt>; next_cursor: string | null };
export type ReceiptQuery = { proof?: 'true' | 'false' };
export type ReceiptResponse = ReceiptWithProof;

/** Method and path of every operation the SDK names, by operationId. */
export const OPERATIONS = {
  accessRequest: { method: 'GET', path: '/v1/access-requests/{id}' },
  action: { method: 'POST', path: '/v1/action' },
  approval: { method: 'GET', path: '/v1/approvals/{id}' },
  approvals: { method: 'GET', path: '/v1/approvals' },
  brokered: { method: 'POST', path: '/v1/brokered' },
  capabilities: { method: 'GET', path: '/v1/capabilities' },
  catalogue: { method: 'GET', path: '/v1/catalogue' },
  decideApproval: { method: 'POST', path: '/v1/approvals/{id}/decision' },
  decideManagerCard: { method: 'POST', path: '/v1/manager-cards/decide' },
  entitlements: { method: 'GET', path: '/v1/entitlements' },
  executionConstraints: { method: 'GET', path: '/v1/task/{id}/execution-constraints' },
  federate: { method: 'POST', path: '/v1/federate' },
  grantReceipt: { method: 'POST', path: '/v1/grants/receipt' },
  health: { method: 'GET', path: '/healthz' },
  managerCards: { method: 'GET', path: '/v1/manager-cards' },
  observe: { method: 'POST', path: '/v1/observe' },
  presentGrant: { method: 'POST', path: '/v1/grants/present' },
  receipt: { method: 'GET', path: '/v1/receipts/{id}' },
  receipts: { method: 'GET', path: '/v1/receipts' },
  requestAccess: { method: 'POST', path: '/v1/access-requests' },
  resume: { method: 'POST', path: '/v1/action/resume' },
  resumeBrokered: { method: 'POST', path: '/v1/brokered/resume' },
  revokeAccessRequest: { method: 'POST', path: '/v1/access-requests/{id}/revoke' },
  task: { method: 'GET', path: '/v1/task/{id}' },
  tasks: { method: 'GET', path: '/v1/task' },
} as const;
