package svc

import (
	"encoding/json"
	"fmt"
)

// Kind names a typed outcome of a decision route.
type Kind string

const (
	Allowed  Kind = "allowed"  // 200: allowed (brokered: see Decision.Provider for what the provider did)
	Deferred Kind = "deferred" // 202: nothing authorized yet; resume with Request unchanged
	Refused  Kind = "refused"  // 403: Reason, Remedy, and the sealed receipt in Decision when sealed
	Conflict Kind = "conflict" // 409: the key is claimed or deferred; never bypass it with a new key
	Failure  Kind = "failure"  // 503 from the daemon: read Executed, reconcile before repeating
	Unknown  Kind = "unknown"  // timeout, reset, an intermediary's error: reconcile before any retry
)

// Outcome of a decision route. Request is the body exactly as sent: a resume or a
// documented retry sends it again unchanged.
type Outcome struct {
	Kind     Kind
	Route    string
	Request  DecisionRequest
	Decision *Decision
	// ApprovalID of a deferral waiting for approval
	ApprovalID string
	Code       string
	Reason     string
	Remedy     string
	// IntentID: a conflict's original intent, or a failure's intent to reconcile
	IntentID     string
	PriorOutcome string
	Status       int
	// Executed: on a brokered failure, whether the provider may have been called
	Executed  *bool
	RequestID string
}

func decisionOutcome(route string, req DecisionRequest, ex exchange) (*Outcome, error) {
	out := &Outcome{Route: route, Request: req, Status: ex.status}
	unknown := func(reason string) (*Outcome, error) {
		out.Kind = Unknown
		out.Reason = "outcome unknown: " + reason + "; reconcile by task_id and effect_key_step before any retry"
		return out, nil
	}
	if ex.notSent != nil {
		return nil, ex.notSent
	}
	if ex.lost != "" {
		return unknown(ex.lost)
	}
	if !ex.json {
		return unknown(fmt.Sprintf("HTTP %d without the daemon's JSON body (an intermediary answered?)", ex.status))
	}
	var b struct {
		Decision  string  `json:"decision"`
		IntentID  string  `json:"intent_id"`
		Code      string  `json:"code"`
		Reason    *string `json:"reason"`
		Remedy    string  `json:"remedy"`
		Outcome   string  `json:"outcome"`
		Executed  *bool   `json:"executed"`
		RequestID string  `json:"request_id"`
	}
	if err := json.Unmarshal(ex.body, &b); err != nil {
		return unknown(fmt.Sprintf("HTTP %d with a body that is not the daemon's", ex.status))
	}
	shaped := b.Decision != "" && b.IntentID != ""
	var d *Decision
	if shaped {
		d = &Decision{}
		if err := json.Unmarshal(ex.body, d); err != nil {
			return unknown("a decision body that does not parse: " + err.Error())
		}
	}
	out.Code, out.Remedy = b.Code, b.Remedy
	if b.Reason != nil {
		out.Reason = *b.Reason
	}
	switch {
	case ex.status == 200 && b.Decision == "allowed":
		out.Kind, out.Decision = Allowed, d
	case ex.status == 202 && b.Decision == "deferred":
		out.Kind, out.Decision = Deferred, d
		if d.Approval != nil {
			out.ApprovalID = d.Approval.ApprovalID
		}
	case ex.status == 403 && b.Reason != nil:
		out.Kind, out.Decision = Refused, d
		if out.Code == "" {
			out.Code = "refused"
		}
	case ex.status == 409 && b.Code != "":
		out.Kind, out.IntentID, out.PriorOutcome = Conflict, b.IntentID, b.Outcome
	case ex.status >= 500 && b.Code != "":
		out.Kind, out.IntentID, out.Executed, out.RequestID = Failure, b.IntentID, b.Executed, b.RequestID
	case ex.status >= 400 && ex.status < 500:
		return nil, errorFromAnswer(ex.status, ex.body)
	default:
		return unknown(fmt.Sprintf("HTTP %d is not an answer a decision route gives", ex.status))
	}
	return out, nil
}
