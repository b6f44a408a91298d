import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/core/actor.js';
import {
  observe,
  presentGrant,
  recordGrantEffect,
  type EffectOps,
  type IntentToObserve,
  type StoredGrant,
} from '../../../src/core/effect.js';
import type { ReportedEffect } from '../../../src/core/records/effect-record.js';
import { runSync } from '../../../src/core/use-case.js';
import type { JournalAppend } from '../../../src/evidence/journal-append.js';
import { refusal } from '../../helpers/coded-error.js';
import { appendTo } from '../../helpers/memory-journal.js';

const NOW = new Date('2026-03-01T10:00:00.000Z');
const clock = () => NOW;

const actor = (id: string): Actor => ({
  tenantId: 'acme',
  id,
  kind: 'agent',
  roles: [],
  managerId: null,
  certSubject: null,
  displayName: null,
  createdAt: NOW.toISOString(),
});
const bot = actor('bot');
const effect: ReportedEffect = { status: 'succeeded', effectId: 'fx_1', detail: null };

const grant = (more: Partial<StoredGrant> = {}): StoredGrant => ({
  intentId: 'int_1',
  actorId: 'bot',
  capability: 'payments.send',
  taskId: 't1',
  expiresAt: '2026-03-01T10:05:00.000Z',
  presentedBy: null,
  effectRecordedAt: null,
  action: 'send',
  tier: 2,
  ...more,
});

const intent = (more: Partial<IntentToObserve> = {}): IntentToObserve => ({
  taskId: 't1',
  actorId: 'bot',
  capability: 'crm.write',
  action: 'write',
  outcome: 'allowed',
  custody: 'pass_through',
  tier: 1,
  observed: false,
  ...more,
});

/** One grant `g_1` and one intent `int_1`, as the tables hold them; the guarded writes behave as the SQL does. */
function memory(g: StoredGrant | undefined, i: IntentToObserve | undefined) {
  const state = { grant: g && { ...g }, appended: [] as JournalAppend[] };
  const ops: EffectOps = {
    grant: (_t, id) => (id === 'g_1' ? state.grant && { ...state.grant } : undefined),
    intentToObserve: (_t, id) => (id === 'int_1' ? i : undefined),
    markPresented: (_t, id, by) => {
      if (id !== 'g_1' || !state.grant || state.grant.presentedBy !== null) return 0;
      state.grant.presentedBy = by;
      return 1;
    },
    markEffectRecorded: (_t, id, by, at) => {
      const s = state.grant;
      if (id !== 'g_1' || !s || s.presentedBy !== by || s.effectRecordedAt !== null) return 0;
      s.effectRecordedAt = at;
      return 1;
    },
    append: appendTo(state.appended),
  };
  return { ops, state };
}

describe('grants and observed effects: the use cases, once for both stores', () => {
  it('presents a grant once, to the actor it was minted for', () => {
    const { ops, state } = memory(grant(), undefined);
    expect(runSync(presentGrant('acme', 'g_1', bot, clock), ops)).toEqual({
      grantId: 'g_1',
      intentId: 'int_1',
      actorId: 'bot',
      capability: 'payments.send',
      action: 'send',
      taskId: 't1',
      expiresAt: '2026-03-01T10:05:00.000Z',
      presentedBy: 'bot',
      presentedAt: NOW.toISOString(),
    });
    expect(state.grant?.presentedBy).toBe('bot');
  });

  it('refuses each presentation it must, with its code and message', () => {
    const cases: [StoredGrant | undefined, string, Actor, object][] = [
      [undefined, 'g_1', bot, { code: 'unknown_grant', message: 'no such grant in this tenant' }],
      [grant(), 'g_1', actor('eve'), { code: 'unknown_grant', message: 'no such grant in this tenant' }],
      [
        grant({ expiresAt: NOW.toISOString() }),
        'g_1',
        bot,
        { kind: 'forbidden', code: 'grant_expired', message: `grant g_1 expired at ${NOW.toISOString()}` },
      ],
      [
        grant({ presentedBy: 'bot' }),
        'g_1',
        bot,
        { kind: 'conflict', code: 'grant_presented', message: 'grant g_1 was already presented by bot' },
      ],
    ];
    for (const [g, id, caller, expected] of cases) {
      const { ops, state } = memory(g, undefined);
      expect(refusal(presentGrant('acme', id, caller, clock), ops)).toMatchObject(expected);
      expect(state.grant?.presentedBy ?? null).toBe(g?.presentedBy ?? null);
    }
  });

  it('journals a presented grant’s effect once, and refuses the rest', () => {
    const { ops, state } = memory(grant({ presentedBy: 'bot' }), undefined);
    const receipt = runSync(recordGrantEffect('acme', 'g_1', bot, effect, clock), ops);
    expect(receipt.sequence).toBe(1);
    expect(state.appended).toHaveLength(1);
    expect(state.appended[0]).toMatchObject({
      kind: 'grant_effect',
      intentId: 'int_1',
      capability: 'payments.send',
    });
    expect(state.grant?.effectRecordedAt).toBe(NOW.toISOString());

    const cases: [StoredGrant | undefined, Actor, object][] = [
      [undefined, bot, { code: 'unknown_grant' }],
      [grant({ presentedBy: 'bot' }), actor('eve'), { code: 'unknown_grant' }],
      [
        grant(),
        bot,
        { kind: 'forbidden', code: 'grant_not_presented', message: 'grant g_1 is not presented by bot' },
      ],
      [
        grant({ presentedBy: 'bot', effectRecordedAt: NOW.toISOString() }),
        bot,
        {
          kind: 'conflict',
          code: 'effect_recorded',
          message: 'the effect of grant g_1 is already journaled',
        },
      ],
    ];
    for (const [g, caller, expected] of cases) {
      const m = memory(g, undefined);
      expect(refusal(recordGrantEffect('acme', 'g_1', caller, effect, clock), m.ops)).toMatchObject(expected);
      expect(m.state.appended).toEqual([]);
    }
  });

  it('journals the observed effect of the caller’s own allowed pass-through intent once, and refuses the rest', () => {
    const { ops, state } = memory(undefined, intent());
    runSync(observe('acme', 'int_1', bot, effect, clock), ops);
    expect(state.appended[0]).toMatchObject({ kind: 'observation', intentId: 'int_1', grantId: '' });

    const cases: [IntentToObserve | undefined, Actor, object][] = [
      [
        undefined,
        bot,
        { kind: 'not_found', code: 'unknown_intent', message: 'no such intent in this tenant' },
      ],
      [intent(), actor('eve'), { kind: 'forbidden', code: 'not_intent_actor' }],
      [
        intent({ custody: 'grant' }),
        bot,
        {
          code: 'not_pass_through',
          message:
            'capability crm.write is not under pass_through custody; observe reports only those effects',
        },
      ],
      [intent({ custody: null }), bot, { code: 'not_pass_through' }],
      [
        intent({ outcome: 'refused' }),
        bot,
        { code: 'intent_not_allowed', message: 'intent int_1 was not allowed (refused)' },
      ],
      [
        intent({ observed: true }),
        bot,
        { code: 'effect_recorded', message: 'the effect of intent int_1 is already journaled' },
      ],
    ];
    for (const [i, caller, expected] of cases) {
      const m = memory(undefined, i);
      expect(refusal(observe('acme', 'int_1', caller, effect, clock), m.ops)).toMatchObject(expected);
      expect(m.state.appended).toEqual([]);
    }
  });

  it('fails with a coded conflict when the grant changed between the read and the guarded write', () => {
    // Another writer presents the grant just before this presentation's write.
    const first = memory(grant(), undefined);
    const racedPresent: EffectOps = {
      ...first.ops,
      markPresented: (t, id, by, at) => {
        first.ops.markPresented(t, id, 'mallory', at);
        return first.ops.markPresented(t, id, by, at);
      },
    };
    expect(refusal(presentGrant('acme', 'g_1', bot, clock), racedPresent)).toMatchObject({
      kind: 'conflict',
      code: 'conflict',
      message:
        'the presentation of grant g_1 changed 0 rows, not one: the state it was decided on no longer holds; retry',
    });

    // Another writer journals the grant's effect just before this one's write.
    const second = memory(grant({ presentedBy: 'bot' }), undefined);
    const racedEffect: EffectOps = {
      ...second.ops,
      markEffectRecorded: (t, id, by, at) => {
        second.ops.markEffectRecorded(t, id, by, at);
        return second.ops.markEffectRecorded(t, id, by, at);
      },
    };
    expect(refusal(recordGrantEffect('acme', 'g_1', bot, effect, clock), racedEffect)).toMatchObject({
      kind: 'conflict',
      message:
        'the effect record of grant g_1 changed 0 rows, not one: the state it was decided on no longer holds; retry',
    });
    expect(second.state.appended).toEqual([]);
  });
});
