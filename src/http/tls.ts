import type { ServerOptions } from 'node:https';
import { MAX_PEM_FILE, readBoundedFile } from '../io/bounded-file.js';

function readPem(path: string, what: string): Buffer {
  return readBoundedFile(what, path, MAX_PEM_FILE, { code: 'invalid_request' });
}

/**
 * AEAD suites only. TLS 1.2: ECDHE key exchange with AES-GCM or ChaCha20-Poly1305 (no CBC,
 * no CCM8, no static RSA); TLS 1.3: its three standard suites. Server order wins.
 */
export const TLS_CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/**
 * HTTPS options for a listener. With a client CA the listener asks every client for a
 * certificate chaining to it; the handshake still completes without one so the health
 * routes stay reachable, and every authenticated route then refuses the caller.
 */
export function tlsServerOptions(opts: { cert: string; key: string; clientCa?: string }): ServerOptions {
  const out: ServerOptions = {
    cert: readPem(opts.cert, 'tls-cert'),
    key: readPem(opts.key, 'tls-key'),
    minVersion: 'TLSv1.2',
    ciphers: TLS_CIPHERS,
    honorCipherOrder: true,
  };
  if (opts.clientCa !== undefined) {
    out.ca = readPem(opts.clientCa, 'client-ca');
    out.requestCert = true;
    out.rejectUnauthorized = false;
  }
  return out;
}
