import { readFileSync } from 'node:fs';
import { SvcError } from '../core/errors.js';

/**
 * Read an operator's input file (a policy, a deployment document) as UTF-8. Bounded so a
 * wrong path (a log, a disk image) fails at once instead of filling memory.
 */
export function readTextFile(field: string, path: string, maxBytes = 1 << 20): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT') throw new SvcError('not_found', `${field}: ${path} does not exist`, { field });
    throw new SvcError('invalid_request', `${field}: cannot read ${path} (${code ?? String(err)})`, {
      field,
    });
  }
  if (bytes.length > maxBytes) {
    throw new SvcError('invalid_request', `${field}: ${path} is larger than ${maxBytes} bytes`, { field });
  }
  try {
    // A byte-order mark is dropped; anything that is not UTF-8 is refused, never replaced.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SvcError('invalid_request', `${field}: ${path} is not UTF-8 text`, { field });
  }
}
