import { SvcError } from '../core/errors.js';
import { LOG_ID_PREFIX, logIdFor } from '../evidence/log-id.js';
import { sha256 } from '../evidence/node-crypto.js';
import { parseTrustedKey, splitPair } from '../verifier/trusted-keys.js';

/**
 * `--log-key LOG=KEY`: the log a witness accepts heads of, and the log key it pins. LOG is
 * the log id (`svc/log-id/1/…`) or a tenant id, from which the log id is derived (§2).
 */
export function parseLogKeys(args: readonly string[]): Map<string, Uint8Array> {
  const keys = new Map<string, Uint8Array>();
  for (const arg of args) {
    const [log, key] = splitPair('log-key', arg);
    const logId = log.startsWith(LOG_ID_PREFIX) ? log : logIdFor(log, sha256);
    if (keys.has(logId)) {
      throw new SvcError('usage', `--log-key: log ${log} is given twice; one key per log`, {
        field: 'log-key',
      });
    }
    keys.set(logId, parseTrustedKey(key, 'log-key'));
  }
  return keys;
}
