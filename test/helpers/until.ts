/**
 * Polls `probe` until it answers something other than undefined, for tests that wait on
 * another process (a daemon's log line, a readiness count). On time-out the error names what
 * was awaited and, when given, what `context` says about the state (a log tail, say).
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  context?: () => string,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${context ? `: ${context()}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
