import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAPABILITY_NAME, VERB } from '../../../src/core/capability.js';
import { SLUG } from '../../../src/core/ids.js';
import { firstMalformedString } from '../../../src/core/request-text.js';
import { acceptActionRequest } from '../../../src/api/action-request-fast.js';
import { ACTION_STEP, ActionRequestBody } from '../../../src/api/decision.js';

const lone = fc.constantFrom('\uD800', 'a\uDC00b', 'x\uDBFF');
const text = (maxLength: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.string({ maxLength, unit: 'grapheme' }) },
    { weight: 1, arbitrary: fc.string({ maxLength, unit: 'binary' }) },
    { weight: 1, arbitrary: lone },
  );
const json = fc.jsonValue({ maxDepth: 3 });
const params = fc.oneof(
  fc.dictionary(fc.string({ unit: 'grapheme' }), json),
  fc.dictionary(fc.oneof(fc.string(), lone), fc.oneof(json, lone)),
);

/** Bodies the schema accepts, mostly: every optional field sometimes absent. */
const body = fc.record(
  {
    tenant_id: fc.stringMatching(SLUG),
    actor_id: fc.stringMatching(SLUG),
    capability: fc.stringMatching(CAPABILITY_NAME),
    action: fc.stringMatching(VERB),
    task_id: fc.stringMatching(SLUG),
    effect_key_step: fc.stringMatching(ACTION_STEP),
    amount_usd: fc.double({ noNaN: true, noDefaultInfinity: true }),
    intent: text(520),
    params,
    correlation_id: text(220),
    trace_id: text(220),
  },
  {
    requiredKeys: ['tenant_id', 'actor_id', 'capability', 'action', 'task_id', 'effect_key_step'],
  },
);

const FIELDS = [
  'tenant_id',
  'actor_id',
  'capability',
  'action',
  'task_id',
  'effect_key_step',
  'amount_usd',
  'intent',
  'params',
  'correlation_id',
  'trace_id',
  'extra',
] as const;

/** A body with one field replaced by anything JSON can carry, or removed. */
const mutated = fc
  .tuple(
    body,
    fc.constantFrom(...FIELDS),
    fc.oneof(json, lone, fc.string(), fc.constant(undefined), fc.constant(null)),
  )
  .map(([b, field, value]) => {
    const copy: Record<string, unknown> = { ...b };
    if (value === undefined) delete copy[field];
    else copy[field] = value;
    return copy;
  });

/** What the route did before the fast path: the surrogate scan, then zod. */
function schemaPath(value: unknown): { ok: true; data: unknown } | { ok: false } {
  if (firstMalformedString(value, '') !== undefined) return { ok: false };
  const r = ActionRequestBody.safeParse(value);
  return r.success ? { ok: true, data: r.data } : { ok: false };
}

describe('acceptActionRequest', () => {
  it('accepts only what the schema accepts, with the schema’s exact output', () => {
    fc.assert(
      fc.property(fc.oneof(body, mutated, fc.anything()), (value) => {
        const fast = acceptActionRequest(value);
        if (fast === undefined) return;
        const slow = schemaPath(value);
        expect(slow.ok).toBe(true);
        if (!slow.ok) return;
        expect(fast).toStrictEqual(slow.data);
        expect(Object.keys(fast)).toEqual(Object.keys(slow.data as object));
      }),
      { numRuns: 3000 },
    );
  });

  it('takes every body the schema accepts (so decisions never pay for zod)', () => {
    fc.assert(
      // as the route receives them: what JSON.parse makes
      fc.property(
        body.map((b) => JSON.parse(JSON.stringify(b)) as unknown),
        (value) => {
          const slow = schemaPath(value);
          // Except an own `__proto__` in params, which the JSON guard refuses before the route.
          const params = (value as { params?: object }).params;
          const proto = params !== undefined && Object.hasOwn(params, '__proto__');
          expect(acceptActionRequest(value) !== undefined).toBe(slow.ok && !proto);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('leaves a params member named __proto__ to the schema path (zod assigns it, a copy would keep it)', () => {
    const value = JSON.parse(
      '{"tenant_id":"0","actor_id":"0","capability":"0","action":"a","task_id":"0","effect_key_step":"a","params":{"__proto__":[]}}',
    ) as unknown;
    expect(acceptActionRequest(value)).toBeUndefined();
  });

  it('leaves each refusal to the schema path', () => {
    const good = {
      tenant_id: 'acme',
      actor_id: 'bot',
      capability: 'notes.read',
      action: 'read',
      task_id: 'q3',
      effect_key_step: 's1',
    };
    expect(acceptActionRequest(good)).toEqual(good);
    const refused: unknown[] = [
      { ...good, extra: 1 },
      { ...good, tenant_id: 'Acme' },
      { ...good, amount_usd: '1' },
      { ...good, intent: 'x'.repeat(501) },
      { ...good, intent: 'a\uD800' },
      { ...good, params: [] },
      { ...good, params: { k: ['\uDC00'] } },
      { ...good, params: { '\uD800': 1 } },
      { ...good, trace_id: null },
      Object.assign(Object.create({ inherited: 1 }) as object, good),
      [good],
      null,
    ];
    for (const value of refused) expect(acceptActionRequest(value)).toBeUndefined();
  });
});
