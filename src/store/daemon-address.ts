import { X509Certificate } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { DataDir } from './data-dir.js';

/**
 * Where the data dir's daemon last listened, so CLI commands next to it reach it without
 * SVC_ENDPOINT. Written by the daemon once it listens; it holds no secret.
 */
export interface DaemonAddress {
  /** the base URL a client on this machine connects to (a wildcard host becomes loopback) */
  url: string;
  tls: boolean;
  mutual_tls: boolean;
  /** the certificate a client trusts for `url`, when the daemon serves a self-signed one */
  ca_cert: string | null;
  pid: number;
  started_at: string;
}

export const daemonAddressFile = (dir: DataDir): string => join(dir.root, 'daemon.json');

/** A wildcard listen address is reached on loopback from this machine. */
export function clientHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** A certificate that signs itself is its own trust anchor; a CA-issued one is trusted through the system roots. */
export function selfSignedCertificate(certFile: string): boolean {
  try {
    const cert = new X509Certificate(readFileSync(certFile));
    // Not checkIssued: the deployment certificate is a leaf (no keyCertSign), which OpenSSL's
    // issuer check refuses; self-signed means its own key verifies it under its own name.
    return cert.issuer === cert.subject && cert.verify(cert.publicKey);
  } catch {
    return false;
  }
}

export function writeDaemonAddress(dir: DataDir, address: DaemonAddress): void {
  const path = daemonAddressFile(dir);
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o644);
  try {
    writeSync(fd, `${JSON.stringify(address, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** The recorded address, or undefined when no daemon has listened here or the file is not ours. */
export function readDaemonAddress(dir: DataDir): DaemonAddress | undefined {
  const path = daemonAddressFile(dir);
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  const a = parsed as Partial<DaemonAddress>;
  if (typeof a?.url !== 'string' || !/^https?:\/\//.test(a.url) || typeof a.tls !== 'boolean')
    return undefined;
  return {
    url: a.url,
    tls: a.tls,
    mutual_tls: a.mutual_tls === true,
    ca_cert: typeof a.ca_cert === 'string' ? a.ca_cert : null,
    pid: typeof a.pid === 'number' ? a.pid : 0,
    started_at: typeof a.started_at === 'string' ? a.started_at : '',
  };
}

/** The recorded daemon when it is another process that still runs, else undefined. */
export function liveRecordedDaemon(dir: DataDir): DaemonAddress | undefined {
  const recorded = readDaemonAddress(dir);
  if (recorded === undefined || recorded.pid <= 0 || recorded.pid === process.pid) return undefined;
  try {
    process.kill(recorded.pid, 0);
    return recorded;
  } catch (err) {
    // EPERM: it runs, as another user
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? recorded : undefined;
  }
}
