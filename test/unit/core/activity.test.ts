import { describe, expect, it } from 'vitest';
import { firstHour, hourOf, summarizeActivity, type ActivityCount } from '../../../src/core/activity.js';

const row = (hour: string, kind: string, outcome: string, code: string, count: number): ActivityCount => ({
  hour,
  kind,
  outcome,
  code,
  count,
});

describe('summarizeActivity', () => {
  const now = new Date('2026-03-02T10:42:00.000Z');

  it('buckets a day of clock hours, oldest first, the current one last, with empty hours at zero', () => {
    expect(hourOf(now)).toBe('2026-03-02T10');
    expect(firstHour(now, 24)).toBe('2026-03-01T11');
    const s = summarizeActivity([row('2026-03-02T08', 'decision', 'allowed', '', 4)], now);
    expect(s.hours).toHaveLength(24);
    expect(s.hours[0]).toEqual({ hour: '2026-03-01T11', allowed: 0, refused: 0, deferred: 0 });
    expect(s.hours[21]).toEqual({ hour: '2026-03-02T08', allowed: 4, refused: 0, deferred: 0 });
    expect(s.hours[23]?.hour).toBe('2026-03-02T10');
    expect(s.thisHour).toEqual({ allowed: 0, refused: 0, deferred: 0 });
  });

  it('sums the day by outcome and ranks refusal codes and kinds, leaving out hours outside the day', () => {
    const s = summarizeActivity(
      [
        row('2026-03-01T10', 'decision', 'refused', 'too_old', 100), // before the day
        row('2026-03-01T11', 'decision', 'refused', 'not_permitted', 2),
        row('2026-03-02T09', 'decision', 'refused', 'budget_exceeded', 3),
        row('2026-03-02T10', 'decision', 'refused', 'not_permitted', 2),
        row('2026-03-02T10', 'decision', 'deferred', '', 1),
        row('2026-03-02T10', 'approval', 'approved', '', 1),
        row('2026-03-02T10', 'access', 'requested', '', 5),
        row('2026-03-02T11', 'decision', 'allowed', '', 9), // a clock ahead: not yet
      ],
      now,
      { topCodes: 1 },
    );
    expect(s.lastDay).toEqual({ allowed: 0, refused: 7, deferred: 1 });
    expect(s.thisHour).toEqual({ allowed: 0, refused: 2, deferred: 1 });
    expect(s.refusalCodes).toEqual([{ code: 'not_permitted', count: 4 }]);
    expect(s.byKind).toEqual([
      { kind: 'decision', count: 8 },
      { kind: 'access', count: 5 },
      { kind: 'approval', count: 1 },
    ]);
  });
});
