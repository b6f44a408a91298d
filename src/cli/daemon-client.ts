import { Agent, request } from 'undici';
import { SvcError, type ErrorCode } from '../core/errors.js';
import { MAX_PEM_FILE, readBoundedText } from '../io/bounded-file.js';
import { BodyTooLarge, MAX_DAEMON_ANSWER, readCappedBody } from '../io/capped-body.js';
import type { DaemonAddress } from '../store/daemon-address.js';

/** Where `svc daemon start` listens by default: TLS with the deployment certificate. */
export const DEFAULT_ENDPOINT = 'https://127.0.0.1:8090';
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
      : endpoint === DEFAULT_ENDPOINT
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

const STATUS_KIND: Record<number, SvcError['kind']> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'payload_too_large',
  503: 'unavailable',
};

/** The daemon's coded error back in the coded family: same code, reason and remedy. */
export function errorFromResponse(status: number, body: unknown): SvcError {
  const b = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const kind = STATUS_KIND[status] ?? (status >= 400 && status < 500 ? 'invalid_request' : 'internal');
  const requestId = str(b.request_id);
  const reason =
    (str(b.reason) ?? `the daemon answered HTTP ${status}`) +
    (requestId ? ` (daemon request id ${requestId})` : '');
  const remedy = str(b.remedy);
  const field = str(b.field);
  return new SvcError(kind, reason, {
    // Passed through as the daemon sent it: a newer daemon may know codes this CLI does not.
    code: (str(b.code) ?? kind) as ErrorCode,
    ...(remedy !== undefined ? { remedy } : {}),
    ...(field !== undefined ? { field } : {}),
  });
}

const CERT_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME|UNABLE_TO_GET_ISSUER/;

/** A failure to reach the daemon is never an empty answer: it is `unavailable`, saying where. */
function unreachable(endpoint: string, err: unknown, source?: string): SvcError {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code ?? '';
  const detail = e.cause?.message ?? e.message ?? String(err);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new SvcError(
      'unavailable',
      `the daemon at ${endpoint} did not answer within ${TIMEOUT_MS / 1000}s`,
      {
        cause: err,
        remedy:
          'the outcome is unknown: read the state back (for example `svc receipts list --task <task>`) before retrying',
      },
    );
  }
  const tls = CERT_ERRORS.test(code) || CERT_ERRORS.test(detail);
  const where = source !== undefined ? `${endpoint} (${source})` : endpoint;
  return new SvcError('unavailable', `the daemon is not reachable at ${where}: ${detail}`, {
    cause: err,
    remedy: tls
      ? 'trust the deployment certificate: set SVC_CA_CERT (or --ca-cert) to the file `svc init` printed as ca_cert'
      : 'start it with `svc daemon start` (or `svc quickstart`), or point SVC_ENDPOINT (or --endpoint) at where it listens',
  });
}

export type Query = Record<string, string | number | undefined>;

/** The CLI's side of the daemon API: one connection pool, JSON in and out, coded errors. */
export class DaemonClient {
  private readonly agent: Agent;

  constructor(private readonly settings: ClientSettings) {
    // With a CA given, exactly that certificate is trusted: the system roots are not consulted.
    this.agent = new Agent({
      connect: settings.ca !== undefined ? { ca: settings.ca } : {},
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
  }

  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.send<T>('GET', path, query, undefined);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('POST', path, {}, body);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async send<T>(method: 'GET' | 'POST', path: string, query: Query, body: unknown): Promise<T> {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    const qs = params.size > 0 ? `?${params.toString()}` : '';
    const { endpoint } = this.settings;
    let status: number;
    let text: string;
    try {
      const res = await request(`${endpoint}${path}${qs}`, {
        method,
        dispatcher: this.agent,
        headers: {
          authorization: `Bearer ${this.settings.token}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      status = res.statusCode;
      text = (await readCappedBody(res, MAX_DAEMON_ANSWER)).toString('utf8');
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        throw new SvcError(
          'internal',
          `the server at ${endpoint} answered with more than ${err.limit} bytes`,
          {
            remedy: 'check that SVC_ENDPOINT points at an svc daemon',
          },
        );
      }
      throw unreachable(endpoint, err, this.settings.source);
    }
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new SvcError(
        'internal',
        `the server at ${endpoint} answered HTTP ${status} with something that is not JSON`,
        {
          remedy: 'check that SVC_ENDPOINT points at an svc daemon',
        },
      );
    }
    if (status < 200 || status > 299) throw errorFromResponse(status, parsed);
    return parsed as T;
  }
}

/** An id as one path segment, whatever it contains. */
export const segment = (id: string): string => encodeURIComponent(id);
