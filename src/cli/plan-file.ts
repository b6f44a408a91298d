import { readFileSync } from 'node:fs';
import { SvcError } from '../core/errors.js';

/** The plan as JSON from a file; what it says is the daemon's to validate. */
export function readPlanFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new SvcError('usage', `plan: cannot read ${path}: ${(err as Error).message}`, { field: 'plan' });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new SvcError('usage', `plan: ${path} is not JSON (${(err as Error).message})`, {
      field: 'plan',
      remedy: 'write the plan as a JSON object, such as {"capabilities": ["crm.read"], "max_total_usd": 100}',
    });
  }
}
