import { SvcError } from '../../core/errors.js';

/**
 * The provisioning use cases name a bad field by its CLI flag (`display-name`, `cost-usd`);
 * the console's bodies use JSON names (`display_name`, `cost_usd`). The same check runs,
 * and its error is renamed so the page can show it next to the field the operator typed in.
 */
export async function withFieldNames<T>(names: Record<string, string>, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const to = err instanceof SvcError && err.field !== undefined ? names[err.field] : undefined;
    if (!(err instanceof SvcError) || to === undefined || err.field === undefined) throw err;
    const from = err.field;
    const reason = err.reason.startsWith(`${from}:`)
      ? `${to}:${err.reason.slice(from.length + 1)}`
      : err.reason;
    throw new SvcError(err.kind, reason, {
      code: err.code,
      field: to,
      ...(err.remedy !== undefined ? { remedy: err.remedy } : {}),
      cause: err,
    });
  }
}
