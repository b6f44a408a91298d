// A lean HTTP/1.1 keep-alive client for latency figures: one request in flight per
// connection, the request's bytes written in one call, the response read as far as its
// status and Content-Length. node:http's client spends about 0.1 ms of its own per request
// on this machine (a bare server answers it in 0.21 ms at one connection); that cost lands in
// every latency it measures and, at thousands of requests a second, delays the generator's
// own schedule. autocannon, which the throughput figures use, works the same way as this.
import { connect } from 'node:net';

/** The bytes of one request: `request` is `{ method, headers }`, `body` a string. */
export function requestBytes(url, request, body) {
  const u = new URL(url);
  const lines = [`${request.method} ${u.pathname}${u.search} HTTP/1.1`, `host: ${u.host}`];
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${Buffer.byteLength(body)}`, '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), Buffer.from(body)]);
}

/**
 * Reads responses off one connection: status and Content-Length from the head, then that
 * many body bytes. A response without Content-Length (chunked) is reported as an error: the
 * servers this measures never send one, and guessing its end would mismeasure.
 */
export class ResponseReader {
  constructor() {
    this.buf = Buffer.alloc(0);
    this.status = 0;
    this.need = -1;
  }

  /** Feeds bytes; returns the status of the response they complete, or 0 if none yet. */
  push(chunk) {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    if (this.need < 0) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return 0;
      const head = this.buf.toString('latin1', 0, end);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
      if (!status) throw new Error(`not an HTTP/1.x response: ${JSON.stringify(head.slice(0, 40))}`);
      if (!length) throw new Error(`HTTP ${status[1]} without content-length`);
      this.status = Number(status[1]);
      this.need = Number(length[1]);
      this.buf = this.buf.subarray(end + 4);
    }
    if (this.buf.length < this.need) return 0;
    if (this.buf.length > this.need)
      throw new Error('bytes after the response: the server sent more than asked');
    const status = this.status;
    this.buf = Buffer.alloc(0);
    this.need = -1;
    return status;
  }
}

/** One keep-alive connection; `send` resolves with the status, or rejects on a network error. */
export class RawConnection {
  static open(url) {
    const u = new URL(url);
    if (u.protocol !== 'http:') throw new Error(`raw-http measures plain HTTP only, not ${u.protocol}`);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: u.hostname, port: Number(u.port || 80), noDelay: true });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  constructor(socket) {
    this.socket = socket;
    this.reader = new ResponseReader();
    this.pending = undefined;
    socket.on('data', (chunk) => {
      let status;
      try {
        status = this.reader.push(chunk);
      } catch (err) {
        this.fail(err);
        return;
      }
      if (status === 0) return;
      const p = this.pending;
      this.pending = undefined;
      p?.resolve(status);
    });
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('connection closed')));
  }

  send(bytes) {
    if (this.pending) throw new Error('one request at a time on a connection');
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(bytes);
    });
  }

  close() {
    this.socket.destroy();
  }

  fail(err) {
    const p = this.pending;
    this.pending = undefined;
    p?.reject(err);
  }
}
