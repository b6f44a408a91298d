package svc

import (
	"encoding/json"
	"fmt"
)

// Error is the daemon's coded error, or the client's own: a stable Code, a Reason, and a
// Remedy when the smallest satisfying change can be named. Status is the HTTP status (0
// when the daemon never answered).
type Error struct {
	Code   string `json:"code"`
	Reason string `json:"reason"`
	Remedy string `json:"remedy,omitempty"`
	Field  string `json:"field,omitempty"`
	Status int    `json:"-"`
}

func (e *Error) Error() string {
	if e.Remedy == "" {
		return fmt.Sprintf("%s: %s", e.Code, e.Reason)
	}
	return fmt.Sprintf("%s: %s (remedy: %s)", e.Code, e.Reason, e.Remedy)
}

var statusCode = map[int]string{400: "invalid_request", 401: "unauthenticated", 403: "forbidden", 404: "not_found", 409: "conflict", 413: "payload_too_large", 503: "unavailable"}

func errorFromAnswer(status int, body []byte) *Error {
	var b struct {
		Code      string `json:"code"`
		Reason    string `json:"reason"`
		Remedy    string `json:"remedy"`
		Field     string `json:"field"`
		RequestID string `json:"request_id"`
	}
	_ = json.Unmarshal(body, &b)
	e := &Error{Code: b.Code, Reason: b.Reason, Remedy: b.Remedy, Field: b.Field, Status: status}
	if e.Code == "" {
		e.Code = statusCode[status]
		if e.Code == "" {
			e.Code = "unavailable"
			if status < 500 {
				e.Code = "invalid_request"
			}
		}
	}
	if e.Reason == "" {
		e.Reason = fmt.Sprintf("the daemon answered HTTP %d", status)
	}
	if b.RequestID != "" {
		e.Reason += fmt.Sprintf(" (daemon request id %s)", b.RequestID)
	}
	return e
}

func usage(field, reason, remedy string) *Error {
	return &Error{Code: "usage", Reason: field + ": " + reason, Remedy: remedy, Field: field}
}
