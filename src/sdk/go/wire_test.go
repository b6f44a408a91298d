package svc_test

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	svc "svc/sdk"
)

// jsonFields lists the JSON names of a struct's fields, embedded structs flattened.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// The Go structs name exactly the fields of the daemon's OpenAPI schemas, so the two cannot drift.
func TestStructsMatchTheOpenAPIDocument(t *testing.T) {
	file := os.Getenv("SVC_TEST_OPENAPI")
	if file == "" {
		t.Fatal("run these tests through test/e2e/sdk-go.test.ts; SVC_TEST_OPENAPI is not set")
	}
	raw, err := os.ReadFile(file)
	must(t, err)
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	must(t, json.Unmarshal(raw, &doc))
	pairs := map[string]any{
		"ActionRequest":             svc.DecisionRequest{},
		"BrokeredDecision":          svc.Decision{},
		"ProviderOutcome":           svc.ProviderOutcome{},
		"CapabilityEntry":           svc.CapabilityEntry{},
		"CatalogueEntry":            svc.CatalogueEntry{},
		"EffectReceipt":             svc.EffectReceipt{},
		"Receipt":                   svc.Receipt{},
		"Task":                      svc.Task{},
		"ExecutionProfile":          svc.ExecutionProfile{},
		"Approval":                  svc.Approval{},
		"ApprovalDecisionResult":    svc.ApprovalDecisionResult{},
		"ProviderRequest":           svc.ProviderRequest{},
		"AccessRequest":             svc.AccessRequest{},
		"AccessReceipt":             svc.AccessReceipt{},
		"AccessStepResult":          svc.AccessStepResult{},
		"ManagerCard":               svc.ManagerCard{},
		"ManagerCardDecision":       svc.CardDecision{},
		"ManagerCardDecisionResult": svc.CardDecisionResult{},
		"Entitlement":               svc.Entitlement{},
		"Error":                     svc.Error{},
	}
	for schema, value := range pairs {
		props, ok := doc.Components.Schemas[schema]
		if !ok {
			t.Errorf("the OpenAPI document has no schema %s", schema)
			continue
		}
		var want []string
		for name := range props.Properties {
			want = append(want, name)
		}
		sort.Strings(want)
		got := jsonFields(reflect.TypeOf(value))
		if schema == "Error" {
			got = append(got, "request_id") // folded into Reason by the client
			sort.Strings(got)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Go fields %v, OpenAPI properties %v", schema, got, want)
		}
	}
}
