import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { Server as TlsServer, SecureContextOptions } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { createSecureContext } from 'node:tls';
import { SvcError } from '../core/errors.js';
import { tlsServerOptions } from './tls.js';

/** The files a TLS listener was started from, re-read on each reload. */
export interface TlsFiles {
  cert: string;
  key: string;
  clientCa?: string;
}

/** What a reload did: swapped in the new certificate, refused it (old kept), or had nothing to do. */
export type TlsReload =
  | { outcome: 'reloaded'; cert: string; subject: string; notAfter: string; fingerprint256: string }
  | { outcome: 'refused'; file: string; reason: string }
  | { outcome: 'none'; reason: string };

interface ReloadLog {
  info: (obj: object, msg: string) => void;
  warn: (obj: object, msg: string) => void;
}

type Checked = { options: SecureContextOptions; cert: X509Certificate } | { file: string; reason: string };

/**
 * Re-reads a listener's certificate, key and client CA and swaps them in with
 * `setSecureContext`: handshakes after the swap get the new context, connections already
 * open keep theirs. A new certificate that would not serve (unreadable, not PEM, expired
 * or not yet valid, a key that does not match) is refused and the old one kept. Reloads
 * run one at a time, in the order asked.
 */
export class TlsReloader {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly server: TlsServer | undefined,
    private readonly files: TlsFiles | undefined,
    private readonly log: ReloadLog,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  reload(): Promise<TlsReload> {
    const next = this.queue.then(() => this.reloadNow());
    this.queue = next.catch(() => undefined);
    return next;
  }

  private reloadNow(): TlsReload {
    if (this.server === undefined || this.files === undefined) {
      const reason = 'plain HTTP (--allow-insecure-http): no certificate to reload';
      this.log.info({}, `tls reload: ${reason}`);
      return { outcome: 'none', reason };
    }
    const checked = checkTlsFiles(this.files, this.clock());
    if ('reason' in checked) {
      this.log.warn(
        { file: checked.file, reason: checked.reason },
        `tls certificate reload refused, the old certificate is kept: ${checked.file}: ${checked.reason}`,
      );
      return { outcome: 'refused', ...checked };
    }
    this.server.setSecureContext(checked.options);
    const done = {
      outcome: 'reloaded' as const,
      cert: this.files.cert,
      subject: checked.cert.subject.replace(/\n/g, ', '),
      notAfter: new Date(checked.cert.validTo).toISOString(),
      fingerprint256: checked.cert.fingerprint256,
    };
    const { outcome: _o, ...fields } = done;
    this.log.info(fields, 'tls certificate reloaded');
    return done;
  }
}

/** The reloader of a fastify listener built with TLS from `files` (none: plain HTTP). */
export function tlsReloaderFor(app: FastifyInstance, files: TlsFiles | undefined): TlsReloader {
  // https.Server is a tls.Server: setSecureContext swaps the context for new handshakes.
  return new TlsReloader(files ? (app.server as unknown as TlsServer) : undefined, files, app.log);
}

/** The stderr line a reload leaves beside the listener's start line: what was reloaded, or why not. */
export function tlsReloadLine(who: string, r: TlsReload): string {
  switch (r.outcome) {
    case 'reloaded':
      return `${who}: tls certificate reloaded from ${r.cert} (subject ${r.subject}, not after ${r.notAfter}, sha256 ${r.fingerprint256})`;
    case 'refused':
      return `${who}: tls certificate reload refused, the old certificate is kept: ${r.file}: ${r.reason}`;
    case 'none':
      return `${who}: reload: ${r.reason}`;
  }
}

/** The checks a new certificate passes before it replaces the one being served. */
export function checkTlsFiles(files: TlsFiles, now: Date): Checked {
  let options: SecureContextOptions;
  try {
    options = tlsServerOptions(files);
  } catch (err) {
    const e = err as SvcError;
    const file =
      e instanceof SvcError && e.field === 'tls-key'
        ? files.key
        : e instanceof SvcError && e.field === 'client-ca'
          ? (files.clientCa ?? files.cert)
          : files.cert;
    return { file, reason: e.message };
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(options.cert as Buffer);
  } catch {
    return { file: files.cert, reason: 'not a PEM certificate' };
  }
  if (Date.parse(cert.validFrom) > now.getTime()) {
    return { file: files.cert, reason: `not valid before ${new Date(cert.validFrom).toISOString()}` };
  }
  if (Date.parse(cert.validTo) < now.getTime()) {
    return { file: files.cert, reason: `expired at ${new Date(cert.validTo).toISOString()}` };
  }
  try {
    if (!cert.checkPrivateKey(createPrivateKey(options.key as Buffer))) {
      return { file: files.key, reason: 'the key does not match the certificate' };
    }
  } catch {
    return { file: files.key, reason: 'not a PEM private key' };
  }
  if (files.clientCa !== undefined) {
    try {
      new X509Certificate(options.ca as Buffer);
    } catch {
      return { file: files.clientCa, reason: 'not a PEM certificate' };
    }
  }
  try {
    // What the listener will build from these options, built once here so a failure is ours.
    createSecureContext(options);
  } catch (err) {
    return { file: files.cert, reason: (err as Error).message };
  }
  return { options, cert };
}
