import { tlsReloadLine } from '../http/tls-reload.js';
import type { DaemonReload } from './server.js';

/** The daemon's stderr line for a reload: the certificate's outcome, then the live settings applied. */
export function reloadLine(r: DaemonReload): string {
  const live = r.applied.length > 0 ? `; live settings applied: ${r.applied.join(', ')}` : '';
  return `${tlsReloadLine('svc daemon', r.tls)}${live}`;
}
