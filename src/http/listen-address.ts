import { invalidField } from '../core/errors.js';

/** `127.0.0.1:8090`, `[::1]:8090` or `localhost:0` (0 asks the OS for a free port). */
export function parseListenAddress(text: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw invalidField('listen', 'host:port, such as 127.0.0.1:8090 or [::1]:8090');
  return { host: (m[1] ?? m[2]) as string, port };
}
