import { invalidField, SvcError } from '../core/errors.js';

/** `127.0.0.1:8090`, `[::1]:8090` or `localhost:0` (0 asks the OS for a free port). */
export function parseListenAddress(text: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw invalidField('listen', 'host:port, such as 127.0.0.1:8090 or [::1]:8090');
  return { host: (m[1] ?? m[2]) as string, port };
}

/**
 * Why a listener could not bind, naming the address and the flag that moves it: a busy port
 * is not a passing condition that "try again shortly" would cure.
 */
export function listenError(listen: string, err: unknown, flag = '--listen'): SvcError {
  const busy = (err as NodeJS.ErrnoException | null)?.code === 'EADDRINUSE';
  let free = `${flag} 127.0.0.1:0`;
  try {
    const { host } = parseListenAddress(listen);
    free = `${flag} ${host.includes(':') ? `[${host}]` : host}:0`;
  } catch {
    // an address that does not parse is refused before any listen; keep the loopback example
  }
  return new SvcError(
    'unavailable',
    busy
      ? `cannot listen on ${listen}: the port is already in use (is another svc process running?)`
      : `cannot listen on ${listen}: ${(err as Error).message}`,
    {
      field: flag.replace(/^--/, ''),
      remedy: busy
        ? `stop what listens there, or choose another address with ${flag}, for example ${free} (a free port)`
        : `choose another address with ${flag}`,
      cause: err,
    },
  );
}
