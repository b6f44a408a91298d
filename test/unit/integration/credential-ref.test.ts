import { describe, expect, it } from 'vitest';
import { formatCredentialRef, parseCredentialRef } from '../../../src/integration/credential-ref.js';

describe('credential references', () => {
  it('parse env, absolute file and secret references and format them back', () => {
    for (const text of ['env:CRM_TOKEN', 'file:/run/secrets/crm', 'secret:crm-token']) {
      expect(formatCredentialRef(parseCredentialRef('ref', text))).toBe(text);
    }
    expect(parseCredentialRef('ref', 'secret:crm-token')).toEqual({ kind: 'secret', name: 'crm-token' });
  });

  it('refuse anything else, naming the field', () => {
    for (const bad of [
      'CRM_TOKEN',
      'env:',
      'env:1X',
      'env:A-B',
      'file:relative',
      'secret:Upper',
      'vault:x',
      'file:/a\0b',
      '',
    ]) {
      expect(() => parseCredentialRef('credential_ref', bad), bad).toThrow(
        /^credential_ref: expected a credential reference/,
      );
    }
  });
});
