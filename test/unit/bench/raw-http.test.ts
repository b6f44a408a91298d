import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RawConnection, ResponseReader, requestBytes } from '../../bench/raw-http.mjs';

describe('the bench’s lean HTTP client', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('writes a request node:http parses: method, path and query, headers, the body by its byte length', async () => {
    const seen: { method?: string; url?: string; type?: string; body: string }[] = [];
    server = createServer((q, r) => {
      let body = '';
      q.setEncoding('utf8');
      q.on('data', (d: string) => (body += d));
      q.on('end', () => {
        seen.push({ method: q.method, url: q.url, type: q.headers['content-type'], body });
        r.statusCode = seen.length === 1 ? 200 : 404;
        r.end(JSON.stringify({ n: seen.length }));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/action?x=1`;
    const conn = await RawConnection.open(url);
    try {
      const request = { method: 'POST', headers: { 'content-type': 'application/json' } };
      await expect(conn.send(requestBytes(url, request, '{"intent":"ménage"}'))).resolves.toBe(200);
      // the same connection, kept alive; a non-2xx status is reported, not thrown
      await expect(conn.send(requestBytes(url, request, '{}'))).resolves.toBe(404);
    } finally {
      conn.close();
    }
    expect(seen).toEqual([
      { method: 'POST', url: '/v1/action?x=1', type: 'application/json', body: '{"intent":"ménage"}' },
      { method: 'POST', url: '/v1/action?x=1', type: 'application/json', body: '{}' },
    ]);
  });

  it('completes a response only once its whole body has arrived, however the bytes are split', () => {
    const bytes = Buffer.from('HTTP/1.1 201 Created\r\nContent-Length: 11\r\nx: y\r\n\r\n{"ok":true}');
    for (let cut = 1; cut < bytes.length; cut++) {
      const reader = new ResponseReader();
      expect(reader.push(bytes.subarray(0, cut))).toBe(0);
      expect(reader.push(bytes.subarray(cut))).toBe(201);
    }
    // the reader is ready for the next response on the connection
    const reader = new ResponseReader();
    expect(reader.push(Buffer.from('HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n'))).toBe(204);
    expect(reader.push(Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}'))).toBe(200);
  });

  it('refuses what it cannot measure: no content-length, not HTTP, bytes beyond the response', () => {
    expect(() =>
      new ResponseReader().push(Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n')),
    ).toThrow('HTTP 200 without content-length');
    expect(() => new ResponseReader().push(Buffer.from('SSH-2.0-x\r\n\r\n'))).toThrow(
      'not an HTTP/1.x response',
    );
    expect(() =>
      new ResponseReader().push(Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\n{}')),
    ).toThrow('bytes after the response');
  });
});
