import { SvcError } from '../core/errors.js';
import { MAX_PEM_FILE, readBoundedText } from '../io/bounded-file.js';
import { DEFAULT_ENDPOINT } from '../sdk/config.js';
import { answerBody, Transport } from '../sdk/transport.js';
import type { DaemonAddress } from '../store/daemon-address.js';

/**
 * Where `svc daemon start` listens by default: TLS with the deployment certificate. Not the
 * client default (that is the spec's `SVC_ENDPOINT` default, `DEFAULT_ENDPOINT`, shared with
 * the SDKs); a client that reaches it over plain HTTP is told to set this one.
 */
export const DAEMON_DEFAULT_URL = 'https://127.0.0.1:8090';
const TIMEOUT_MS = 30_000;

export interface ClientSettings {
  /** base URL without a trailing slash */
  endpoint: string;
  token: string;
  /** PEM text of the one certificate to trust for https */
  ca?: string;
  /** where the endpoint came from, when not a flag or SVC_ENDPOINT: said when it cannot be reached */
  source?: string;
}

/** What the local data dir says about its daemon (see store/daemon-address.ts). */
export interface LocalDaemon {
  /** the address the data dir's daemon recorded when it last started */
  address?: DaemonAddress | undefined;
  /** the file it was read from, named in errors */
  addressFile?: string | undefined;
  /** the data dir's deployment certificate, when it has one */
  deploymentCert?: string | undefined;
}

function parseEndpoint(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL('invalid:');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw new SvcError(
      'usage',
      `endpoint: expected the daemon's base URL, such as https://127.0.0.1:8090 (got ${raw})`,
      { field: 'endpoint' },
    );
  }
  return url;
}

const base = (url: URL): string => url.href.replace(/\/+$/, '');

/**
 * `--endpoint`/`SVC_ENDPOINT`, `SVC_TOKEN` and `--ca-cert`/`SVC_CA_CERT` (DESIGN.md). Without
 * an endpoint, the address the local data dir's daemon recorded, else the daemon's default;
 * without a CA, the certificate that daemon serves, so commands next to a quickstart just work.
 * The token comes only from the environment, never a flag, so it stays out of shell history
 * and process listings.
 */
export function clientSettings(
  flags: { endpoint?: string | undefined; 'ca-cert'?: string | undefined },
  env: NodeJS.ProcessEnv,
  local: LocalDaemon = {},
): ClientSettings {
  const explicit = flags.endpoint ?? (env.SVC_ENDPOINT || undefined);
  const url = parseEndpoint(explicit ?? local.address?.url ?? DEFAULT_ENDPOINT);
  const endpoint = base(url);
  const token = env.SVC_TOKEN;
  if (token === undefined || token.trim() === '') {
    throw new SvcError(
      'usage',
      'SVC_TOKEN is not set: commands that talk to the daemon authenticate with a bearer token',
      {
        remedy:
          'export SVC_TOKEN=<token>; an operator issues one with `svc token issue --tenant <tenant> --actor <you>`',
      },
    );
  }
  // The local daemon's certificate is trusted only for the local daemon's own address.
  const recorded = local.address !== undefined ? base(parseEndpoint(local.address.url)) : undefined;
  const localCa =
    recorded === endpoint
      ? (local.address?.ca_cert ?? undefined)
      : endpoint === DAEMON_DEFAULT_URL
        ? local.deploymentCert
        : undefined;
  const caFile = flags['ca-cert'] ?? (env.SVC_CA_CERT || undefined) ?? localCa;
  let ca: string | undefined;
  if (caFile !== undefined) {
    ca = readBoundedText('ca-cert', caFile, MAX_PEM_FILE, {
      code: 'usage',
      remedy:
        'point SVC_CA_CERT or --ca-cert at the deployment certificate (`svc init` prints it as ca_cert)',
    });
  }
  const source =
    explicit !== undefined
      ? undefined
      : local.address !== undefined
        ? `recorded in ${local.addressFile ?? 'the data dir'} by the daemon's last start`
        : 'the default';
  return {
    endpoint,
    token: token.trim(),
    ...(ca !== undefined ? { ca } : {}),
    ...(source ? { source } : {}),
  };
}

export type Query = Record<string, string | number | undefined>;

/**
 * The CLI's side of the daemon API, on the SDK's transport: one connection pool, JSON in
 * and out, and the SDK's one mapping from a daemon answer to a coded error.
 */
export class DaemonClient {
  private readonly transport: Transport;

  constructor(private readonly settings: ClientSettings) {
    // With a CA given, exactly that certificate is trusted: the system roots are not consulted.
    this.transport = new Transport({
      endpoint: settings.endpoint,
      token: settings.token,
      ca: settings.ca,
      timeoutMs: TIMEOUT_MS,
    });
  }

  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.send<T>('GET', path, query, undefined);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('POST', path, {}, body);
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  private async send<T>(method: 'GET' | 'POST', path: string, query: Query, body: unknown): Promise<T> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const qs = params.size > 0 ? `?${params.toString()}` : '';
    const ex = await this.transport.send(method, `${path}${qs}`, body);
    if (ex.kind === 'not_sent') throw this.notSent(ex.error);
    if (ex.kind === 'lost') {
      throw new SvcError('unavailable', `the daemon at ${this.settings.endpoint}: ${ex.reason}`, {
        code: 'outcome_unknown',
        cause: ex.cause,
        remedy:
          method === 'GET'
            ? 'try again'
            : 'the outcome is unknown: read the state back (for example `svc receipts list --task <task>`) before retrying',
      });
    }
    try {
      return answerBody(ex, `${method} ${path}`) as T;
    } catch (err) {
      throw tokenRefused(err);
    }
  }

  /** The transport's refusal, saying where the endpoint came from when no flag or SVC_ENDPOINT chose it. */
  private notSent(err: SvcError): SvcError {
    const { source } = this.settings;
    if (source === undefined) return err;
    return new SvcError(
      err.kind,
      err.reason.replace(this.settings.endpoint, `${this.settings.endpoint} (${source})`),
      {
        code: err.code,
        cause: err.cause,
        ...(err.remedy !== undefined ? { remedy: err.remedy } : {}),
      },
    );
  }
}

/** The refusals of the bearer token itself, which the CLI always takes from SVC_TOKEN. */
const TOKEN_REFUSALS: readonly string[] = ['unauthenticated', 'bad_token', 'missing_token', 'token_expired'];

/**
 * The daemon's remedy for a refused token speaks HTTP (send a bearer header); a CLI user
 * fixes it in the shell.
 */
function tokenRefused(err: unknown): unknown {
  if (!(err instanceof SvcError) || !TOKEN_REFUSALS.includes(err.code)) return err;
  return new SvcError(err.kind, err.reason, {
    code: err.code,
    cause: err.cause ?? err,
    remedy:
      'export SVC_TOKEN=<token> with a live token: an operator issues one with `svc token issue --tenant <tenant> --actor <you>` (for the demo: eval "$(svc quickstart --env)")',
  });
}

/** An id as one path segment, whatever it contains. */
export const segment = (id: string): string => encodeURIComponent(id);
