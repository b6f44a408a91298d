/**
 * What an approval binds, as the facts a human reads before deciding: one rendering for
 * every surface (the CLI, the console, and the chat and collaboration cards to come), so
 * none of them can leave out the params or show the amount without saying whose figure
 * it is. Input is the approval as the API shows it; output is label/value pairs of
 * single-line text (each surface escapes it its own way).
 */

export type AmountSourceText = 'requester_estimate' | 'capability_default' | 'params';

export interface BoundRequest {
  capability: string;
  action: string;
  amount_usd: number;
  amount_source: AmountSourceText | null;
  intent: string | null;
  requester_id: string;
  task_id: string;
  effect_key_step: string;
  params: Record<string, unknown> | null;
  /** the bound body; null when it was not kept (opened before it was, or redacted) */
  request: Record<string, unknown> | null;
  provider_request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    credential_header: string;
    body: string | null;
  } | null;
  request_digest: string;
}

export interface BindingFact {
  /** stable key for tests and markup */
  key: string;
  label: string;
  value: string;
}

/** How the amount is labelled wherever it is shown. */
export function amountLabel(source: AmountSourceText | null): string {
  switch (source) {
    case 'params':
      return 'amount (from the params)';
    case 'capability_default':
      return "amount (capability's default estimate)";
    case 'requester_estimate':
      return "amount (requester's estimate)";
    default:
      return 'amount (not verified)';
  }
}

// An approval whose body was not kept must not read as one without params.
function paramsText(a: BoundRequest): string {
  if (a.request === null) return '(not recorded: opened before svc kept request bodies, or redacted)';
  return a.params === null ? '(none)' : JSON.stringify(a.params);
}

export function approvalBinding(a: BoundRequest): BindingFact[] {
  const facts: BindingFact[] = [
    { key: 'capability', label: 'capability', value: `${a.capability} (${a.action})` },
    { key: 'amount', label: amountLabel(a.amount_source), value: `${a.amount_usd} USD` },
    { key: 'params', label: 'params', value: paramsText(a) },
  ];
  const p = a.provider_request;
  if (p) {
    facts.push({ key: 'provider', label: 'provider request', value: `${p.method} ${p.url}` });
    for (const [name, value] of Object.entries(p.headers)) {
      facts.push({ key: `header:${name}`, label: `  header ${name}`, value });
    }
    facts.push({
      key: 'credential',
      label: `  header ${p.credential_header}`,
      value: "(the surface's credential, added by the daemon; not shown)",
    });
    facts.push({ key: 'body', label: '  body', value: p.body ?? '(none)' });
  }
  facts.push(
    {
      key: 'intent',
      label: "intent (requester's words)",
      value: a.intent ?? '(none)',
    },
    { key: 'requester', label: 'requested by', value: a.requester_id },
    { key: 'task', label: 'task', value: `${a.task_id} step ${a.effect_key_step}` },
    { key: 'digest', label: 'request digest', value: a.request_digest },
  );
  return facts;
}
