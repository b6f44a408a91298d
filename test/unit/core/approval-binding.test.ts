import { describe, expect, it } from 'vitest';
import { approvalBinding, type BoundRequest } from '../../../src/core/approval-binding.js';

const approval = (over: Partial<BoundRequest> = {}): BoundRequest => ({
  capability: 'pay.refund',
  action: 'write',
  amount_usd: 0.01,
  amount_source: 'requester_estimate',
  intent: 'refund 1 cent to customer 42',
  requester_id: 'bot',
  task_id: 'refunds',
  effect_key_step: 'refund-42',
  params: { amount_cents: 99999999, destination: 'acct-mallory' },
  request: { params: { amount_cents: 99999999, destination: 'acct-mallory' } },
  provider_request: {
    method: 'POST',
    url: 'https://pay.example/refunds',
    headers: { 'content-type': 'application/json' },
    credential_header: 'authorization',
    body: '{"amount_cents":99999999,"destination":"acct-mallory"}',
  },
  request_digest: 'a'.repeat(64),
  ...over,
});
const facts = (a: BoundRequest) => Object.fromEntries(approvalBinding(a).map((f) => [f.key, f]));

describe('what an approval binds, as every surface shows it', () => {
  it('shows the params and the provider request next to the amount, and says whose figure it is', () => {
    const f = facts(approval());
    expect(f.amount).toEqual({ key: 'amount', label: "amount (requester's estimate)", value: '0.01 USD' });
    expect(f.params!.value).toBe('{"amount_cents":99999999,"destination":"acct-mallory"}');
    expect(f.provider!.value).toBe('POST https://pay.example/refunds');
    expect(f['header:content-type']!.value).toBe('application/json');
    expect(f.credential!.value).toMatch(/not shown/);
    expect(f.body!.value).toContain('acct-mallory');
    expect(facts(approval({ amount_source: 'params' })).amount!.label).toBe('amount (from the params)');
    expect(facts(approval({ amount_source: 'capability_default' })).amount!.label).toBe(
      "amount (capability's default estimate)",
    );
  });

  it('never lets a body that was not kept read as a request without params', () => {
    expect(facts(approval({ params: null, request: {} })).params!.value).toBe('(none)');
    const old = facts(approval({ params: null, request: null, provider_request: null, amount_source: null }));
    expect(old.params!.value).toMatch(/^\(not recorded/);
    expect(old.amount!.label).toBe('amount (not verified)');
    expect(old.provider).toBeUndefined();
  });
});
