import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SvcError } from '../core/errors.js';
import { parseListenAddress } from '../http/listen-address.js';
import { verifyWebhook, type WebhookEvent } from '../sdk/webhook.js';
import { webhookKey } from './webhook-secret.js';

/** A delivery is one event: far below this. A larger body is refused unread. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Event ids remembered to print each event once: delivery is at least once. */
const REMEMBERED_IDS = 1000;

/** The fields of `data` a line shows, in this order, when the event has them. */
const SHOWN: readonly (readonly [string, string])[] = [
  ['tenant_id', 'tenant'],
  ['approval_id', 'approval'],
  ['capability', 'capability'],
  ['action', 'action'],
  ['amount_usd', 'amount_usd'],
  ['requester_id', 'requester'],
  ['status', 'status'],
  ['decided_by', 'decided_by'],
  ['code', 'code'],
  ['test', 'test'],
];

/** One line for a verified event: its type, its id, then the fields a person looks for. */
export function eventLine(e: WebhookEvent): string {
  const parts = [e.type, e.id];
  for (const [key, label] of SHOWN) {
    const v = e.data[key];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') {
      // Printable and one token: a value never breaks the line or fakes another field.
      parts.push(`${label}=${String(v).replace(/[^\x21-\x7e]/g, '?')}`);
    }
  }
  return parts.join(' ');
}

/** The secrets of a `--secret-file`: one `whsec_…` per line or word (both during a rotation). */
export function receiverSecrets(text: string): string[] {
  const secrets = text.split(/\s+/).filter((s) => s !== '');
  const expected = 'one or more webhook secrets (whsec_…), as svc notify add or rotate printed them';
  if (secrets.length === 0 || secrets.length > 8) throw bad(expected);
  for (const s of secrets) {
    try {
      webhookKey(s);
    } catch {
      throw bad(expected);
    }
  }
  return secrets;
}

const bad = (expected: string) =>
  new SvcError('invalid_request', `secret-file: expected ${expected}`, { field: 'secret-file' });

function loopbackOnly(host: string): void {
  const loopback = host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
  if (!loopback) {
    throw new SvcError(
      'invalid_request',
      'listen: expected a loopback address (127.0.0.1:PORT, [::1]:PORT): this receiver is plain http, for trying deliveries on this machine',
      {
        field: 'listen',
        remedy: 'a production receiver serves https and verifies with the SDK (docs/webhooks.md)',
      },
    );
  }
}

export interface WebhookReceiver {
  url: string;
  close(): Promise<void>;
}

/**
 * A small receiver for trying a webhook destination on this machine: every POST is verified
 * as Standard Webhooks 1.0 with the SDK's `verifyWebhook` (signature, and a timestamp within
 * five minutes), against any of `secrets`; a verified event is answered 204 and shown once
 * per event id, anything else 401 (unsigned, forged, replayed), 400 (not an event), 405 or 413.
 */
export async function startWebhookReceiver(o: {
  listen: string;
  secrets: readonly string[];
  /** a verified event, once per id */
  event: (e: WebhookEvent) => void;
  /** a refused request: the code, never the body */
  refused: (code: string) => void;
}): Promise<WebhookReceiver> {
  const { host, port } = parseListenAddress(o.listen);
  loopbackOnly(host);
  const seen = new Set<string>();
  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    let event: WebhookEvent | undefined;
    let failure: SvcError | undefined;
    for (const secret of o.secrets) {
      try {
        event = verifyWebhook(req.headers, body, secret);
        break;
      } catch (err) {
        failure = err instanceof SvcError ? err : new SvcError('internal', 'verification failed');
      }
    }
    if (event === undefined) {
      const code = failure?.code ?? 'bad_signature';
      o.refused(code);
      res.writeHead(code === 'bad_request' ? 400 : 401).end();
      return;
    }
    if (!seen.has(event.id)) {
      seen.add(event.id);
      if (seen.size > REMEMBERED_IDS) seen.delete(seen.values().next().value as string);
      o.event(event);
    }
    res.writeHead(204).end();
  };
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      if (size > MAX_BODY_BYTES) return; // refused already; the socket is going away
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        o.refused('too_large');
        res.writeHead(413, { connection: 'close' }).end();
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (size <= MAX_BODY_BYTES) handle(req, res, Buffer.concat(chunks));
    });
    req.on('error', () => undefined);
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  const shown = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return {
    url: `http://${shown}:${a.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
