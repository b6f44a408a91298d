import { describe, expect, it } from 'vitest';
import { planRequest, type OperationSpec } from '../../../src/integration/request-plan.js';
import { parseTemplate } from '../../../src/integration/template.js';

const op = (over: Partial<OperationSpec> = {}): OperationSpec => ({
  name: 'contacts.create',
  method: 'POST',
  path: parseTemplate('/teams/{team}/contacts'),
  query: [['source', parseTemplate('svc-{origin}')]],
  headers: [['x-request-tag', parseTemplate('{tag}')]],
  body: 'params',
  effectId: '/id',
  returnBody: false,
  amount: null,
  ...over,
});

const fieldOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return (err as { field?: string }).field;
  }
  return undefined;
};

describe('planRequest', () => {
  it('fills placeholders URL-encoded and sends the remaining params as the JSON body', () => {
    const p = planRequest(op(), { team: 'a/b c?', origin: 'x&y', tag: 't1', name: 'Ada', n: 2 });
    expect(p).toEqual({
      method: 'POST',
      target: '/teams/a%2Fb%20c%3F/contacts?source=svc-x%26y',
      headers: { 'x-request-tag': 't1', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ada', n: 2 }),
    });
  });

  it('names the param that does not fit', () => {
    const base = { team: 'a', origin: 'o', tag: 't' };
    expect(fieldOf(() => planRequest(op(), { origin: 'o', tag: 't' }))).toBe('params.team');
    expect(fieldOf(() => planRequest(op(), { ...base, team: ['x'] }))).toBe('params.team');
    expect(fieldOf(() => planRequest(op(), { ...base, team: '..' }))).toBe('params.team');
    expect(fieldOf(() => planRequest(op(), { ...base, team: '' }))).toBe('params.team');
    expect(fieldOf(() => planRequest(op(), { ...base, tag: 'a\r\nX-Evil: 1' }))).toBe('params.tag');
    expect(fieldOf(() => planRequest(op({ body: 'none' }), { ...base, extra: 1 }))).toBe('params.extra');
    expect(fieldOf(() => planRequest(op(), { ...base, team: Number.NaN }))).toBe('params.team');
  });

  it('turns numbers and booleans into text and sends no body when the operation takes none', () => {
    const p = planRequest(op({ method: 'GET', body: 'none', query: [], headers: [] }), { team: 7 });
    expect(p).toEqual({ method: 'GET', target: '/teams/7/contacts', headers: {}, body: null });
    expect(planRequest(op({ query: [], headers: [] }), { team: true }).body).toBe('{}');
  });

  it('parses templates strictly', () => {
    expect(parseTemplate('/a/{b}/c{d}')).toEqual([
      { literal: '/a/' },
      { param: 'b' },
      { literal: '/c' },
      { param: 'd' },
    ]);
    for (const bad of ['/a/{b', '/a/b}', '/{}', '/{a-b}', '/{{a}}'])
      expect(() => parseTemplate(bad), bad).toThrow();
  });
});
