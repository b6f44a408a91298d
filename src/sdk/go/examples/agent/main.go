// An example agent: asks the daemon before acting, then reports what it decided.
//
//	go run ./examples/agent [capability] [action] [task]
//
// Configuration: SVC_ENDPOINT, SVC_TOKEN, SVC_CA_CERT. Capability, action and task come from
// the arguments, else SVC_EXAMPLE_CAPABILITY, SVC_EXAMPLE_ACTION and SVC_EXAMPLE_TASK, else
// the first capability the token may use (one not brokered first: those take parameters)
// and the first active task it can read.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	svc "svc/sdk"
)

func main() {
	ctx := context.Background()
	client, err := svc.New(svc.Options{})
	if err != nil {
		log.Fatal(err)
	}
	mine, err := client.Capabilities(ctx)
	if err != nil {
		log.Fatal(err)
	}
	arg := func(i int, env string) string {
		if len(os.Args) > i {
			return os.Args[i]
		}
		return os.Getenv(env)
	}
	wanted := arg(1, "SVC_EXAMPLE_CAPABILITY")
	var cap *svc.CapabilityEntry
	for i := range mine.Capabilities {
		c := &mine.Capabilities[i]
		if (wanted == "" && c.Custody != "brokered") || (wanted != "" && c.Name == wanted) {
			cap = c
			break
		}
	}
	if cap == nil && wanted == "" && len(mine.Capabilities) > 0 {
		cap = &mine.Capabilities[0]
	}
	if cap == nil {
		log.Fatalf("%s may use no capability %s", mine.ActorID, wanted)
	}
	task := arg(3, "SVC_EXAMPLE_TASK")
	if task == "" {
		tasks, err := client.Tasks(ctx, svc.PageQuery{Status: "active"})
		if err != nil || len(tasks.Items) == 0 {
			log.Fatalf("no active task: pass one as the third argument (%v)", err)
		}
		task = tasks.Items[0].TaskID
	}
	action := arg(2, "SVC_EXAMPLE_ACTION")
	if action == "" {
		action = cap.Actions[0]
	}
	req := svc.DecisionRequest{Capability: cap.Name, Action: action, TaskID: task,
		EffectKeyStep: fmt.Sprintf("example-%d", time.Now().UnixNano()), Intent: "example agent run"}
	fmt.Printf("%s asks to %s %s for task %s\n", mine.ActorID, action, cap.Name, task)
	decide := client.Action
	if cap.Custody == "brokered" {
		decide = client.Brokered
	}
	out, err := decide(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	switch out.Kind {
	case svc.Allowed:
		fmt.Printf("allowed: intent %s\n", out.Decision.IntentID)
	case svc.Deferred:
		fmt.Printf("deferred: waiting for approval %s; approve it (svc approvals approve %s), then resume with the same request\n", out.ApprovalID, out.ApprovalID)
	case svc.Refused:
		fmt.Printf("refused: %s (remedy: %s)\n", out.Reason, out.Remedy)
	case svc.Unknown:
		found, err := client.Reconcile(ctx, task, req.EffectKeyStep)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("outcome unknown; the journal says: %q\n", found.Outcome)
	default:
		fmt.Printf("%s: %s\n", out.Kind, out.Reason)
	}
}
