import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { decisionOutcome } from '../../../src/sdk/outcome.js';
import { clientConfig } from '../../../src/sdk/config.js';

const request = {
  tenant_id: 'acme',
  actor_id: 'bot',
  capability: 'notes.read',
  action: 'read',
  task_id: 't1',
  effect_key_step: 's1',
};
const answer = (status: number, body: unknown, json = true) =>
  decisionOutcome('action', request, { kind: 'answer', status, body, json });

describe('decision answers as typed outcomes', () => {
  it('an intermediary error or a body that is not the daemon’s is an unknown outcome, never a guess', () => {
    expect(answer(502, '<html>bad gateway</html>', false)).toMatchObject({
      kind: 'unknown',
      effect_key_step: 's1',
    });
    expect(answer(504, {})).toMatchObject({ kind: 'unknown' });
    expect(answer(200, { decision: 'refused' })).toMatchObject({ kind: 'unknown' });
    expect(decisionOutcome('action', request, { kind: 'lost', reason: 'reset', cause: null })).toMatchObject({
      kind: 'unknown',
      reason: expect.stringMatching(/reconcile/),
    });
  });

  it('a brokered 503 says whether the provider may have been called', () => {
    expect(
      answer(503, {
        code: 'outcome_not_recorded',
        reason: 'r',
        remedy: 'm',
        intent_id: 'int_1',
        executed: true,
      }),
    ).toMatchObject({ kind: 'failure', code: 'outcome_not_recorded', executed: true, intent_id: 'int_1' });
  });

  it('caller mistakes throw the daemon’s coded error; a connection never made throws', () => {
    expect(() =>
      answer(400, { code: 'invalid_request', reason: 'capability: bad', field: 'capability' }),
    ).toThrow(SvcError);
    const notSent = new SvcError('unavailable', 'down', { code: 'unreachable' });
    expect(() => decisionOutcome('action', request, { kind: 'not_sent', error: notSent })).toThrow('down');
  });

  it('configuration names the setting at fault', () => {
    expect(() => clientConfig({ env: {} })).toThrow(/SVC_TOKEN/);
    expect(() => clientConfig({ env: { SVC_TOKEN: 't', SVC_CA_CERT: '/nonexistent/ca.pem' } })).toThrow(
      /SVC_CA_CERT/,
    );
    expect(() => clientConfig({ env: { SVC_TOKEN: 't' }, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => clientConfig({ env: { SVC_TOKEN: 'svct_a\nInjected: 1' } })).toThrow(
      /SVC_TOKEN: expected the token/,
    );
    expect(clientConfig({ env: { SVC_TOKEN: ' t ' } })).toMatchObject({
      endpoint: 'http://127.0.0.1:8090',
      token: 't',
    });
  });
});
