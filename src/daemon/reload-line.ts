import type { DaemonReload } from './server.js';

/** The stderr line a reload leaves, beside the start line: what was reloaded, or why not. */
export function reloadLine(r: DaemonReload): string {
  const live = r.applied.length > 0 ? `; live settings applied: ${r.applied.join(', ')}` : '';
  switch (r.tls.outcome) {
    case 'reloaded':
      return `svc daemon: tls certificate reloaded from ${r.tls.cert} (subject ${r.tls.subject}, not after ${r.tls.notAfter}, sha256 ${r.tls.fingerprint256})${live}`;
    case 'refused':
      return `svc daemon: tls certificate reload refused, the old certificate is kept: ${r.tls.file}: ${r.tls.reason}${live}`;
    case 'none':
      return `svc daemon: reload: ${r.tls.reason}${live}`;
  }
}
