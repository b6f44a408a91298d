import { describe, expect, it } from 'vitest';
import { parseIntegrationDocument } from '../../../src/integration/document.js';

const VALID = `surfaces:
  - id: crm
    adapter: http
    base_url: http://127.0.0.1:9000/
    credential_ref: env:CRM_TOKEN
    auth: { type: bearer }
    timeout_ms: 5000
    operations:
      contacts.create:
        method: POST
        path: /contacts/{team}
        body: params
        effect_id: /id
`;

const errorOf = (text: string): string => {
  try {
    parseIntegrationDocument(text, 'ops.yaml');
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the document to be refused');
};

describe('integration-operations document', () => {
  it('reads the README shape, with defaults', () => {
    const d = parseIntegrationDocument(VALID, 'ops.yaml');
    const s = d.surfaces[0]!;
    expect(s).toMatchObject({
      id: 'crm',
      baseUrl: 'http://127.0.0.1:9000',
      credentialRef: 'env:CRM_TOKEN',
      auth: { type: 'bearer' },
      timeoutMs: 5000,
      maxResponseBytes: 1 << 20,
      tenants: null,
      check: null,
    });
    expect(s.operations.get('contacts.create')).toMatchObject({
      method: 'POST',
      body: 'params',
      effectId: '/id',
      path: [{ literal: '/contacts/' }, { param: 'team' }],
    });
  });

  it('reads JSON too, and lowercases a header credential name', () => {
    const json = JSON.stringify({
      surfaces: [
        {
          id: 'm',
          adapter: 'http',
          base_url: 'https://api.example.com/v2',
          credential_ref: 'secret:mail',
          auth: { type: 'header', name: 'X-Api-Key' },
          operations: { send: { method: 'GET', path: '/send' } },
        },
      ],
    });
    const s = parseIntegrationDocument(json, 'ops.json').surfaces[0]!;
    expect(s.auth).toEqual({ type: 'header', name: 'x-api-key' });
    expect(s.operations.get('send')!.body).toBe('none');
  });

  it('names the path, line and column of every error, in document order', () => {
    const bad = VALID.replace('env:CRM_TOKEN', 'CRM_TOKEN')
      .replace('/contacts/{team}', '/contacts/{te am}')
      .replace('effect_id: /id', 'effect_id: id\n        retries: 3');
    const msg = errorOf(bad);
    expect(msg).toContain('ops.yaml:5:21: surfaces[0].credential_ref: expected a credential reference');
    expect(msg).toMatch(
      /ops\.yaml:11:15: surfaces\[0\]\.operations\.contacts\.create\.path: a placeholder at character 11/,
    );
    expect(msg).toMatch(/ops\.yaml:13:20: .*effect_id: expected a JSON pointer/);
    expect(msg).toMatch(/ops\.yaml:14:9: .*retries: unknown field/);
    expect(msg.indexOf('credential_ref')).toBeLessThan(msg.indexOf('retries'));
  });

  it('refuses what would leak or misroute a credential', () => {
    expect(errorOf(VALID.replace('http://127.0.0.1:9000/', 'http://crm.example.com'))).toMatch(
      /base_url: plain http sends the credential in clear text/,
    );
    expect(() =>
      parseIntegrationDocument(
        VALID.replace('http://127.0.0.1:9000/', 'http://crm.example.com').replace(
          '    auth:',
          '    allow_insecure_http: true\n    auth:',
        ),
        'ops.yaml',
      ),
    ).not.toThrow();
    expect(errorOf(VALID.replace('http://127.0.0.1:9000/', 'https://u:p@crm.example.com'))).toMatch(
      /must not carry a user or password/,
    );
    expect(errorOf(VALID.replace('        body: params', '        headers: { Authorization: x }'))).toMatch(
      /headers\.Authorization: is set by the connector/,
    );
    expect(
      errorOf(
        VALID.replace('auth: { type: bearer }', 'auth: { type: header, name: X-Key }').replace(
          '        body: params',
          '        headers: { x-key: "{team}" }',
        ),
      ),
    ).toMatch(/is the credential header of this surface/);
    expect(errorOf(VALID.replace('env:CRM_TOKEN', 'file:relative/path'))).toMatch(
      /credential_ref: expected a credential reference/,
    );
    expect(errorOf(VALID.replace('/contacts/{team}', '/contacts?x=1'))).toMatch(
      /put query parameters under query/,
    );
  });

  it('refuses duplicate surfaces, duplicate keys, empty operations and YAML syntax errors with their line', () => {
    const twice = VALID + VALID.split('\n').slice(1).join('\n');
    expect(errorOf(twice)).toMatch(/ops\.yaml:14:9: surfaces\[1\]\.id: a second surface crm/);
    expect(
      errorOf(VALID.replace('    timeout_ms: 5000', '    timeout_ms: 5000\n    timeout_ms: 6000')),
    ).toMatch(/ops\.yaml:8:5: .*[Mm]ap keys must be unique/);
    expect(
      errorOf(
        'surfaces:\n  - id: x\n    adapter: http\n    base_url: http://localhost\n    credential_ref: env:A\n    auth: { type: basic }\n    operations: {}\n',
      ),
    ).toMatch(/surfaces\[0\]\.operations: expected at least one operation/);
    expect(errorOf('surfaces: [\n')).toMatch(
      /^ops\.yaml is not a valid integration-operations document:\n {2}ops\.yaml:2:1/,
    );
    expect(errorOf('surfaces: []')).toMatch(/surfaces: /);
    expect(errorOf(VALID.replace('timeout_ms: 5000', 'timeout_ms: 600000'))).toMatch(/timeout_ms: /);
  });
});
