/** Journal records of one clock hour (UTC), kind, outcome and refusal code, as the store counts them. */
export interface ActivityCount {
  /** `YYYY-MM-DDTHH`: the first 13 characters of the records' occurred_at */
  hour: string;
  kind: string;
  /** the record's outcome; '' when it names none */
  outcome: string;
  /** the record's refusal code; '' when it has none */
  code: string;
  count: number;
}

export const DECISION_OUTCOMES = ['allowed', 'refused', 'deferred'] as const;
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number];
export type OutcomeCounts = Record<DecisionOutcome, number>;

export interface ActivitySummary {
  /** one bucket per clock hour, oldest first; the last is the current hour, so far */
  hours: ({ hour: string } & OutcomeCounts)[];
  thisHour: OutcomeCounts;
  lastDay: OutcomeCounts;
  /** refusal codes of decisions over the day, most frequent first */
  refusalCodes: { code: string; count: number }[];
  /** every kind of record over the day, most frequent first */
  byKind: { kind: string; count: number }[];
}

const HOUR_MS = 3_600_000;

/** The `YYYY-MM-DDTHH` bucket a time falls in (UTC). */
export const hourOf = (t: Date): string => t.toISOString().slice(0, 13);

/** The first bucket of a day's worth of `hours` clock hours ending with the current one. */
export const firstHour = (now: Date, hours: number): string =>
  hourOf(new Date(now.getTime() - (hours - 1) * HOUR_MS));

const zero = (): OutcomeCounts => ({ allowed: 0, refused: 0, deferred: 0 });
const isOutcome = (o: string): o is DecisionOutcome => (DECISION_OUTCOMES as readonly string[]).includes(o);

function ranked<K extends string>(counts: Map<string, number>, key: K, top: number) {
  return [...counts]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .slice(0, top)
    .map(([name, count]) => ({ [key]: name, count }) as { [P in K]: string } & { count: number });
}

/**
 * A day of activity from the store's hourly counts: decisions by outcome per hour (hours
 * with none are zero), the current hour, the day, the day's top refusal codes and records by
 * kind. Pure: the counts and `now` come in.
 */
export function summarizeActivity(
  rows: readonly ActivityCount[],
  now: Date,
  opts: { hours?: number; topCodes?: number } = {},
): ActivitySummary {
  const span = opts.hours ?? 24;
  const since = firstHour(now, span);
  const current = hourOf(now);
  const hours = Array.from({ length: span }, (_, i) => ({
    hour: hourOf(new Date(now.getTime() - (span - 1 - i) * HOUR_MS)),
    ...zero(),
  }));
  const byHour = new Map(hours.map((h) => [h.hour, h]));
  const codes = new Map<string, number>();
  const kinds = new Map<string, number>();
  const lastDay = zero();
  for (const r of rows) {
    if (r.hour < since || r.hour > current) continue;
    kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + r.count);
    if (r.kind !== 'decision' || !isOutcome(r.outcome)) continue;
    const bucket = byHour.get(r.hour);
    if (bucket) bucket[r.outcome] += r.count;
    lastDay[r.outcome] += r.count;
    if (r.outcome === 'refused' && r.code !== '') codes.set(r.code, (codes.get(r.code) ?? 0) + r.count);
  }
  const last = hours[hours.length - 1]!;
  return {
    hours,
    thisHour: { allowed: last.allowed, refused: last.refused, deferred: last.deferred },
    lastDay,
    refusalCodes: ranked(codes, 'code', opts.topCodes ?? 5),
    byKind: ranked(kinds, 'kind', kinds.size),
  };
}
