import { isIP } from 'node:net';
import { invalidField } from '../core/errors.js';

const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * `--notify-allow-private` entries, checked as the daemon starts so a typo stops the start
 * instead of leaving a destination refused in silence: a CIDR (`10.0.0.0/8`, `fd00::/8`),
 * a single address, or a host name as destination URLs write it.
 */
export function checkPrivateAllowance(field: string, entries: readonly string[]): string[] {
  return entries.map((raw) => {
    const entry = raw.trim().toLowerCase();
    const [addr, prefix, extra] = entry.split('/');
    const family = isIP(addr ?? '');
    if (prefix !== undefined) {
      const bits = family === 4 ? 32 : 128;
      if (family !== 0 && extra === undefined && /^\d{1,3}$/.test(prefix) && Number(prefix) <= bits)
        return entry;
    } else if (family !== 0 || HOST.test(entry)) return entry;
    throw invalidField(field, `a CIDR (10.0.0.0/8), an address or a host name, got "${raw}"`);
  });
}
