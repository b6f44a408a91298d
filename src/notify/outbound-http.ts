import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { createHash } from 'node:crypto';
import { Agent, request } from 'undici';
import { addressClass, allowListed } from './outbound-address.js';
import type { OutboundPolicy, SendOutcome } from './outbound-policy.js';

/** A name's addresses, as `dns.lookup(host, {all: true})` answers. */
export type Resolver = (host: string) => Promise<readonly { address: string; family: number }[]>;

export interface OutboundOptions {
  /** how names are resolved; the system resolver unless a test gives its own */
  resolve?: Resolver;
  /**
   * Trust roots REPLACING the system's, for a test's own CA (certificates are always
   * verified; there is no way to turn that off). The daemon never sets it.
   */
  ca?: string;
}

export interface OutboundPost {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A request whose answer the sender reads (a chat API's `ok`, a token, an activity id). */
export interface OutboundExchange extends OutboundPost {
  method: 'POST' | 'PUT';
}

/**
 * An attempt's outcome and, when the receiver answered within the size bound, its body. The
 * body is for the sender to parse and drop: never to log, record or quote in an error.
 */
export interface OutboundAnswer {
  outcome: SendOutcome;
  /** undefined when nothing was answered, or the answer went past `policy.maxResponseBytes` */
  body?: Buffer;
}

const systemResolve: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'ABORT_ERR',
]);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL_)/;

/** A short code for a failed attempt: never the message, which may quote a response. */
function failureCode(err: unknown, timedOut: boolean): string {
  if (timedOut) return 'timeout';
  const e = err as { name?: string; code?: string; cause?: { code?: string } };
  const code = e.cause?.code ?? e.code ?? '';
  if (TIMEOUT_CODES.has(code) || e.name === 'AbortError' || e.name === 'TimeoutError') return 'timeout';
  if (code === 'UND_ERR_HEADERS_OVERFLOW') return 'too_large';
  if (TLS_CODE.test(code)) return 'tls';
  return 'connect';
}

class Deadline {
  readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  expired = false;
  constructor(ms: number, onExpire: () => void) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort();
      onExpire();
    }, ms);
  }
  /** `p`, or a rejection when the deadline passes first (a hung resolver cannot hold us). */
  race<T>(p: Promise<T>): Promise<T> {
    return Promise.race([
      p,
      new Promise<T>((_, reject) => {
        if (this.controller.signal.aborted) reject(new Error('deadline'));
        this.controller.signal.addEventListener('abort', () => reject(new Error('deadline')), { once: true });
      }),
    ]);
  }
  clear(): void {
    clearTimeout(this.timer);
  }
}

type Checked =
  { ok: true; addresses: { address: string; family: number }[] } | { ok: false; outcome: SendOutcome };

/**
 * The send-time check: every address the name resolves to must be public, or loopback when
 * the deployment allows loopback receivers, or listed by the deployment. ANY refused address
 * refuses the send: a name answering one public and one private address would otherwise
 * reach the private one on a later connection.
 */
async function checkAddresses(
  u: URL,
  policy: OutboundPolicy,
  resolve: Resolver,
  deadline: Deadline,
): Promise<Checked> {
  const host = u.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = [...(await deadline.race(resolve(host)))];
    } catch {
      return {
        ok: false,
        outcome: { kind: 'retry', status: null, error: deadline.expired ? 'timeout' : 'dns' },
      };
    }
    if (addresses.length === 0) return { ok: false, outcome: { kind: 'retry', status: null, error: 'dns' } };
  }
  for (const { address } of addresses) {
    const cls = addressClass(address);
    if (u.protocol === 'http:' && !(cls === 'loopback' && policy.allowLoopbackHttp)) {
      return { ok: false, outcome: { kind: 'refused', error: 'http_not_allowed' } };
    }
    if (cls === 'public') continue;
    if (cls === 'loopback' && policy.allowLoopbackHttp) continue;
    if (allowListed(policy.allowPrivate, host, address, cls)) continue;
    return { ok: false, outcome: { kind: 'refused', error: `${cls}_address` } };
  }
  return { ok: true, addresses };
}

/**
 * A lookup that answers only the addresses already checked, whatever DNS says now: the
 * connection goes where the check looked, so a name re-bound between check and connect
 * cannot send the request elsewhere. TLS still verifies the certificate against the name.
 */
function pinnedLookup(addresses: readonly { address: string; family: number }[]): LookupFunction {
  return ((_host: string, opts: { all?: boolean } | number, cb: (...args: unknown[]) => void) => {
    const first = addresses[0]!;
    if (typeof opts === 'object' && opts?.all)
      cb(
        null,
        addresses.map((a) => ({ ...a })),
      );
    else cb(null, first.address, first.family);
  }) as unknown as LookupFunction;
}

/** How long a kept-alive connection to a receiver waits for the next attempt. */
const KEEP_ALIVE_MS = 4_000;
/** Receivers (origin and checked addresses) whose connections are kept at once. */
const MAX_AGENTS = 64;

/**
 * Connections kept alive between attempts, one agent per receiver origin AND the exact set
 * of addresses the attempt's own check allowed, pinned to them. An attempt reuses a
 * connection only when its check, made again at every attempt, allowed the same addresses
 * the connection was opened to: a name re-bound since then gets a new agent (and is checked
 * like any other), and a connection never outlives a check that would now refuse it by more
 * than the attempt that makes that check. A new TCP and TLS handshake per event would
 * otherwise cost more than the event. Bounded: the least recently used agent is closed.
 */
class AgentPool {
  private readonly agents = new Map<string, Agent>();

  get(
    u: URL,
    addresses: readonly { address: string; family: number }[],
    policy: OutboundPolicy,
    ca: string | undefined,
  ): Agent {
    const key = JSON.stringify([
      u.origin,
      addresses.map((a) => a.address),
      policy.timeoutMs,
      ca === undefined ? null : createHash('sha256').update(ca).digest('hex'),
    ]);
    let agent = this.agents.get(key);
    if (agent) {
      this.agents.delete(key);
    } else {
      agent = new Agent({
        connect: {
          timeout: policy.timeoutMs,
          lookup: pinnedLookup(addresses),
          ...(ca !== undefined ? { ca } : {}),
        },
        headersTimeout: policy.timeoutMs,
        bodyTimeout: policy.timeoutMs,
        maxHeaderSize: 16 * 1024,
        keepAliveTimeout: KEEP_ALIVE_MS,
        keepAliveMaxTimeout: KEEP_ALIVE_MS,
        pipelining: 1,
      });
      while (this.agents.size >= MAX_AGENTS) {
        const [oldest, old] = this.agents.entries().next().value as [string, Agent];
        this.agents.delete(oldest);
        void old.close().catch(() => undefined);
      }
    }
    this.agents.set(key, agent);
    return agent;
  }

  /** Close every kept connection (the daemon's stop, a test's end). */
  async close(): Promise<void> {
    const all = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(all.map((a) => a.destroy().catch(() => undefined)));
  }
}

const AGENTS = new AgentPool();

/** Close the connections kept alive to receivers. */
export const closeOutboundConnections = (): Promise<void> => AGENTS.close();

/**
 * One POST to a notification receiver, under the deployment's outbound policy. Never
 * redirected (a 3xx is a `redirect` retry; its Location is not read), bounded by
 * `policy.timeoutMs` for the whole attempt (resolving, connecting, TLS, headers, body), and
 * the answer read up to `policy.maxResponseBytes`, then the connection destroyed. Nothing of
 * the answer is kept, logged or returned beyond its status: the outcome is decided by the
 * status line, and the body is drained only so a well-behaved receiver sees a clean close.
 */
export async function postOutbound(
  post: OutboundPost,
  policy: OutboundPolicy,
  options: OutboundOptions = {},
): Promise<SendOutcome> {
  return (await exchangeOutbound({ ...post, method: 'POST' }, policy, options)).outcome;
}

/**
 * One request under the same policy as `postOutbound`, whose answer's body is handed back
 * when it fits `policy.maxResponseBytes` (a chat API answers 200 with `ok: false`, so the
 * status line alone does not say whether it worked).
 */
export async function exchangeOutbound(
  post: OutboundExchange,
  policy: OutboundPolicy,
  options: OutboundOptions = {},
): Promise<OutboundAnswer> {
  let u: URL;
  try {
    u = new URL(post.url);
  } catch {
    return { outcome: { kind: 'refused', error: 'bad_url' } };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    return { outcome: { kind: 'refused', error: 'bad_url' } };
  if (u.username !== '' || u.password !== '') return { outcome: { kind: 'refused', error: 'bad_url' } };

  let body: { destroy(): unknown } | undefined;
  const deadline = new Deadline(policy.timeoutMs, () => {
    body?.destroy();
  });
  try {
    const checked = await checkAddresses(u, policy, options.resolve ?? systemResolve, deadline);
    if (!checked.ok) return { outcome: checked.outcome };
    if (deadline.expired) return { outcome: { kind: 'retry', status: null, error: 'timeout' } };
    const agent = AGENTS.get(u, checked.addresses, policy, options.ca);
    let timedOut = false;
    try {
      const res = await request(u, {
        method: post.method,
        headers: post.headers,
        body: post.body,
        dispatcher: agent,
        signal: deadline.controller.signal,
      });
      body = res.body;
      const status = res.statusCode;
      const chunks: Buffer[] = [];
      let read = 0;
      let whole = false;
      try {
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          read += chunk.length;
          if (read > policy.maxResponseBytes) break;
          chunks.push(chunk);
        }
        whole = read <= policy.maxResponseBytes;
      } catch {
        // a body cut by the deadline or the receiver: the status line already answered
      }
      res.body.destroy();
      const answered = whole ? { body: Buffer.concat(chunks) } : {};
      if (status >= 200 && status < 300) return { outcome: { kind: 'delivered', status }, ...answered };
      if (status === 410) return { outcome: { kind: 'gone', status: 410 }, ...answered };
      if (status >= 300 && status < 400)
        return { outcome: { kind: 'retry', status, error: 'redirect' }, ...answered };
      return { outcome: { kind: 'retry', status, error: `status_${status}` }, ...answered };
    } catch (err) {
      timedOut = deadline.expired;
      return { outcome: { kind: 'retry', status: null, error: failureCode(err, timedOut) } };
    }
  } finally {
    deadline.clear();
    body?.destroy();
  }
}
