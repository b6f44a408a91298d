import { DEMO } from '../provisioning/demo-spec.js';

/** One agent request of the walk-through: the route under /v1 and the exact body. */
export interface TourRequest {
  route: 'action' | 'action/resume';
  body: Record<string, unknown>;
}

/**
 * The agent's three requests. `run` makes the effect keys of one walk-through, so a second
 * tour on the same data dir asks afresh instead of meeting its own earlier claims.
 */
export function tourRequests(run: string): { read: TourRequest; tooMuch: TourRequest; refund: TourRequest } {
  const who = { tenant_id: DEMO.tenant, actor_id: DEMO.agent, task_id: DEMO.task };
  const refund = (amount: number) => ({
    ...who,
    capability: DEMO.irreversible,
    action: 'refund',
    effect_key_step: `refund-order-1042-${run}`,
    amount_usd: amount,
    intent: 'refund order 1042',
  });
  return {
    read: {
      route: 'action',
      body: {
        ...who,
        capability: DEMO.readable,
        action: 'read',
        effect_key_step: `read-notes-${run}`,
        intent: 'read the notes on order 1042',
      },
    },
    // Over the policy's limit: refused, and a refusal claims nothing, so the same step is asked again below.
    tooMuch: { route: 'action', body: refund(DEMO.refundLimitUsd * 2.5) },
    refund: { route: 'action', body: refund(40) },
  };
}

/** POSIX single quotes: the value comes back byte for byte. */
export const shellQuote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

export interface DemoEnv {
  dataDir: string;
  endpoint: string;
  caCert: string;
  adminToken: string;
  agentToken: string;
}

/** `svc quickstart --env`: what a second terminal exports to follow the walk-through. */
export function envLines(e: DemoEnv): string[] {
  return [
    `export SVC_HOME=${shellQuote(e.dataDir)}`,
    `export SVC_ENDPOINT=${shellQuote(e.endpoint)}`,
    `export SVC_CA_CERT=${shellQuote(e.caCert)}`,
    `export SVC_TOKEN=${shellQuote(e.adminToken)}  # ${DEMO.admin}: administrator, operator, approver`,
    `export AGENT_TOKEN=${shellQuote(e.agentToken)}  # ${DEMO.agent}`,
  ];
}

/**
 * The walk-through as shell lines, runnable as printed (bash, curl, jq): the SDK-less way an
 * agent talks to the daemon, and the CLI for the human steps.
 */
export function walkthroughLines(dataDirArg?: string): string[] {
  const r = tourRequests('1');
  const act = (q: TourRequest) => `act ${q.route} ${shellQuote(JSON.stringify(q.body))}`;
  return [
    `eval "$(svc quickstart --env${dataDirArg ? ` ${dataDirArg}` : ''})"   # SVC_HOME, SVC_ENDPOINT, SVC_CA_CERT, SVC_TOKEN (${DEMO.admin}), AGENT_TOKEN (${DEMO.agent})`,
    `act() { curl -sS --cacert "$SVC_CA_CERT" -H "Authorization: Bearer $AGENT_TOKEN" -H 'content-type: application/json' "$SVC_ENDPOINT/v1/$1" -d "$2"; echo; }`,
    `# 1. allowed: the agent reads the notes (decision "allowed", a grant, a sealed receipt)`,
    act(r.read),
    `# 2. refused, with its remedy: a refund over the policy's ${DEMO.refundLimitUsd} USD limit (HTTP 403)`,
    act(r.tooMuch),
    `# 3. deferred: a 40 USD refund is irreversible, so a human must approve it (HTTP 202)`,
    act(r.refund),
    `# 4. approved with the CLI by ${DEMO.admin}, the approver`,
    `svc approvals list --status pending`,
    `svc approvals approve "$(svc approvals list --status pending --json | jq -r '.items[0].approval_id')" --note "order 1042 checked"`,
    `# 5. resumed: the identical request now passes`,
    act({ ...r.refund, route: 'action/resume' }),
    `# 6. receipts: every decision, sealed in the journal`,
    `svc receipts list --task ${DEMO.task}`,
    `# 7. evidence: export the journal and verify it offline against the pinned key`,
    `svc export --tenant ${DEMO.tenant} --out demo-export.jsonl`,
    `svc verify demo-export.jsonl --public-key "$(svc key show --tenant ${DEMO.tenant} --json | jq -r .public_key)"`,
  ];
}
