import { concatBytes } from './bytes.js';
import type { Sha256 } from './crypto-provider.js';
import { encodeHex, encodeUtf8 } from './encoding.js';

export const LOG_ID_PREFIX = 'svc/log-id/1/';
const LOG_ID_DOMAIN = encodeUtf8('svc/log-id/1');

/** evidence-format.md §2: `"svc/log-id/1/" + hex(H(UTF8("svc/log-id/1") || 0x00 || UTF8(tenant_id)))`. */
export function logIdFor(tenantId: string, sha256: Sha256): string {
  if (tenantId.length === 0) throw new RangeError('a tenant id is not empty');
  return (
    LOG_ID_PREFIX + encodeHex(sha256(concatBytes(LOG_ID_DOMAIN, Uint8Array.of(0), encodeUtf8(tenantId))))
  );
}
