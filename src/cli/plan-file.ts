import { SvcError } from '../core/errors.js';
import { readBoundedText } from '../io/bounded-file.js';

/** A plan is a handful of capability names and limits. */
const MAX_PLAN_FILE = 1024 * 1024;

/** The plan as JSON from a file; what it says is the daemon's to validate. */
export function readPlanFile(path: string): unknown {
  const text = readBoundedText('plan', path, MAX_PLAN_FILE, { code: 'usage' });
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new SvcError('usage', `plan: ${path} is not JSON (${(err as Error).message})`, {
      field: 'plan',
      remedy: 'write the plan as a JSON object, such as {"capabilities": ["crm.read"], "max_total_usd": 100}',
    });
  }
}
