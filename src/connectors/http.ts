import { createHash } from 'node:crypto';
import { Agent, request, type Dispatcher } from 'undici';
import { effectIdOf, outcomeOfStatus, scrub, UNCERTAIN, type ProviderOutcome } from './outcome.js';

/**
 * The one request a connector sends, before the credential is added. Integration plans it
 * from the surface's document (`PlannedRequest`); a connector only sends it.
 */
export interface ProviderRequest {
  method: Dispatcher.HttpMethod;
  /** path and query, to append to the surface's base URL */
  target: string;
  headers: Record<string, string>;
  body: string | null;
}

/** Where a planned request is sent: the surface's base URL and the planned target. */
export function providerUrl(baseUrl: string, plan: Pick<ProviderRequest, 'target'>): string {
  return `${baseUrl}${plan.target}`;
}

export interface HttpCall {
  surfaceId: string;
  baseUrl: string;
  request: ProviderRequest;
  auth: [name: string, value: string];
  timeoutMs: number;
  maxResponseBytes: number;
  effectId: string | null;
  returnBody: boolean;
}

// Failures that happen before a connection exists: the request certainly was not sent.
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
]);

function errorCode(err: unknown): string {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.cause?.code ?? e.code ?? '';
}

/**
 * The http adapter: one request per call, never retried, never redirected. Whatever goes
 * wrong becomes an outcome, not an exception: a call that may have reached the provider
 * is `unknown`, so no one mistakes it for one that did not.
 */
export class HttpConnector {
  private readonly agents = new Map<string, Agent>();

  private agent(call: HttpCall): Agent {
    let a = this.agents.get(call.surfaceId);
    if (!a) {
      a = new Agent({ connect: { timeout: Math.min(call.timeoutMs, 10_000) }, keepAliveTimeout: 4_000 });
      this.agents.set(call.surfaceId, a);
    }
    return a;
  }

  async execute(call: HttpCall): Promise<ProviderOutcome> {
    const deadline = AbortSignal.timeout(call.timeoutMs);
    const none = { status: null, effectId: null, digest: null, bytes: 0 };
    try {
      const res = await request(providerUrl(call.baseUrl, call.request), {
        method: call.request.method,
        headers: { ...call.request.headers, [call.auth[0]]: call.auth[1], accept: 'application/json' },
        body: call.request.body,
        dispatcher: this.agent(call),
        signal: deadline,
      });
      const status = res.statusCode;
      const chunks: Buffer[] = [];
      let bytes = 0;
      const declared = Number(res.headers['content-length'] ?? 0);
      let whole = !(declared > call.maxResponseBytes);
      if (whole) {
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          bytes += chunk.length;
          if (bytes > call.maxResponseBytes) {
            whole = false;
            break;
          }
          chunks.push(chunk);
        }
      }
      if (!whole) res.body.destroy();
      const body = whole ? Buffer.concat(chunks) : undefined;
      const verdict = outcomeOfStatus(status, whole, call.maxResponseBytes);
      // A provider that echoes the credential back must not hand it to the agent or the journal.
      const secrets = [call.auth[1], ...credentialParts(call)];
      let json: unknown;
      if (body && body.length > 0) {
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          json = undefined;
        }
      }
      return {
        ...verdict,
        sent: true,
        status,
        effectId:
          verdict.outcome === 'succeeded'
            ? (scrub(effectIdOf(json, call.effectId), secrets) as string | null)
            : null,
        digest: body ? createHash('sha256').update(body).digest('hex') : null,
        bytes,
        ...(call.returnBody && json !== undefined ? { body: scrub(json, secrets) } : {}),
      };
    } catch (err) {
      const code = errorCode(err);
      if (deadline.aborted) {
        return {
          ...none,
          outcome: 'unknown',
          sent: true,
          error: 'timeout',
          reason: `the provider did not answer within ${call.timeoutMs} ms; ${UNCERTAIN}`,
        };
      }
      if (NOT_SENT.has(code)) {
        return {
          ...none,
          outcome: 'failed',
          sent: false,
          error: 'not_sent',
          reason: `the provider could not be reached (${code}); the request was not sent`,
        };
      }
      const reset = ['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'].includes(code);
      return {
        ...none,
        outcome: 'unknown',
        sent: true,
        error: reset ? 'reset' : 'transport',
        reason: `${reset ? 'the connection to the provider was lost before its answer' : `the call to the provider failed (${code || 'transport error'})`}; ${UNCERTAIN}`,
      };
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((a) => a.close()));
    this.agents.clear();
  }
}

/** The secret inside the auth header value, in the forms a provider might echo back. */
function credentialParts(call: HttpCall): string[] {
  const v = call.auth[1];
  const m = /^(Bearer|Basic) (.+)$/.exec(v);
  if (!m) return [];
  const token = m[2] as string;
  return m[1] === 'Basic' ? [token, Buffer.from(token, 'base64').toString('utf8')] : [token];
}
