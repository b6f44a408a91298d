/**
 * What the quickstart's demo is made of: ids the walk-through and the README name, and its
 * policy. Plain data, so the light paths (`svc quickstart --env`) load nothing else.
 */
export const DEMO = {
  tenant: 'demo',
  admin: 'admin',
  agent: 'demo-agent',
  task: 'demo-task',
  readable: 'demo.notes',
  irreversible: 'payments.refund',
  budgetUsd: 500,
  refundLimitUsd: 100,
} as const;

/**
 * A policy under which the demo agent reaches every outcome: reads are allowed, refunds
 * are permitted by policy but deferred to a human (the capability is irreversible), and
 * a refund over the limit is refused with its remedy.
 */
export const DEMO_POLICY = `// The quickstart's demo policy. Amounts are micro-dollars: 1 USD is 1000000.

// The demo agent may read the notes.
@id("demo-agent-reads-notes")
permit (principal == Actor::"${DEMO.agent}", action == Action::"read", resource == Capability::"${DEMO.readable}");

// It may refund customers too; the daemon still defers every refund to a human approver,
// because payments.refund is registered as irreversible.
@id("demo-agent-refunds")
permit (principal == Actor::"${DEMO.agent}", action == Action::"refund", resource == Capability::"${DEMO.irreversible}");

// Whoever asks, no single refund above ${DEMO.refundLimitUsd} USD.
@id("refund-limit")
@reason("a single refund is limited to ${DEMO.refundLimitUsd} USD")
@remedy("refund at most ${DEMO.refundLimitUsd} USD in one action, or ask an administrator to raise the limit in the policy (svc policy set)")
forbid (principal, action == Action::"refund", resource)
when { context.amount_micros > ${DEMO.refundLimitUsd * 1_000_000} };
`;
