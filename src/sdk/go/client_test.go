package svc_test

// The Go SDK against a real daemon over TLS, started by test/e2e/sdk-go.test.ts with
// SVC_ENDPOINT, SVC_TOKEN (the agent), SVC_CA_CERT and the harness's SVC_TEST_* variables.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	svc "svc/sdk"
)

var ctx = context.Background()
var counter int64

func step() string {
	return fmt.Sprintf("go-%s-%d", os.Getenv("SVC_TEST_RUN"), atomic.AddInt64(&counter, 1))
}

func ask(capability, action string) svc.DecisionRequest {
	return svc.DecisionRequest{Capability: capability, Action: action, TaskID: os.Getenv("SVC_TEST_TASK"), EffectKeyStep: step()}
}

func clients(t *testing.T) (*svc.Client, *svc.Client) {
	t.Helper()
	for _, k := range []string{"SVC_ENDPOINT", "SVC_TOKEN", "SVC_CA_CERT", "SVC_TEST_APPROVER_TOKEN", "SVC_TEST_DROP_ENDPOINT", "SVC_TEST_LOCKED_ENDPOINT", "SVC_TEST_TASK", "SVC_TEST_REQUESTABLE", "SVC_TEST_RUN", "SVC_TEST_OPERATIONS"} {
		if os.Getenv(k) == "" {
			t.Fatalf("run these tests through test/e2e/sdk-go.test.ts; %s is not set", k)
		}
	}
	bot, err := svc.New(svc.Options{})
	must(t, err)
	bob, err := svc.New(svc.Options{Token: os.Getenv("SVC_TEST_APPROVER_TOKEN")})
	must(t, err)
	return bot, bob
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func expectKind(t *testing.T, out *svc.Outcome, err error, kind svc.Kind) *svc.Outcome {
	t.Helper()
	must(t, err)
	if out.Kind != kind {
		t.Fatalf("expected %s, got %+v", kind, out)
	}
	return out
}

func codeOf(err error) string {
	var e *svc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestMethodsAreTheDaemonOperations(t *testing.T) {
	clients(t)
	var ops []string
	must(t, json.Unmarshal([]byte(os.Getenv("SVC_TEST_OPERATIONS")), &ops))
	var mine []string
	client := reflect.TypeOf(&svc.Client{})
	for op, method := range svc.Methods {
		mine = append(mine, op)
		if _, ok := client.MethodByName(method); !ok {
			t.Errorf("no method %s for %s", method, op)
		}
	}
	sort.Strings(ops)
	sort.Strings(mine)
	if !reflect.DeepEqual(ops, mine) {
		t.Fatalf("operations %v, methods %v", ops, mine)
	}
}

func TestIdentityHealthCapabilities(t *testing.T) {
	bot, _ := clients(t)
	who, err := bot.Identity(ctx)
	must(t, err)
	if who != (svc.Identity{TenantID: "acme", ActorID: "bot"}) {
		t.Fatalf("identity %+v", who)
	}
	h, err := bot.Health(ctx)
	must(t, err)
	caps, err := bot.Capabilities(ctx)
	must(t, err)
	if h.Status != "ok" || len(caps.Capabilities) != 5 {
		t.Fatalf("health %+v capabilities %+v", h, caps)
	}
}

func TestAllowedGrantAndConflict(t *testing.T) {
	bot, _ := clients(t)
	req := ask("notes.read", "read")
	req.Intent = "read the notes"
	out, err := bot.Action(ctx, req)
	expectKind(t, out, err, svc.Allowed)
	if out.Request.ActorID != "bot" || out.Decision.Grant == nil {
		t.Fatalf("%+v", out)
	}
	presented, err := bot.PresentGrant(ctx, out.Decision.Grant.GrantID)
	must(t, err)
	effect, err := bot.GrantReceipt(ctx, out.Decision.Grant.GrantID, svc.EffectReport{Status: "succeeded", EffectID: "n-1"})
	must(t, err)
	if presented.PresentedBy != "bot" || effect.IntentID != out.Decision.IntentID || !effect.Observed {
		t.Fatalf("%+v %+v", presented, effect)
	}
	again, err := bot.Action(ctx, req)
	expectKind(t, again, err, svc.Conflict)
	if again.Code != "duplicate_effect" || again.IntentID != out.Decision.IntentID || again.PriorOutcome != "allowed" {
		t.Fatalf("%+v", again)
	}
}

func TestRefusedWithSealedReceiptAndFederate(t *testing.T) {
	bot, _ := clients(t)
	req := ask("notes.read", "read")
	amount := 5000.0
	req.AmountUSD = &amount
	out, err := bot.Action(ctx, req)
	expectKind(t, out, err, svc.Refused)
	if out.Code != "budget_exceeded" || !strings.Contains(out.Remedy, "budget") || out.Decision == nil {
		t.Fatalf("%+v", out)
	}
	receipt, err := bot.Receipt(ctx, out.Decision.Receipt.ReceiptID)
	must(t, err)
	if receipt.Allowed {
		t.Fatalf("%+v", receipt)
	}
	fed, err := bot.Federate(ctx, ask("notes.read", "read"))
	expectKind(t, fed, err, svc.Refused)
	if fed.Code != "no_federated_backend" || fed.Reason != "no federated backend" || fed.Decision != nil {
		t.Fatalf("%+v", fed)
	}
}

func TestDeferredApprovedResumed(t *testing.T) {
	bot, bob := clients(t)
	req := ask("payments.send", "write")
	one := 1.0
	req.AmountUSD = &one
	out, err := bot.Action(ctx, req)
	expectKind(t, out, err, svc.Deferred)
	a, err := bot.Approval(ctx, out.ApprovalID)
	must(t, err)
	if a.Status != "pending" {
		t.Fatalf("%+v", a)
	}
	still, err := bot.Resume(ctx, out.Request)
	expectKind(t, still, err, svc.Deferred)
	pending, err := bob.Approvals(ctx, svc.PageQuery{Status: "pending", Limit: 200})
	must(t, err)
	seen := false
	for _, p := range pending.Items {
		seen = seen || p.ApprovalID == out.ApprovalID
	}
	if !seen {
		t.Fatalf("approval %s not pending for the approver", out.ApprovalID)
	}
	_, err = bob.DecideApproval(ctx, out.ApprovalID, "approve", "ok")
	must(t, err)
	resumed, err := bot.Resume(ctx, out.Request)
	expectKind(t, resumed, err, svc.Allowed)
	if resumed.Decision.IntentID != out.Decision.IntentID {
		t.Fatalf("%+v", resumed)
	}
	if _, err := bot.Resume(ctx, out.Request); codeOf(err) != "no_deferral" {
		t.Fatalf("expected no_deferral, got %v", err)
	}
}

func TestBrokeredAndResumeBrokered(t *testing.T) {
	bot, bob := clients(t)
	req := ask("crm.contacts.create", "write")
	req.Params = map[string]any{"team": "sales", "name": "Ada"}
	out, err := bot.Brokered(ctx, req)
	expectKind(t, out, err, svc.Allowed)
	if p := out.Decision.Provider; p == nil || p.Outcome != "succeeded" || p.Status == nil || *p.Status != 201 {
		t.Fatalf("%+v", out.Decision.Provider)
	}
	purge := ask("crm.contacts.purge", "write")
	purge.Params = map[string]any{"team": "ops"}
	deferred, err := bot.Brokered(ctx, purge)
	expectKind(t, deferred, err, svc.Deferred)
	if deferred.Decision.Provider != nil {
		t.Fatalf("a deferral executed: %+v", deferred.Decision.Provider)
	}
	_, err = bob.DecideApproval(ctx, deferred.ApprovalID, "approve", "")
	must(t, err)
	resumed, err := bot.ResumeBrokered(ctx, deferred.Request)
	expectKind(t, resumed, err, svc.Allowed)
	if resumed.Decision.Provider == nil || resumed.Decision.Provider.Outcome != "succeeded" {
		t.Fatalf("%+v", resumed.Decision.Provider)
	}
}

func TestObservePassThrough(t *testing.T) {
	bot, _ := clients(t)
	out, err := bot.Action(ctx, ask("mail.send", "write"))
	expectKind(t, out, err, svc.Allowed)
	seen, err := bot.Observe(ctx, out.Decision.IntentID, svc.EffectReport{Status: "succeeded", EffectID: "mail-1"})
	must(t, err)
	if seen.EffectID == nil || *seen.EffectID != "mail-1" || !seen.Observed {
		t.Fatalf("%+v", seen)
	}
}

func TestAccessRequestCardEntitlementRevoke(t *testing.T) {
	bot, bob := clients(t)
	capability := os.Getenv("SVC_TEST_REQUESTABLE")
	catalogue, err := bot.Catalogue(ctx)
	must(t, err)
	listed := false
	for _, c := range catalogue {
		listed = listed || c.Name == capability
	}
	if !listed {
		t.Fatalf("%s not in the catalogue %+v", capability, catalogue)
	}
	made, err := bot.RequestAccess(ctx, capability, "monthly report", 3600)
	must(t, err)
	id := made.AccessRequest.AccessRequestID
	read, err := bot.AccessRequest(ctx, id)
	must(t, err)
	if read.Status != "pending" {
		t.Fatalf("%+v", read)
	}
	cards, err := bob.ManagerCards(ctx, "")
	must(t, err)
	var card string
	for _, c := range cards {
		if c.AccessRequestID == id {
			card = c.CardID
		}
	}
	decided, err := bob.DecideManagerCard(ctx, svc.CardDecision{CardID: card, Decision: "approve"})
	must(t, err)
	if decided.Entitlement == nil || decided.Entitlement.Status != "active" {
		t.Fatalf("%+v", decided)
	}
	held, err := bot.Entitlements(ctx, svc.PageQuery{Status: "active"})
	must(t, err)
	if len(held.Items) == 0 || held.Items[len(held.Items)-1].Capability != capability {
		t.Fatalf("%+v", held)
	}
	revoked, err := bot.RevokeAccessRequest(ctx, id, "done")
	must(t, err)
	if revoked.AccessRequest.Status != "revoked" {
		t.Fatalf("%+v", revoked)
	}
}

func TestTasksConstraintsReceiptPages(t *testing.T) {
	bot, _ := clients(t)
	task := os.Getenv("SVC_TEST_TASK")
	tasks, err := bot.Tasks(ctx, svc.PageQuery{})
	must(t, err)
	one, err := bot.Task(ctx, task)
	must(t, err)
	profile, err := bot.ExecutionConstraints(ctx, task)
	must(t, err)
	if len(tasks.Items) != 1 || one.Status != "active" || profile.Installed {
		t.Fatalf("%+v %+v %+v", tasks, one, profile)
	}
	for i := 0; i < 2; i++ {
		out, err := bot.Action(ctx, ask("notes.read", "read"))
		expectKind(t, out, err, svc.Allowed)
	}
	pages := bot.Receipts(svc.ReceiptsQuery{TaskID: task, Limit: 1})
	n, last := 0, int64(-1)
	for pages.Next(ctx) {
		n++
		for _, r := range pages.Page().Items {
			if r.Sequence <= last {
				t.Fatalf("out of order: %d after %d", r.Sequence, last)
			}
			last = r.Sequence
		}
	}
	must(t, pages.Err())
	if n < 2 {
		t.Fatalf("%d pages", n)
	}
}

func TestLostResponseIsUnknownAndReconciled(t *testing.T) {
	bot, _ := clients(t)
	lossy, err := svc.New(svc.Options{Endpoint: os.Getenv("SVC_TEST_DROP_ENDPOINT")})
	must(t, err)
	req := ask("notes.read", "read")
	out, err := lossy.Action(ctx, req)
	expectKind(t, out, err, svc.Unknown)
	if out.Request.EffectKeyStep != req.EffectKeyStep {
		t.Fatalf("%+v", out)
	}
	found, err := bot.Reconcile(ctx, req.TaskID, req.EffectKeyStep)
	must(t, err)
	if !found.Found || found.Outcome != "allowed" {
		t.Fatalf("%+v", found)
	}
	again, err := bot.Action(ctx, req)
	expectKind(t, again, err, svc.Conflict)
	if again.IntentID != found.IntentID {
		t.Fatalf("%+v", again)
	}
	none, err := bot.Reconcile(ctx, req.TaskID, "never-sent")
	must(t, err)
	if none.Found || !strings.Contains(none.Note, "does not prove") {
		t.Fatalf("%+v", none)
	}
}

func TestDaemonFailureCommitsNothing(t *testing.T) {
	bot, _ := clients(t)
	busy, err := svc.New(svc.Options{Endpoint: os.Getenv("SVC_TEST_LOCKED_ENDPOINT")})
	must(t, err)
	req := ask("notes.read", "read")
	out, err := busy.Action(ctx, req)
	expectKind(t, out, err, svc.Failure)
	if out.Status != 503 || out.Code != "unavailable" {
		t.Fatalf("%+v", out)
	}
	found, err := bot.Reconcile(ctx, req.TaskID, req.EffectKeyStep)
	must(t, err)
	if found.Found {
		t.Fatalf("%+v", found)
	}
	retried, err := bot.Action(ctx, req)
	expectKind(t, retried, err, svc.Allowed)
}

func TestUnreachableIsAnErrorNeverAnEmptyList(t *testing.T) {
	clients(t)
	gone, err := svc.New(svc.Options{Endpoint: "https://127.0.0.1:1"})
	must(t, err)
	if caps, err := gone.Capabilities(ctx); codeOf(err) != "unreachable" {
		t.Fatalf("expected unreachable, got %+v %v", caps, err)
	}
	env := map[string]string{"SVC_ENDPOINT": os.Getenv("SVC_ENDPOINT"), "SVC_TOKEN": os.Getenv("SVC_TOKEN")}
	untrusted, err := svc.New(svc.Options{Getenv: func(k string) string { return env[k] }})
	must(t, err)
	_, err = untrusted.Capabilities(ctx)
	var e *svc.Error
	if !errors.As(err, &e) || !strings.Contains(e.Remedy, "SVC_CA_CERT") {
		t.Fatalf("expected a remedy naming SVC_CA_CERT, got %v", err)
	}
	stranger, err := svc.New(svc.Options{Token: "svc_not-a-token"})
	must(t, err)
	if _, err := stranger.Capabilities(ctx); !errors.As(err, &e) || e.Status != 401 {
		t.Fatalf("expected 401, got %v", err)
	}
	if _, err := svc.New(svc.Options{Getenv: func(string) string { return "" }}); !errors.As(err, &e) || e.Field != "SVC_TOKEN" {
		t.Fatalf("expected SVC_TOKEN to be named, got %v", err)
	}
	if _, err := svc.New(svc.Options{Token: "svct_a\r\nInjected: 1"}); !errors.As(err, &e) || e.Code != "usage" || e.Field != "SVC_TOKEN" {
		t.Fatalf("expected a usage error naming SVC_TOKEN, got %v", err)
	}
}
