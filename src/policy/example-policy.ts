/**
 * The example policy set `svc quickstart` installs and the docs show. It names no verb, so
 * it validates whatever verbs a tenant's capabilities register; a test keeps it valid.
 */
export const EXAMPLE_POLICY = `// svc example policy set. Install: svc policy set --tenant T --file policy.cedar
// Amounts are in micro-dollars: 1 USD is 1000000.

// Agents may act on capabilities below tier 3.
@id("agents-below-tier-3")
permit (principal is Actor, action, resource is Capability)
when { principal.kind == "agent" && context.tier < 3 };

// Human operators may act on any capability.
@id("human-operators")
permit (principal is Actor, action, resource is Capability)
when { principal.kind == "human" && principal.roles.contains("operator") };

// No single action above 1000 USD, whoever asks.
@id("per-action-limit")
@reason("the amount is over the 1000 USD limit for a single action")
@remedy("split the work into actions of at most 1000 USD, or ask an operator to raise the limit in the tenant's policy")
forbid (principal, action, resource)
when { context.amount_micros > 1000000000 };

// An irreversible capability is used through the brokered route, where the daemon executes it.
@id("irreversible-brokered-only")
@reason("an irreversible capability may only be used through the brokered route")
@remedy("send the request to POST /v1/brokered instead of POST /v1/action")
forbid (principal, action, resource is Capability)
when { resource.irreversible && context.route != "brokered" };

// An agent acts only while an accountable human manager is on record.
@id("agents-need-a-manager")
@reason("an agent with no accountable manager on record may not act")
@remedy("ask an operator to record the agent's accountable human manager")
forbid (principal is Actor, action, resource)
when { principal.kind == "agent" && !(principal has manager) };
`;
