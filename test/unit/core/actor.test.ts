import { describe, expect, it } from 'vitest';
import { checkActorInput, normalizeSubject } from '../../../src/core/actor.js';
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
});
