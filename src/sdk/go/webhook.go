package svc

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// WebhookEvent is a verified webhook: ID is the webhook-id (deduplicate by it: delivery is
// at least once), the rest the body.
type WebhookEvent struct {
	ID        string                 `json:"id"`
	Type      string                 `json:"type"`
	Timestamp string                 `json:"timestamp"`
	Data      map[string]interface{} `json:"data"`
}

// WebhookTolerance is how far webhook-timestamp may be from now, either way, as Standard
// Webhooks libraries allow.
const WebhookTolerance = 5 * time.Minute

var unixSeconds = regexp.MustCompile(`^\d{1,15}$`)

// VerifyWebhook checks a webhook the daemon sent (Standard Webhooks 1.0) and returns its
// event. body is the request body exactly as received; secret the destination's whsec_
// secret. The error is an *Error with Code missing_signature, bad_timestamp (a replay),
// bad_signature, bad_request or invalid_request (a malformed secret).
func VerifyWebhook(headers http.Header, body []byte, secret string) (*WebhookEvent, error) {
	return VerifyWebhookAt(headers, body, secret, time.Now())
}

// VerifyWebhookAt is VerifyWebhook judged at the time now.
func VerifyWebhookAt(headers http.Header, body []byte, secret string, now time.Time) (*WebhookEvent, error) {
	key, err := webhookKey(secret)
	if err != nil {
		return nil, err
	}
	id, ts, sigs := headers.Get("webhook-id"), headers.Get("webhook-timestamp"), headers.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return nil, &Error{Code: "missing_signature", Reason: "expected the webhook-id, webhook-timestamp and webhook-signature headers", Status: 401}
	}
	if !unixSeconds.MatchString(ts) {
		return nil, &Error{Code: "bad_timestamp", Reason: "webhook-timestamp: expected unix seconds", Status: 401}
	}
	sent, _ := strconv.ParseInt(ts, 10, 64)
	skew := now.Unix() - sent
	if skew > int64(WebhookTolerance/time.Second) || -skew > int64(WebhookTolerance/time.Second) {
		return nil, &Error{Code: "bad_timestamp", Reason: fmt.Sprintf("webhook-timestamp: expected within %d s of now", int64(WebhookTolerance/time.Second)), Status: 401}
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	expected := mac.Sum(nil)
	// Any of the space-separated signatures may match (a rotation carries two).
	match := false
	for _, sig := range strings.Split(sigs, " ") {
		version, b64, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, expected) {
			match = true
		}
	}
	if !match {
		return nil, &Error{Code: "bad_signature", Reason: "webhook-signature: no v1 signature matches this secret", Status: 401}
	}
	var e WebhookEvent
	var probe struct {
		Type      *string                 `json:"type"`
		Timestamp *string                 `json:"timestamp"`
		Data      *map[string]interface{} `json:"data"`
	}
	if json.Unmarshal(body, &probe) != nil || probe.Type == nil || probe.Timestamp == nil || probe.Data == nil || *probe.Data == nil {
		return nil, &Error{Code: "bad_request", Reason: "body: expected {type, timestamp, data}", Field: "body"}
	}
	e.ID, e.Type, e.Timestamp, e.Data = id, *probe.Type, *probe.Timestamp, *probe.Data
	return &e, nil
}

func webhookKey(secret string) ([]byte, error) {
	bad := &Error{Code: "invalid_request", Reason: "secret: expected whsec_ followed by base64", Field: "secret"}
	if !strings.HasPrefix(secret, "whsec_") || len(secret) == len("whsec_") {
		return nil, bad
	}
	key, err := base64.StdEncoding.DecodeString(secret[len("whsec_"):])
	if err != nil || len(key) == 0 {
		return nil, bad
	}
	return key, nil
}
