import { readFile } from 'node:fs/promises';
import { lookup as dnsLookup } from 'node:dns/promises';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { rootCertificates } from 'node:tls';
import nodemailer from 'nodemailer';
import { emailSettings } from '../core/notify/destination-settings.js';
import { packageVersion } from '../http/version.js';
import type { SendContext } from './delivery-loop.js';
import { emailMessage, oneLine } from './email-message.js';
import { addressClass, allowListed } from './outbound-address.js';
import type { OutboundPolicy, SendOutcome } from './outbound-policy.js';
import type { Resolver } from './outbound-http.js';

export interface EmailOptions {
  /** how names are resolved; the system resolver unless a test gives its own */
  resolve?: Resolver;
}

type Address = { address: string; family: number };
type Checked = { ok: true; address: Address } | { ok: false; outcome: SendOutcome };

const systemResolve: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * The send-time check of the SMTP server's name, as outbound-http.ts checks a receiver's:
 * every address it resolves to must be public, or loopback when the deployment allows
 * receivers on this machine, or listed by the deployment; ANY refused address refuses the
 * send. The connection then goes to the first checked address, whatever DNS says later.
 */
async function checkHost(host: string, policy: OutboundPolicy, resolve: Resolver): Promise<Checked> {
  let addresses: Address[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = [...(await resolve(host))];
    } catch {
      return { ok: false, outcome: { kind: 'retry', status: null, error: 'dns' } };
    }
    if (addresses.length === 0) return { ok: false, outcome: { kind: 'retry', status: null, error: 'dns' } };
  }
  for (const { address } of addresses) {
    const cls = addressClass(address);
    if (cls === 'public') continue;
    if (cls === 'loopback' && policy.allowLoopbackHttp) continue;
    if (allowListed(policy.allowPrivate, host, address, cls)) continue;
    return { ok: false, outcome: { kind: 'refused', error: `${cls}_address` } };
  }
  return { ok: true, address: addresses[0]! };
}

/**
 * A TCP connection to the checked address; the TLS upgrade (STARTTLS) happens over it. The
 * deadline's abort destroys it even before it connects (a black-holed address never answers).
 */
function openSocket(address: Address, port: number, signal: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: address.address, port, family: address.family });
    // An error after the handshake is nodemailer's to report; none may go unhandled.
    socket.on('error', () => undefined);
    const abort = () => {
      socket.destroy();
      reject(new Error('deadline'));
    };
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    socket.once('connect', () => {
      signal.removeEventListener('abort', abort);
      resolve(socket);
    });
    socket.once('error', (err) => {
      signal.removeEventListener('abort', abort);
      reject(err);
    });
  });
}

// The certificate did not verify (unknown issuer, another name, expired): the codes Node's TLS gives.
const UNTRUSTED =
  /^(CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|ERR_TLS_CERT_ALTNAME_INVALID|HOSTNAME_MISMATCH)/;
const TLS = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_)/;

interface MailError {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  /** the system or TLS error's own code, kept by nodemailer */
  originalCode?: string;
}

/**
 * A short code for a failed attempt, never the server's text (which may quote what was
 * sent). Every SMTP rejection is retried, 4xx and 5xx alike: a 5xx for every recipient ends
 * in a dead letter through the schedule, so an administrator sees it and can redeliver.
 */
function failure(err: MailError, timedOut: boolean): SendOutcome {
  const code = err.code ?? '';
  const cause = err.originalCode ?? '';
  const reply = typeof err.responseCode === 'number' ? err.responseCode : null;
  if (timedOut || code === 'ETIMEDOUT' || code === 'EABORT')
    return { kind: 'retry', status: null, error: 'timeout' };
  if (code === 'EAUTH' || code === 'ENOAUTH') return { kind: 'retry', status: reply, error: 'auth_failed' };
  if (UNTRUSTED.test(cause)) return { kind: 'retry', status: null, error: 'tls_untrusted' };
  if (TLS.test(cause)) return { kind: 'retry', status: null, error: 'tls' };
  if (code === 'ETLS' || code === 'EREQUIRETLS') {
    // the server said no to STARTTLS (or never offered it): nothing was sent in the clear
    if (reply !== null || err.command === 'EHLO') {
      return { kind: 'retry', status: reply, error: 'starttls_unavailable' };
    }
    return { kind: 'retry', status: null, error: 'tls' };
  }
  if (reply !== null) return { kind: 'retry', status: reply, error: `smtp_${reply}` };
  if (code === 'EPROTOCOL') return { kind: 'retry', status: null, error: 'protocol' };
  return { kind: 'retry', status: null, error: 'connect' };
}

/**
 * An email sender bound to how it resolves names. The daemon uses `sendEmail` (the system
 * resolver); tests bind their own here. Trust roots are the system's plus the destination's
 * `caFile`; there is no way to turn verification off.
 */
export function emailSender(options: EmailOptions = {}) {
  const resolve = options.resolve ?? systemResolve;
  return async (ctx: SendContext): Promise<SendOutcome> => {
    const { destination, event, policy } = ctx;
    const settings = emailSettings(destination.settings);
    let u: URL;
    try {
      u = new URL(destination.url);
    } catch {
      return { kind: 'refused', error: 'bad_url' };
    }
    if (u.protocol !== 'smtp:' || u.username !== '' || u.password !== '')
      return { kind: 'refused', error: 'bad_url' };
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const port = u.port === '' ? 587 : Number(u.port);

    const ca = [...rootCertificates];
    if (settings.caFile !== null) {
      try {
        ca.push(await readFile(settings.caFile, 'utf8'));
      } catch {
        return { kind: 'retry', status: null, error: 'ca_unavailable' };
      }
    }
    // Opened only when a user is set: a destination without one never reads its secret.
    const auth =
      settings.username === null ? undefined : { user: settings.username, pass: (await ctx.secrets())[0]! };

    let socket: Socket | undefined;
    let timedOut = false;
    const abort = new AbortController();
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
      socket?.destroy();
    }, policy.timeoutMs);
    try {
      const checked = await Promise.race([
        checkHost(host, policy, resolve),
        new Promise<Checked>((done) =>
          abort.signal.addEventListener(
            'abort',
            () => done({ ok: false, outcome: { kind: 'retry', status: null, error: 'timeout' } }),
            { once: true },
          ),
        ),
      ]);
      if (!checked.ok) return checked.outcome;
      try {
        socket = await openSocket(checked.address, port, abort.signal);
      } catch {
        return { kind: 'retry', status: null, error: timedOut ? 'timeout' : 'connect' };
      }
      if (timedOut) return { kind: 'retry', status: null, error: 'timeout' };
      const connection = socket;
      const transport = nodemailer.createTransport({
        host,
        port,
        // STARTTLS on the submission port, always: never plain text, never implicit TLS here
        secure: false,
        requireTLS: true,
        ignoreTLS: false,
        opportunisticTLS: false,
        // the socket is ours, opened to the checked address: no DNS, no proxy in nodemailer
        getSocket: (_o: unknown, cb: (err: Error | null, s: { connection: Socket }) => void) =>
          cb(null, { connection }),
        tls: {
          // the certificate is verified for the host name, not the address connected to
          servername: isIP(host) === 0 ? host : undefined,
          ca,
          rejectUnauthorized: true,
          minVersion: 'TLSv1.2',
        },
        ...(auth ? { auth, forceAuth: true } : {}),
        connectionTimeout: policy.timeoutMs,
        greetingTimeout: policy.timeoutMs,
        socketTimeout: policy.timeoutMs,
        dnsTimeout: policy.timeoutMs,
        maxResponseSize: policy.maxResponseBytes,
        disableFileAccess: true,
        disableUrlAccess: true,
        logger: false,
        debug: false,
      } as Parameters<typeof nodemailer.createTransport>[0]);
      const message = emailMessage(event, settings.consoleUrl);
      const domain = settings.from.slice(settings.from.lastIndexOf('@') + 1);
      try {
        const info = (await transport.sendMail({
          from: settings.from,
          to: settings.to,
          subject: message.subject,
          text: message.text,
          // the event id, the same on every retry: a reader's client can tell a repeat
          messageId: `<${event.id}@${domain}>`,
          headers: {
            'X-Svc-Event-Id': oneLine(event.id, 100),
            'X-Svc-Event-Type': oneLine(event.type, 100),
            'Auto-Submitted': 'auto-generated',
          },
          xMailer: `svc/${oneLine(packageVersion(), 40)}`,
          signal: abort.signal,
        })) as { accepted?: unknown[]; response?: string };
        const reply = Number(/^\d{3}/.exec(info.response ?? '')?.[0] ?? 250);
        if ((info.accepted ?? []).length === 0)
          return { kind: 'retry', status: reply, error: `smtp_${reply}` };
        return { kind: 'delivered', status: reply };
      } catch (err) {
        return failure(err as MailError, timedOut);
      } finally {
        transport.close();
      }
    } finally {
      clearTimeout(timer);
      socket?.destroy();
    }
  };
}

/**
 * One email of `event` to an email destination over SMTP with STARTTLS required: the
 * server's name checked under the outbound policy, its certificate verified for that name,
 * authenticated with the destination's secret when a user is set.
 */
export const sendEmail = emailSender({});
