import { describe, expect, it } from 'vitest';
import { checkActorInput } from '../../../src/core/actor.js';
import { normalizeSubject, subjectOfAttributes } from '../../../src/core/cert-subject.js';
import { checkSlug } from '../../../src/core/ids.js';

const at = '2026-01-01T00:00:00.000Z';

describe('actors', () => {
  it('every agent names a manager; only humans carry roles; only agents name managers', () => {
    expect(() => checkActorInput({ tenantId: 't', id: 'a', kind: 'agent' }, at)).toThrow(/manager/);
    expect(() =>
      checkActorInput({ tenantId: 't', id: 'a', kind: 'agent', managerId: 'h', roles: ['approver'] }, at),
    ).toThrow(/role/);
    expect(() => checkActorInput({ tenantId: 't', id: 'h', kind: 'human', managerId: 'x' }, at)).toThrow(
      /manager/,
    );
    expect(() => checkActorInput({ tenantId: 't', id: 'h', kind: 'robot' }, at)).toThrow(
      /kind: expected one of agent, human, service/,
    );
    expect(() => checkActorInput({ tenantId: 't', id: 'h', kind: 'human', roles: ['root'] }, at)).toThrow(
      /role: expected/,
    );
    const h = checkActorInput({ tenantId: 't', id: 'h', kind: 'human', roles: ['approver', 'approver'] }, at);
    expect(h.roles).toEqual(['approver']);
  });

  it('ids are slugs', () => {
    for (const ok of ['a', 'acme', 'a.b_c-d', '0x', 'a'.repeat(63)]) expect(checkSlug('id', ok)).toBe(ok);
    for (const bad of ['', 'A', '-a', 'a b', 'a/b', 'a'.repeat(64), 'é', '../x'])
      expect(() => checkSlug('id', bad)).toThrow(/^id: expected a slug/);
  });

  it('certificate subjects normalise to one exact form', () => {
    expect(normalizeSubject('CN=billing, O=Acme')).toBe('CN=billing\nO=Acme');
    expect(normalizeSubject('cn=billing,o=Acme')).toBe('CN=billing\nO=Acme');
    expect(normalizeSubject('CN=billing\nO=Acme')).toBe('CN=billing\nO=Acme');
    expect(normalizeSubject('CN=a\\, b, O=Acme')).toBe('CN=a, b\nO=Acme');
    for (const bad of ['', 'billing', '=x', 'CN=', ',,'])
      expect(() => normalizeSubject(bad)).toThrow(/cert-subject/);
  });

  it("the operator's subject text is normalised once: layout goes, escaped spaces and case stay", () => {
    expect(normalizeSubject('  CN = billing ,  O=Acme  ')).toBe('CN=billing\nO=Acme');
    expect(normalizeSubject('CN=billing\\ , O=Acme')).toBe('CN=billing \nO=Acme');
    expect(normalizeSubject('CN=\\ billing')).toBe('CN= billing');
    expect(normalizeSubject('CN=Billing')).not.toBe(normalizeSubject('CN=billing'));
    // Aliases and OIDs name the attribute as a certificate's is named.
    expect(normalizeSubject('E=a@b.example, 2.5.4.3=bot, 1.3.6.1.4.1.1=x')).toBe(
      'EMAILADDRESS=a@b.example\nCN=bot\n1.3.6.1.4.1.1=x',
    );
    for (const bad of ['CN=a\\\nO=b', 'CN=a\u0000', 'C.N=a', '2.=a', '-CN=a'])
      expect(() => normalizeSubject(bad), JSON.stringify(bad)).toThrow(/cert-subject/);
  });

  it("a certificate's subject is written exactly, and refused when the text form cannot say it", () => {
    const cn = (value: string | undefined) => ({ oid: '2.5.4.3', value });
    const o = { oid: '2.5.4.10', value: 'acme' };
    expect(subjectOfAttributes([[cn('bot')], [o]])).toBe('CN=bot\nO=acme');
    expect(subjectOfAttributes([[cn('bot ')], [o]])).toBe('CN=bot \nO=acme');
    expect(subjectOfAttributes([[{ oid: '1.3.6.1.4.1.1', value: 'x' }]])).toBe('1.3.6.1.4.1.1=x');
    for (const bad of [[], [[cn('bot'), o]], [[cn(undefined)]], [[cn('a\nO=b')]], [[cn('')]], [[]]])
      expect(subjectOfAttributes(bad), JSON.stringify(bad)).toBeUndefined();
  });
});
