import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { DeploymentDocument } from '../../../src/provisioning/deployment-document.js';

function failure(text: string): SvcError {
  try {
    DeploymentDocument.parse(text, 'deploy.yaml');
  } catch (err) {
    if (err instanceof SvcError) return err;
    throw err;
  }
  throw new Error('expected the document to be refused');
}

const VALID = `version: 1
tenant: acme
capabilities:
  - name: crm.contacts
    tier: 1
    actions: [read]
    cost_usd: 0.01
tasks:
  - id: q3
    sponsor: bob
    budget_usd: 123456789012.123456
`;

describe('DeploymentDocument', () => {
  it('reads YAML, and JSON with the same schema', () => {
    const doc = DeploymentDocument.parse(VALID, 'deploy.yaml');
    expect(doc.content).toMatchObject({ version: 1, tenant: 'acme', tasks: [{ id: 'q3', sponsor: 'bob' }] });
    const json = DeploymentDocument.parse(JSON.stringify(doc.content, null, 2), 'deploy.json');
    expect(json.content.capabilities).toEqual(doc.content.capabilities);
  });

  it('gives money as written, not as the nearest double', () => {
    const doc = DeploymentDocument.parse(VALID, 'deploy.yaml');
    const budget = doc.content.tasks?.[0]?.budget_usd as number;
    expect(String(budget)).not.toBe('123456789012.123456');
    expect(doc.amount(['tasks', 0, 'budget_usd'], budget)).toBe('123456789012.123456');
    expect(doc.amount(['capabilities', 0, 'cost_usd'], 0.01)).toBe('0.01');
    expect(doc.amount(['tasks', 0, 'budget_usd'], '7.5')).toBe('7.5');
  });

  it('places a YAML syntax error at its line and column', () => {
    const err = failure('version: 1\ntenant: acme\nactors:\n  - id: a\n    kind: human\n   roles: [x]\n');
    expect(err.code).toBe('invalid_request');
    expect(err.reason).toMatch(
      /^deploy\.yaml is not a valid deployment document, 1 error:\n {2}deploy\.yaml:6:1: /,
    );
  });

  it('reports every shape error with its path and line', () => {
    const err = failure(
      [
        'version: 1',
        'tenant: acme',
        'capabilities:',
        '  - name: crm.contacts',
        '    tier: "one"',
        '    actions: [read]',
        '    colour: blue',
        'tasks:',
        '  - id: x',
        '    sponsor: bob',
        'policy: {text: "", file: p.cedar}',
      ].join('\n'),
    );
    expect(err.reason.split('\n').slice(1)).toEqual([
      '  deploy.yaml:5:11: capabilities[0].tier: expected number, got string "one"',
      '  deploy.yaml:7:5: capabilities[0].colour: unknown field (expected one of name, tier, irreversible, custody, actions, cost_usd, requestable, approvers, owners, surface, operation)',
      '  deploy.yaml:9:5: tasks[0].budget_usd: required',
      '  deploy.yaml:11:9: policy: expected exactly one of text (the policy itself) or file (a path relative to this document)',
    ]);
  });

  it('requires the format version and refuses duplicate keys', () => {
    expect(failure('tenant: acme\n').reason).toMatch(/deploy\.yaml:1:1: version: required/);
    expect(failure('version: 2\ntenant: acme\n').reason).toMatch(/deploy\.yaml:1:10: version: /);
    expect(failure('version: 1\ntenant: acme\ntenant: other\n').reason).toMatch(/deploy\.yaml:3:1: .*unique/);
    expect(failure('').reason).toMatch(/deploy\.yaml:1:1: \(document\): expected object, got nothing/);
  });

  it('bounds a long list of errors', () => {
    const entries = Array.from({ length: 25 }, (_, i) => `  - {id: t${i}}`).join('\n');
    const err = failure(`version: 1\ntenant: acme\ntasks:\n${entries}\n`);
    expect(err.reason).toMatch(/, 50 errors:\n/);
    expect(err.reason).toMatch(/\n {2}\(and 30 more\)$/);
  });

  it('places a validator error at the document key its flag name stands for', () => {
    const doc = DeploymentDocument.parse(VALID, 'deploy.yaml');
    const cost = doc.failIn(
      'capabilities',
      0,
      new SvcError('invalid_request', 'cost-usd: expected USD', { field: 'cost-usd' }),
    );
    expect(cost.reason).toBe('deploy.yaml:7:15: capabilities[0].cost_usd: expected USD');
    expect(cost.field).toBe('capabilities[0].cost_usd');
    const sponsor = doc.failIn(
      'tasks',
      0,
      new SvcError('conflict', 'sponsor: no', { field: 'sponsor', remedy: 'r' }),
    );
    expect(sponsor).toMatchObject({
      code: 'conflict',
      reason: 'deploy.yaml:10:14: tasks[0].sponsor: no',
      remedy: 'r',
    });
    // a key the entry does not have: the entry itself
    const owners = doc.failIn(
      'capabilities',
      0,
      new SvcError('invalid_request', 'owner: x', { field: 'owner' }),
    );
    expect(owners.reason).toBe('deploy.yaml:4:5: capabilities[0].owners: x');
  });
});
