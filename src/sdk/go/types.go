package svc

import "encoding/json"

// The daemon's JSON shapes (its OpenAPI document is the source of truth; the TypeScript
// SDK's generated src/sdk/wire.ts lists every field). Unknown fields are ignored, so a
// daemon that adds fields does not break this client.

// DecisionRequest is the body of /v1/action, /v1/brokered, their resumes and /v1/federate.
// TenantID and ActorID are filled by the client from its token's identity.
type DecisionRequest struct {
	TenantID      string         `json:"tenant_id"`
	ActorID       string         `json:"actor_id"`
	Capability    string         `json:"capability"`
	Action        string         `json:"action"`
	TaskID        string         `json:"task_id"`
	EffectKeyStep string         `json:"effect_key_step"`
	AmountUSD     *float64       `json:"amount_usd,omitempty"`
	Intent        string         `json:"intent,omitempty"`
	Params        map[string]any `json:"params,omitempty"`
	CorrelationID string         `json:"correlation_id,omitempty"`
	TraceID       string         `json:"trace_id,omitempty"`
}

type Grant struct {
	GrantID    string `json:"grant_id"`
	ExpiresAt  string `json:"expires_at"`
	Capability string `json:"capability"`
	Action     string `json:"action"`
	IntentID   string `json:"intent_id"`
	TaskID     string `json:"task_id"`
}

type ApprovalRef struct {
	ApprovalID string `json:"approval_id"`
	Status     string `json:"status"`
	ExpiresAt  string `json:"expires_at,omitempty"`
}

type SealedReceipt struct {
	ReceiptID  string  `json:"receipt_id"`
	Sequence   int64   `json:"sequence"`
	RecordHash string  `json:"record_hash"`
	OccurredAt string  `json:"occurred_at"`
	IntentID   string  `json:"intent_id"`
	TaskID     string  `json:"task_id"`
	Capability string  `json:"capability"`
	Action     string  `json:"action"`
	Outcome    string  `json:"outcome"`
	Code       *string `json:"code"`
	AmountUSD  float64 `json:"amount_usd"`
}

// ProviderOutcome is what the provider did, as the daemon saw it (brokered routes).
type ProviderOutcome struct {
	ExecutionID string          `json:"execution_id"`
	Outcome     string          `json:"outcome"`
	Sent        bool            `json:"sent"`
	Status      *int            `json:"status"`
	EffectID    *string         `json:"effect_id"`
	Digest      *string         `json:"digest"`
	Error       *string         `json:"error"`
	Reason      string          `json:"reason"`
	Body        json.RawMessage `json:"body,omitempty"`
	// Receipt is the journal record of this outcome (kind execution)
	Receipt *ReceiptRef `json:"receipt,omitempty"`
}

type ReceiptRef struct {
	ReceiptID  string `json:"receipt_id"`
	Sequence   int64  `json:"sequence"`
	RecordHash string `json:"record_hash"`
	OccurredAt string `json:"occurred_at"`
}

// Decision is the decision-shaped body of 200, 202 and the sealed 403; Provider only on
// the brokered routes, when the daemon executed.
type Decision struct {
	Decision  string           `json:"decision"`
	IntentID  string           `json:"intent_id"`
	Code      string           `json:"code,omitempty"`
	Reason    string           `json:"reason,omitempty"`
	Remedy    string           `json:"remedy,omitempty"`
	AmountUSD float64          `json:"amount_usd"`
	Grant     *Grant           `json:"grant"`
	Approval  *ApprovalRef     `json:"approval"`
	Receipt   SealedReceipt    `json:"receipt"`
	Provider  *ProviderOutcome `json:"provider,omitempty"`
}

type CapabilityEntry struct {
	Name         string   `json:"name"`
	Tier         int      `json:"tier"`
	Irreversible bool     `json:"irreversible"`
	Custody      string   `json:"custody"`
	Actions      []string `json:"actions"`
}

type Capabilities struct {
	TenantID     string            `json:"tenant_id"`
	ActorID      string            `json:"actor_id"`
	Capabilities []CapabilityEntry `json:"capabilities"`
}

type CatalogueEntry struct {
	CapabilityEntry
	DefaultAmountUSD float64 `json:"default_amount_usd"`
}

type EffectReport struct {
	Status   string         `json:"status"`
	EffectID string         `json:"effect_id,omitempty"`
	Detail   map[string]any `json:"detail,omitempty"`
}

type EffectReceipt struct {
	ReceiptID  string  `json:"receipt_id"`
	Sequence   int64   `json:"sequence"`
	RecordHash string  `json:"record_hash"`
	OccurredAt string  `json:"occurred_at"`
	IntentID   string  `json:"intent_id"`
	Outcome    string  `json:"outcome"`
	EffectID   *string `json:"effect_id"`
	Observed   bool    `json:"observed"`
}

type PresentedGrant struct {
	GrantID     string `json:"grant_id"`
	IntentID    string `json:"intent_id"`
	ActorID     string `json:"actor_id"`
	Capability  string `json:"capability"`
	Action      string `json:"action"`
	TaskID      string `json:"task_id"`
	ExpiresAt   string `json:"expires_at"`
	PresentedBy string `json:"presented_by"`
	PresentedAt string `json:"presented_at"`
}

type Receipt struct {
	ReceiptID     string         `json:"receipt_id"`
	Sequence      int64          `json:"sequence"`
	Kind          string         `json:"kind"`
	IntentID      string         `json:"intent_id"`
	TaskID        *string        `json:"task_id"`
	ActorID       string         `json:"actor_id"`
	Capability    string         `json:"capability"`
	Action        *string        `json:"action"`
	Intent        *string        `json:"intent"`
	EffectKeyStep *string        `json:"effect_key_step"`
	Outcome       string         `json:"outcome"`
	Allowed       bool           `json:"allowed"`
	Code          *string        `json:"code"`
	Reason        *string        `json:"reason"`
	Remedy        *string        `json:"remedy"`
	AmountUSD     float64        `json:"amount_usd"`
	GrantID       *string        `json:"grant_id"`
	ApprovalID    *string        `json:"approval_id"`
	Effect        map[string]any `json:"effect"`
	EffectID      *string        `json:"effect_id"`
	Observed      bool           `json:"observed"`
	OccurredAt    string         `json:"occurred_at"`
	RecordHash    string         `json:"record_hash"`
	LinkedAt      string         `json:"linked_at"`
	Leaf          string         `json:"leaf"`
	Redacted      bool           `json:"redacted"`
	// PolicyVersion is the policy version that decided; nil where no policy step was recorded.
	PolicyVersion *int64 `json:"policy_version"`
}

// Page is one page of a list route; NextCursor is nil on the last page.
type Page[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

// PageQuery: Limit 1 to 200 (0 means the daemon's default), Cursor from the previous page.
type PageQuery struct {
	Limit  int
	Cursor string
	Status string
}

type Task struct {
	TaskID               string   `json:"task_id"`
	Title                *string  `json:"title"`
	Status               string   `json:"status"`
	SponsorID            string   `json:"sponsor_id"`
	ParentID             *string  `json:"parent_id"`
	RootID               string   `json:"root_id"`
	BudgetUSD            float64  `json:"budget_usd"`
	ReservedUSD          float64  `json:"reserved_usd"`
	RemainingUSD         float64  `json:"remaining_usd"`
	Actors               []string `json:"actors"`
	ConstraintsInstalled bool     `json:"constraints_installed"`
	CreatedAt            string   `json:"created_at"`
	ClosedAt             *string  `json:"closed_at"`
}

// ExecutionProfile: the root's immutable plan and the admissions the caller may see.
type ExecutionProfile struct {
	TaskID      string          `json:"task_id"`
	RootID      string          `json:"root_id"`
	Installed   bool            `json:"installed"`
	Plan        json.RawMessage `json:"plan"`
	InstalledAt *string         `json:"installed_at"`
	InstalledBy *string         `json:"installed_by"`
	Ledger      json.RawMessage `json:"ledger"`
}

type Approval struct {
	ApprovalID    string  `json:"approval_id"`
	Status        string  `json:"status"`
	IntentID      string  `json:"intent_id"`
	TaskID        string  `json:"task_id"`
	EffectKeyStep string  `json:"effect_key_step"`
	Capability    string  `json:"capability"`
	Action        string  `json:"action"`
	Intent        *string `json:"intent"`
	RequesterID   string  `json:"requester_id"`
	// AmountUSD is what the approval binds; the requester's own estimate unless AmountSource says otherwise.
	AmountUSD float64 `json:"amount_usd"`
	// AmountSource: "requester_estimate", "capability_default" or "params"; nil for approvals opened before it was recorded.
	AmountSource *string `json:"amount_source"`
	// Params are the params the deferred request carried, exactly; nil when none.
	Params map[string]any `json:"params"`
	// Request is the body RequestDigest binds: hex(SHA-256(CJSON(Request))).
	Request map[string]any `json:"request"`
	// ProviderRequest is what a brokered capability would send for these params, without the credential.
	ProviderRequest *ProviderRequest `json:"provider_request"`
	RequestDigest   string           `json:"request_digest"`
	DecidedBy       *string          `json:"decided_by"`
	DecidedAt       *string          `json:"decided_at"`
	Channel         *string          `json:"channel"`
	Note            *string          `json:"note"`
	ExpiresAt       string           `json:"expires_at"`
	CreatedAt       string           `json:"created_at"`
}

// ProviderRequest is the request a brokered operation makes of an approval's params, as the
// connector would send it; the credential is added at execution and never shown.
type ProviderRequest struct {
	SurfaceID        string            `json:"surface_id"`
	Operation        string            `json:"operation"`
	Method           string            `json:"method"`
	URL              string            `json:"url"`
	Headers          map[string]string `json:"headers"`
	CredentialHeader string            `json:"credential_header"`
	Body             *string           `json:"body"`
}

type ApprovalDecisionResult struct {
	Approval  Approval `json:"approval"`
	ReceiptID string   `json:"receipt_id"`
	Sequence  int64    `json:"sequence"`
}

type AccessCard struct {
	CardID      string `json:"card_id"`
	RecipientID string `json:"recipient_id"`
	Role        string `json:"role"`
	Status      string `json:"status"`
}

type AccessRequest struct {
	AccessRequestID      string       `json:"access_request_id"`
	Status               string       `json:"status"`
	ActorID              string       `json:"actor_id"`
	Capability           string       `json:"capability"`
	Reason               string       `json:"reason"`
	DurationSeconds      int          `json:"duration_seconds"`
	Decision             *string      `json:"decision"`
	DecidedBy            *string      `json:"decided_by"`
	DecidedAt            *string      `json:"decided_at"`
	GrantedSeconds       *int         `json:"granted_seconds"`
	Note                 *string      `json:"note"`
	EntitlementID        *string      `json:"entitlement_id"`
	EntitlementExpiresAt *string      `json:"entitlement_expires_at"`
	RevokedBy            *string      `json:"revoked_by"`
	RevokedAt            *string      `json:"revoked_at"`
	CreatedAt            string       `json:"created_at"`
	Cards                []AccessCard `json:"cards"`
}

type AccessReceipt struct {
	ReceiptID string `json:"receipt_id"`
	Sequence  int64  `json:"sequence"`
}

type AccessStepResult struct {
	AccessRequest AccessRequest `json:"access_request"`
	Receipt       AccessReceipt `json:"receipt"`
}

type ManagerCard struct {
	CardID          string  `json:"card_id"`
	AccessRequestID string  `json:"access_request_id"`
	Status          string  `json:"status"`
	Role            string  `json:"role"`
	RequesterID     string  `json:"requester_id"`
	Capability      string  `json:"capability"`
	Reason          string  `json:"reason"`
	DurationSeconds int     `json:"duration_seconds"`
	RequestStatus   string  `json:"request_status"`
	DecidedBy       *string `json:"decided_by"`
	DecidedAt       *string `json:"decided_at"`
	CreatedAt       string  `json:"created_at"`
}

type CardDecision struct {
	CardID          string `json:"card_id"`
	Decision        string `json:"decision"`
	DurationSeconds int    `json:"duration_seconds,omitempty"`
	Note            string `json:"note,omitempty"`
}

type Entitlement struct {
	EntitlementID   string  `json:"entitlement_id"`
	ActorID         string  `json:"actor_id"`
	Capability      string  `json:"capability"`
	Status          string  `json:"status"`
	AccessRequestID *string `json:"access_request_id"`
	GrantedBy       *string `json:"granted_by"`
	CreatedAt       string  `json:"created_at"`
	ExpiresAt       string  `json:"expires_at"`
	RevokedAt       *string `json:"revoked_at"`
	RevokedBy       *string `json:"revoked_by"`
}

type CardDecisionResult struct {
	Card          ManagerCard   `json:"card"`
	AccessRequest AccessRequest `json:"access_request"`
	Entitlement   *Entitlement  `json:"entitlement"`
	Receipt       AccessReceipt `json:"receipt"`
}

type Health struct {
	Status string `json:"status"`
}
