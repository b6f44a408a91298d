import { connect as tlsConnect } from 'node:tls';
import { Agent, request } from 'undici';
import { ERROR_CODES, EXTENSION_CODES, SvcError, type ErrorCode, type ErrorKind } from '../core/errors.js';
import { BodyTooLarge, MAX_DAEMON_ANSWER, readCappedBody } from '../io/capped-body.js';
import type { ClientConfig } from './config.js';

/** What came back: a status and a parsed JSON body, or a transport failure classified by safety. */
export type Exchange =
  | { kind: 'answer'; status: number; body: unknown; json: boolean }
  /** the request certainly never reached the daemon (refused connection, DNS, TLS trust) */
  | { kind: 'not_sent'; error: SvcError }
  /** the request may have reached the daemon: timeout, reset, a reply cut short */
  | { kind: 'lost'; reason: string; cause: unknown };

// Failures while connecting: nothing was written, so nothing can have been decided.
const BEFORE_SEND =
  /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_CONNECT_TIMEOUT|ERR_TLS_CERT_ALTNAME_INVALID|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_\w+|ERR_SSL_\w+|EPROTO)$/;
const TLS = /CERT|SELF_SIGNED|UNABLE_TO|SSL|EPROTO/;

function codeOf(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = e?.cause?.code ?? e?.code;
  return typeof code === 'string' ? code : '';
}

function messageOf(err: unknown): string {
  const e = err as { message?: unknown; cause?: { message?: unknown } };
  const m = e?.cause?.message ?? e?.message;
  return typeof m === 'string' ? m : String(err);
}

// How a TLS listener ends a plain-HTTP request: it closes the socket without an answer.
const CLOSED_UNANSWERED = /^(UND_ERR_SOCKET|ECONNRESET|EPIPE)$/;
const TLS_PROBE_MS = 3_000;

/**
 * Whether the listener at this address completes a TLS handshake. Only a probe: nothing is
 * sent over it and it is closed at once, so its certificate need not be trusted. A listener
 * that speaks TLS never read the plain-HTTP request as one, so that request was not sent.
 */
function speaksTls(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 80),
      rejectUnauthorized: false,
      timeout: TLS_PROBE_MS,
    });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** One undici pool per client: the deployment certificate is its only trust anchor when given. */
export class Transport {
  private readonly agent: Agent;

  constructor(readonly config: ClientConfig) {
    this.agent = new Agent({
      connect: config.ca !== undefined ? { ca: config.ca } : {},
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
    });
  }

  async send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Exchange> {
    const url = this.config.endpoint + path;
    let res;
    try {
      res = await request(url, {
        method,
        headers: {
          authorization: `Bearer ${this.config.token}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        dispatcher: this.agent,
      });
    } catch (err) {
      return await this.failure(err);
    }
    let text: string;
    try {
      text = (await readCappedBody(res, MAX_DAEMON_ANSWER)).toString('utf8');
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        return { kind: 'lost', reason: `the answer was refused unread: ${err.message}`, cause: err };
      }
      return { kind: 'lost', reason: `the answer was cut short: ${messageOf(err)}`, cause: err };
    }
    const type = String(res.headers['content-type'] ?? '');
    if (!type.includes('application/json'))
      return { kind: 'answer', status: res.statusCode, body: text, json: false };
    try {
      return {
        kind: 'answer',
        status: res.statusCode,
        body: text === '' ? {} : JSON.parse(text),
        json: true,
      };
    } catch {
      return { kind: 'answer', status: res.statusCode, body: text, json: false };
    }
  }

  private async failure(err: unknown): Promise<Exchange> {
    const code = codeOf(err);
    const detail = messageOf(err);
    const url = new URL(this.config.endpoint);
    // A TLS listener drops a plain-HTTP request unread: say which endpoint to set instead.
    if (url.protocol === 'http:' && CLOSED_UNANSWERED.test(code) && (await speaksTls(url))) {
      const https = `https://${url.host}${url.pathname.replace(/\/+$/, '')}`;
      return {
        kind: 'not_sent',
        error: new SvcError(
          'unavailable',
          `the daemon is not reachable at ${this.config.endpoint}: that address answers TLS, not plain HTTP`,
          {
            code: 'unreachable',
            cause: err,
            remedy: `set SVC_ENDPOINT=${https}, and SVC_CA_CERT to the deployment certificate (\`svc init\` printed it as ca_cert)`,
          },
        ),
      };
    }
    if (BEFORE_SEND.test(code)) {
      const tls = TLS.test(code) || TLS.test(detail);
      return {
        kind: 'not_sent',
        error: new SvcError(
          'unavailable',
          `the daemon is not reachable at ${this.config.endpoint}: ${detail}`,
          {
            code: 'unreachable',
            cause: err,
            remedy: tls
              ? 'trust the deployment certificate: set SVC_CA_CERT to the file `svc init` printed as ca_cert'
              : 'start it with `svc daemon start`, or point SVC_ENDPOINT at where it listens',
          },
        ),
      };
    }
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return { kind: 'lost', reason: `no answer within ${this.config.timeoutMs} ms`, cause: err };
    }
    return {
      kind: 'lost',
      reason: `the connection failed after the request was sent: ${detail}`,
      cause: err,
    };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
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

/** What a code looks like on the wire; anything else is not passed on. */
const DAEMON_CODE = /^[a-z][a-z0-9_]{0,63}$/;

/** The family a daemon code belongs to, when this client knows it as a daemon code. */
function kindOfCode(code: string): ErrorKind | undefined {
  if ((ERROR_CODES as readonly string[]).includes(code)) return code as ErrorKind;
  return Object.hasOwn(EXTENSION_CODES, code)
    ? EXTENSION_CODES[code as keyof typeof EXTENSION_CODES]
    : undefined;
}

/**
 * A daemon error body back in the coded family: the same code, reason, remedy and field.
 * The one reading of a daemon's refusal, for the SDK and the CLI alike: the family is the
 * code's own when the code is known (a 500 `internal` stays internal), else the status's;
 * the code is the daemon's.
 */
export function errorFromAnswer(status: number, body: unknown): SvcError {
  const b = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const code = str(b.code);
  const kind =
    (code !== undefined ? kindOfCode(code) : undefined) ??
    STATUS_KIND[status] ??
    (status < 500 ? 'invalid_request' : 'unavailable');
  const requestId = str(b.request_id);
  const reason =
    (str(b.reason) ?? `the daemon answered HTTP ${status}`) +
    (requestId ? ` (daemon request id ${requestId})` : '');
  const remedy = str(b.remedy);
  const field = str(b.field);
  return new SvcError(kind, reason, {
    // The daemon's word, passed on: its refusal codes (`policy_denied`, ...) and a newer
    // daemon's codes are not in this client's table, and a caller branches on them.
    code: code !== undefined && DAEMON_CODE.test(code) ? (code as ErrorCode) : kind,
    ...(remedy !== undefined ? { remedy } : {}),
    ...(field !== undefined ? { field } : {}),
  });
}

/**
 * What an answer means, for every client of the daemon (the SDK's methods, the CLI): a
 * success's JSON body, or the one error that answer maps to. `what` names the call.
 */
export function answerBody(ex: Extract<Exchange, { kind: 'answer' }>, what: string): unknown {
  if (ex.status >= 200 && ex.status < 300 && ex.json) return ex.body;
  if (!ex.json && ex.status < 400) {
    throw new SvcError(
      'unavailable',
      `${what}: HTTP ${ex.status} without the daemon's JSON body (an intermediary answered?)`,
      {
        code: 'invalid_response',
        remedy: 'check that SVC_ENDPOINT is the daemon itself',
      },
    );
  }
  throw errorFromAnswer(ex.status, ex.json ? ex.body : {});
}
