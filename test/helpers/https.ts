import { Agent, request } from 'undici';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** A real HTTPS (or HTTP) request that trusts only the given CA, optionally with a client cert. */
export async function call(
  url: string,
  opts: {
    ca?: string | Buffer;
    cert?: string | Buffer;
    key?: string | Buffer;
    headers?: Record<string, string>;
    method?: 'GET' | 'POST';
    body?: unknown;
    /** sent exactly as given, for bodies a signature covers; `headers` carries its content-type */
    rawBody?: string;
  } = {},
): Promise<Reply> {
  const dispatcher = new Agent({
    connect: {
      ...(opts.ca ? { ca: opts.ca } : {}),
      ...(opts.cert ? { cert: opts.cert } : {}),
      ...(opts.key ? { key: opts.key } : {}),
    },
  });
  try {
    const res = await request(url, {
      method: opts.method ?? 'GET',
      headers: {
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(opts.headers ?? {}),
      },
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      ...(opts.rawBody !== undefined ? { body: opts.rawBody } : {}),
      dispatcher,
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      headers: res.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  } finally {
    await dispatcher.close();
  }
}
