// Types for the bench's paced generator (paced.mjs), for its unit test.
export function dueAt(i: number, rate: number): bigint;
export function quantile(sorted: ArrayLike<number>, q: number): number;
export function paced(
  url: string,
  options: {
    rate: number;
    seconds: number;
    request: { method: string; headers?: Record<string, string>; body: () => string };
    connections?: number;
    drainSeconds?: number;
  },
): Promise<{
  sent: number;
  answered: number;
  errors: number;
  achieved_rps: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  lag_p99_ms: number;
}>;
