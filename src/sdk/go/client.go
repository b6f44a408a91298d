// Package svc is the Go SDK of the svc governance daemon (standard library only).
//
// A Client is configured from SVC_ENDPOINT, SVC_TOKEN and SVC_CA_CERT (or Options). Decision
// methods return a typed *Outcome and never retry on their own; the other methods return
// the daemon's answer or an *Error. A daemon that cannot be reached is an error, never an
// empty list.
package svc

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

const DefaultEndpoint = "http://127.0.0.1:8090"

// Methods maps the daemon's operationIds to this SDK's method names (a test checks both).
var Methods = map[string]string{
	"action": "Action", "resume": "Resume", "brokered": "Brokered", "resumeBrokered": "ResumeBrokered",
	"federate": "Federate", "observe": "Observe", "presentGrant": "PresentGrant", "grantReceipt": "GrantReceipt",
	"capabilities": "Capabilities", "catalogue": "Catalogue", "requestAccess": "RequestAccess",
	"accessRequest": "AccessRequest", "revokeAccessRequest": "RevokeAccessRequest", "managerCards": "ManagerCards",
	"decideManagerCard": "DecideManagerCard", "approvals": "Approvals", "approval": "Approval",
	"decideApproval": "DecideApproval", "entitlements": "Entitlements", "tasks": "Tasks", "task": "Task",
	"executionConstraints": "ExecutionConstraints", "receipts": "Receipts", "receipt": "Receipt", "health": "Health",
}

// Options override the environment; Getenv defaults to os.Getenv.
type Options struct {
	Endpoint string
	Token    string
	// CACertFile: the deployment certificate to trust for https (default SVC_CA_CERT)
	CACertFile string
	// Timeout before an answer counts as lost (default 30 s)
	Timeout time.Duration
	Getenv  func(string) string
	// Identity, when known, saves the GET /v1/capabilities that otherwise finds it
	Identity *Identity
}

type Identity struct {
	TenantID string `json:"tenant_id"`
	ActorID  string `json:"actor_id"`
}

type Client struct {
	t        *transport
	mu       sync.Mutex
	identity *Identity
}

// New builds a client from Options, then SVC_ENDPOINT, SVC_TOKEN and SVC_CA_CERT.
func New(o Options) (*Client, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	pick := func(v, env, def string) string {
		if v != "" {
			return v
		}
		if e := getenv(env); e != "" {
			return e
		}
		return def
	}
	endpoint := pick(o.Endpoint, "SVC_ENDPOINT", DefaultEndpoint)
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, usage("SVC_ENDPOINT", "expected the daemon's base URL, such as https://127.0.0.1:8090 (got "+endpoint+")", "set SVC_ENDPOINT to where `svc daemon start` listens")
	}
	token := strings.TrimSpace(pick(o.Token, "SVC_TOKEN", ""))
	if token == "" {
		return nil, usage("SVC_TOKEN", "not set: the daemon authenticates every agent request with a bearer token", "export SVC_TOKEN=<token>; an operator issues one with `svc token issue --tenant <tenant> --actor <agent>`")
	}
	for _, ch := range token {
		if ch < 0x21 || ch > 0x7e {
			return nil, usage("SVC_TOKEN", "expected the token exactly as issued (printable, no spaces)", "copy it again from `svc token issue`")
		}
	}
	var ca []byte
	if file := pick(o.CACertFile, "SVC_CA_CERT", ""); file != "" {
		if ca, err = os.ReadFile(file); err != nil {
			return nil, usage("SVC_CA_CERT", "cannot read "+file+": "+err.Error(), "point SVC_CA_CERT at the deployment certificate (`svc init` prints it as ca_cert)")
		}
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	if timeout < 0 {
		return nil, usage("Timeout", "expected a positive duration", "leave it zero for 30 s")
	}
	t, err := newTransport(strings.TrimRight(endpoint, "/"), token, ca, timeout)
	if err != nil {
		return nil, err
	}
	return &Client{t: t, identity: o.Identity}, nil
}

func (c *Client) Endpoint() string { return c.t.endpoint }

func (c *Client) call(ctx context.Context, method, path string, query url.Values, body, into any) error {
	if q := query.Encode(); q != "" {
		path += "?" + q
	}
	ex := c.t.send(ctx, method, path, body)
	if ex.notSent != nil {
		return ex.notSent
	}
	if ex.lost != "" {
		remedy := "read the state back before repeating the request"
		if method == "GET" {
			remedy = "try again"
		}
		return &Error{Code: "outcome_unknown", Reason: path + ": " + ex.lost, Remedy: remedy}
	}
	if !ex.json && ex.status < 400 {
		return &Error{Code: "invalid_response", Reason: fmt.Sprintf("%s: HTTP %d without the daemon's JSON body (an intermediary answered?)", path, ex.status), Remedy: "check that SVC_ENDPOINT is the daemon itself", Status: ex.status}
	}
	if ex.status < 200 || ex.status > 299 || !ex.json {
		return errorFromAnswer(ex.status, ex.body)
	}
	if err := json.Unmarshal(ex.body, into); err != nil {
		return &Error{Code: "invalid_response", Reason: fmt.Sprintf("%s: the daemon's answer does not parse: %v", path, err), Status: ex.status}
	}
	return nil
}

func pathID(id string) (string, error) {
	if id == "" {
		return "", &Error{Code: "usage", Reason: "id: expected a non-empty string", Field: "id"}
	}
	return url.PathEscape(id), nil
}

func pageValues(q PageQuery) url.Values {
	v := url.Values{}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Cursor != "" {
		v.Set("cursor", q.Cursor)
	}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	return v
}

// Identity is the tenant and actor the token authenticates (asked once).
func (c *Client) Identity(ctx context.Context) (Identity, error) {
	c.mu.Lock()
	known := c.identity
	c.mu.Unlock()
	if known != nil {
		return *known, nil
	}
	caps, err := c.Capabilities(ctx)
	if err != nil {
		return Identity{}, err
	}
	id := Identity{TenantID: caps.TenantID, ActorID: caps.ActorID}
	c.mu.Lock()
	c.identity = &id
	c.mu.Unlock()
	return id, nil
}

func (c *Client) decide(ctx context.Context, route, path string, req DecisionRequest) (*Outcome, error) {
	who, err := c.Identity(ctx)
	if err != nil {
		return nil, err
	}
	req.TenantID, req.ActorID = who.TenantID, who.ActorID
	return decisionOutcome(route, req, c.t.send(ctx, "POST", path, req))
}

// Action asks POST /v1/action: a recorded decision; a grant when allowed. It does not execute.
func (c *Client) Action(ctx context.Context, req DecisionRequest) (*Outcome, error) {
	return c.decide(ctx, "action", "/v1/action", req)
}

// Resume revalidates a deferred action decision: pass the deferral's Request unchanged.
func (c *Client) Resume(ctx context.Context, req DecisionRequest) (*Outcome, error) {
	return c.decide(ctx, "action", "/v1/action/resume", req)
}

// Brokered asks POST /v1/brokered: decide and, when allowed, execute through the daemon's connector.
func (c *Client) Brokered(ctx context.Context, req DecisionRequest) (*Outcome, error) {
	return c.decide(ctx, "brokered", "/v1/brokered", req)
}

// ResumeBrokered revalidates a deferred brokered action; it executes only if that allows.
func (c *Client) ResumeBrokered(ctx context.Context, req DecisionRequest) (*Outcome, error) {
	return c.decide(ctx, "brokered", "/v1/brokered/resume", req)
}

// Federate asks POST /v1/federate: refused (`no federated backend`) in the supplied distribution.
func (c *Client) Federate(ctx context.Context, req DecisionRequest) (*Outcome, error) {
	return c.decide(ctx, "federate", "/v1/federate", req)
}

// Observe reports the effect of an allowed pass_through intent: observed, never enforced.
func (c *Client) Observe(ctx context.Context, intentID string, effect EffectReport) (*EffectReceipt, error) {
	var out EffectReceipt
	body := map[string]any{"intent_id": intentID, "status": effect.Status}
	addEffect(body, effect)
	return &out, c.call(ctx, "POST", "/v1/observe", nil, body, &out)
}

func (c *Client) PresentGrant(ctx context.Context, grantID string) (*PresentedGrant, error) {
	var out PresentedGrant
	return &out, c.call(ctx, "POST", "/v1/grants/present", nil, map[string]any{"grant_id": grantID}, &out)
}

// GrantReceipt journals the observed effect of a presented grant.
func (c *Client) GrantReceipt(ctx context.Context, grantID string, effect EffectReport) (*EffectReceipt, error) {
	var out EffectReceipt
	body := map[string]any{"grant_id": grantID, "status": effect.Status}
	addEffect(body, effect)
	return &out, c.call(ctx, "POST", "/v1/grants/receipt", nil, body, &out)
}

func addEffect(body map[string]any, e EffectReport) {
	if e.EffectID != "" {
		body["effect_id"] = e.EffectID
	}
	if e.Detail != nil {
		body["detail"] = e.Detail
	}
}

func (c *Client) Capabilities(ctx context.Context) (*Capabilities, error) {
	var out Capabilities
	return &out, c.call(ctx, "GET", "/v1/capabilities", nil, nil, &out)
}

func (c *Client) Catalogue(ctx context.Context) ([]CatalogueEntry, error) {
	var out []CatalogueEntry
	return out, c.call(ctx, "GET", "/v1/catalogue", nil, nil, &out)
}

func (c *Client) RequestAccess(ctx context.Context, capability, reason string, durationSeconds int) (*AccessStepResult, error) {
	var out AccessStepResult
	body := map[string]any{"capability": capability, "reason": reason, "duration_seconds": durationSeconds}
	return &out, c.call(ctx, "POST", "/v1/access-requests", nil, body, &out)
}

func (c *Client) AccessRequest(ctx context.Context, id string) (*AccessRequest, error) {
	p, err := pathID(id)
	if err != nil {
		return nil, err
	}
	var out AccessRequest
	return &out, c.call(ctx, "GET", "/v1/access-requests/"+p, nil, nil, &out)
}

func (c *Client) RevokeAccessRequest(ctx context.Context, id, note string) (*AccessStepResult, error) {
	p, err := pathID(id)
	if err != nil {
		return nil, err
	}
	body := map[string]any{}
	if note != "" {
		body["note"] = note
	}
	var out AccessStepResult
	return &out, c.call(ctx, "POST", "/v1/access-requests/"+p+"/revoke", nil, body, &out)
}

// ManagerCards lists the caller's cards in a status ("" for the daemon's default, pending).
func (c *Client) ManagerCards(ctx context.Context, status string) ([]ManagerCard, error) {
	var out []ManagerCard
	return out, c.call(ctx, "GET", "/v1/manager-cards", pageValues(PageQuery{Status: status}), nil, &out)
}

func (c *Client) DecideManagerCard(ctx context.Context, d CardDecision) (*CardDecisionResult, error) {
	var out CardDecisionResult
	return &out, c.call(ctx, "POST", "/v1/manager-cards/decide", nil, d, &out)
}

func (c *Client) Approvals(ctx context.Context, q PageQuery) (*Page[Approval], error) {
	var out Page[Approval]
	return &out, c.call(ctx, "GET", "/v1/approvals", pageValues(q), nil, &out)
}

func (c *Client) Approval(ctx context.Context, id string) (*Approval, error) {
	p, err := pathID(id)
	if err != nil {
		return nil, err
	}
	var out Approval
	return &out, c.call(ctx, "GET", "/v1/approvals/"+p, nil, nil, &out)
}

// DecideApproval is for approvers (registered humans): "approve" or "deny"; the first decision wins.
func (c *Client) DecideApproval(ctx context.Context, id, decision, note string) (*ApprovalDecisionResult, error) {
	p, err := pathID(id)
	if err != nil {
		return nil, err
	}
	body := map[string]any{"decision": decision}
	if note != "" {
		body["note"] = note
	}
	var out ApprovalDecisionResult
	return &out, c.call(ctx, "POST", "/v1/approvals/"+p+"/decision", nil, body, &out)
}

func (c *Client) Entitlements(ctx context.Context, q PageQuery) (*Page[Entitlement], error) {
	var out Page[Entitlement]
	return &out, c.call(ctx, "GET", "/v1/entitlements", pageValues(q), nil, &out)
}

func (c *Client) Tasks(ctx context.Context, q PageQuery) (*Page[Task], error) {
	var out Page[Task]
	return &out, c.call(ctx, "GET", "/v1/task", pageValues(q), nil, &out)
}

func (c *Client) Task(ctx context.Context, id string) (*Task, error) {
	p, err := pathID(id)
	if err != nil {
		return nil, err
	}
	var out Task
	return &out, c.call(ctx, "GET", "/v1/task/"+p, nil, nil, &out)
}

func (c *Client) ExecutionConstraints(ctx context.Context, taskID string) (*ExecutionProfile, error) {
	p, err := pathID(taskID)
	if err != nil {
		return nil, err
	}
	var out ExecutionProfile
	return &out, c.call(ctx, "GET", "/v1/task/"+p+"/execution-constraints", nil, nil, &out)
}

func (c *Client) Receipt(ctx context.Context, id string) (*Receipt, error) {
	p, err := pathID(id)
	if err != nil {
		return nil, err
	}
	var out Receipt
	return &out, c.call(ctx, "GET", "/v1/receipts/"+p, nil, nil, &out)
}

func (c *Client) Health(ctx context.Context) (*Health, error) {
	var out Health
	return &out, c.call(ctx, "GET", "/healthz", nil, nil, &out)
}
