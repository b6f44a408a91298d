package svc

import (
	"context"
	"net/url"
	"strconv"
)

// ReceiptsQuery filters GET /v1/receipts; Limit 1 to 200 (0: the daemon's default).
type ReceiptsQuery struct {
	TaskID string
	Limit  int
}

// ReceiptPages walks every page of receipts in journal order:
//
//	pages := client.Receipts(svc.ReceiptsQuery{TaskID: "t1"})
//	for pages.Next(ctx) { use(pages.Page().Items) }
//	if err := pages.Err(); err != nil { ... }
type ReceiptPages struct {
	c      *Client
	q      ReceiptsQuery
	cursor string
	page   *Page[Receipt]
	err    error
	done   bool
}

func (c *Client) Receipts(q ReceiptsQuery) *ReceiptPages { return &ReceiptPages{c: c, q: q} }

// Next fetches the next page; false at the end or on an error (see Err).
func (p *ReceiptPages) Next(ctx context.Context) bool {
	if p.done {
		return false
	}
	v := url.Values{}
	if p.q.TaskID != "" {
		v.Set("task_id", p.q.TaskID)
	}
	if p.q.Limit != 0 {
		v.Set("limit", strconv.Itoa(p.q.Limit))
	}
	if p.cursor != "" {
		v.Set("cursor", p.cursor)
	}
	var page Page[Receipt]
	if err := p.c.call(ctx, "GET", "/v1/receipts", v, nil, &page); err != nil {
		p.err, p.done = err, true
		return false
	}
	p.page = &page
	if page.NextCursor == nil {
		p.done = true
	} else {
		p.cursor = *page.NextCursor
	}
	return true
}

func (p *ReceiptPages) Page() *Page[Receipt] { return p.page }
func (p *ReceiptPages) Err() error           { return p.err }

// Reconciled is what the journal says about one effect key of this caller.
type Reconciled struct {
	TaskID, EffectKeyStep string
	// Found: a decision receipt names the key. Not found does not prove nothing was committed.
	Found bool
	// Decision is the latest decision on the key (a resume seals a new one)
	Decision *Receipt
	Outcome  string
	IntentID string
	// Execution is the provider outcome journaled for a brokered intent, when there is one
	Execution *Receipt
	Receipts  []Receipt
	Note      string
}

// Reconcile finds, after an unknown outcome, this caller's decision for (taskID, step) in
// the task's receipts, as the spec's Errors table says.
func (c *Client) Reconcile(ctx context.Context, taskID, effectKeyStep string) (*Reconciled, error) {
	who, err := c.Identity(ctx)
	if err != nil {
		return nil, err
	}
	r := &Reconciled{TaskID: taskID, EffectKeyStep: effectKeyStep}
	pages := c.Receipts(ReceiptsQuery{TaskID: taskID, Limit: 200})
	for pages.Next(ctx) {
		for _, rc := range pages.Page().Items {
			if rc.ActorID == who.ActorID && rc.EffectKeyStep != nil && *rc.EffectKeyStep == effectKeyStep {
				r.Receipts = append(r.Receipts, rc)
			}
		}
	}
	if err := pages.Err(); err != nil {
		return nil, err
	}
	for i := range r.Receipts {
		if r.Receipts[i].Kind == "decision" {
			r.Decision = &r.Receipts[i]
		}
	}
	if r.Decision == nil {
		r.Note = "no receipt of this caller names the key: a missing receipt does not prove nothing was committed; give the task id and step to the operator before sending a new request"
		return r, nil
	}
	r.Found, r.Outcome, r.IntentID = true, r.Decision.Outcome, r.Decision.IntentID
	for i := range r.Receipts {
		if r.Receipts[i].Kind == "execution" && r.Receipts[i].IntentID == r.IntentID {
			r.Execution = &r.Receipts[i]
		}
	}
	r.Note = "found in the journal; a claim is not proof of downstream success (see Execution for a brokered call)"
	return r, nil
}
