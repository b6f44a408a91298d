import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface Call {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Handler = (call: Call, res: ServerResponse) => void;

export interface Downstream {
  url: string;
  calls: Call[];
  /** what the next requests get; the default answers 201 {"id": "c-<n>"} */
  handle: (fn: Handler) => void;
  close: () => Promise<void>;
}

/** A real provider on loopback: every request is recorded, so a test can count what reached it. */
export async function downstream(): Promise<Downstream> {
  const calls: Call[] = [];
  const sockets = new Set<Socket>();
  const created: Handler = (_c, res) => {
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: `c-${calls.length}`, ok: true }));
  };
  let handler: Handler = created;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const call = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      calls.push(call);
      handler(call, res);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    handle: (fn) => (handler = fn),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
