import { SvcError } from '../core/errors.js';
import { MAX_PEM_FILE, readBoundedText } from '../io/bounded-file.js';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:8090';
const DEFAULT_TIMEOUT_MS = 30_000;

export interface ClientOptions {
  /** the daemon's base URL; default `SVC_ENDPOINT`, else http://127.0.0.1:8090 */
  endpoint?: string;
  /** the bearer token; default `SVC_TOKEN`. Keep it out of source code. */
  token?: string;
  /** PEM text of the deployment certificate to trust for https */
  ca?: string;
  /** a file holding it; default `SVC_CA_CERT` */
  caFile?: string;
  /** how long to wait for an answer before the outcome counts as unknown (default 30 s) */
  timeoutMs?: number;
  /** where the defaults come from (default `process.env`) */
  env?: Record<string, string | undefined>;
}

export interface ClientConfig {
  endpoint: string;
  token: string;
  ca: string | undefined;
  timeoutMs: number;
}

const usage = (field: string, reason: string, remedy: string) =>
  new SvcError('usage', `${field}: ${reason}`, { field, remedy });

/** Options first, then `SVC_ENDPOINT`, `SVC_TOKEN` and `SVC_CA_CERT`; every mistake names its setting. */
export function clientConfig(options: ClientOptions = {}): ClientConfig {
  const env = options.env ?? process.env;
  const raw = options.endpoint ?? (env.SVC_ENDPOINT || DEFAULT_ENDPOINT);
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw usage(
      'SVC_ENDPOINT',
      `expected the daemon's base URL, such as https://127.0.0.1:8090 (got ${raw})`,
      'set SVC_ENDPOINT (or the endpoint option) to where `svc daemon start` listens',
    );
  }
  const token = (options.token ?? env.SVC_TOKEN ?? '').trim();
  if (token === '') {
    throw usage(
      'SVC_TOKEN',
      'not set: the daemon authenticates every agent request with a bearer token',
      'export SVC_TOKEN=<token>; an operator issues one with `svc token issue --tenant <tenant> --actor <agent>`',
    );
  }
  // A bearer token is printable ASCII without spaces; anything else could never be sent.
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw usage(
      'SVC_TOKEN',
      'expected the token exactly as issued (printable, no spaces)',
      'copy it again from `svc token issue`',
    );
  }
  let ca = options.ca;
  const caFile = options.caFile ?? (env.SVC_CA_CERT || undefined);
  if (ca === undefined && caFile !== undefined) {
    ca = readBoundedText('SVC_CA_CERT', caFile, MAX_PEM_FILE, {
      code: 'usage',
      remedy: 'point SVC_CA_CERT at the deployment certificate (`svc init` prints it as ca_cert)',
    });
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw usage(
      'timeoutMs',
      `expected a positive whole number of milliseconds (got ${timeoutMs})`,
      'omit it for 30 s',
    );
  }
  return { endpoint: url.href.replace(/\/+$/, ''), token, ca, timeoutMs };
}
