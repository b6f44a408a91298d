import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenIdKeys } from '../../../src/channels/openid-keys.js';

/** A loopback server answering each path with what `routes` says, or never answering. */
async function serve(routes: Record<string, string | 'hang'>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const body = routes[req.url ?? ''];
    if (body === 'hang') return;
    if (body === undefined) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('OpenID keys of a collaboration platform', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });
  const failure = (keys: OpenIdKeys, url: string) =>
    keys
      .withKeys(url, async () => 'verified')
      .then(
        () => 'verified',
        (err: { code?: string; reason?: string }) => `${err.code}: ${err.reason}`,
      );

  it('gives up on a platform that does not answer within the timeout', async () => {
    const s = await serve({ '/meta': 'hang' });
    server = s.server;
    const started = Date.now();
    expect(await failure(new OpenIdKeys({ timeoutMs: 300 }), `${s.url}/meta`)).toMatch(
      /^unavailable: .*cannot be fetched/,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('refuses a document without keys, keys from a plain-http address elsewhere, and what is not JSON', async () => {
    const s = await serve({
      '/no-uri': '{}',
      '/insecure': JSON.stringify({ jwks_uri: 'http://keys.example.test/jwks' }),
      '/not-json': 'hello',
    });
    server = s.server;
    const keys = new OpenIdKeys();
    expect(await failure(keys, `${s.url}/no-uri`)).toMatch(/names no jwks_uri/);
    expect(await failure(keys, `${s.url}/insecure`)).toMatch(/is not an https URL/);
    expect(await failure(keys, `${s.url}/not-json`)).toMatch(/is not JSON/);
    expect(await failure(keys, `${s.url}/missing`)).toMatch(/answered HTTP 404/);
  });

  it('stops reading a 20 MB document as soon as it passes 512 KiB, rather than downloading it whole', async () => {
    const total = 20 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let written = 0;
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      // No Content-Length: the cap must be a running count, not a header check. Each chunk
      // is sent once the previous one was taken, a slow stream of 20 MB.
      const next = () => {
        if (res.destroyed || written >= total) {
          if (!res.destroyed) res.end();
          return;
        }
        res.write(chunk, () => {
          written += chunk.length;
          setTimeout(next, 1);
        });
      };
      res.on('close', closed);
      next();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/meta`;
    expect(await failure(new OpenIdKeys({ timeoutMs: 120_000 }), url)).toMatch(
      /^unavailable: the OpenID metadata document at .* is larger than 524288 bytes/,
    );
    await serverSawClose;
    // What the server managed to write before the client hung up: the cap plus what the
    // sockets buffer, far from the 20 MB on offer.
    expect(written).toBeLessThan(total / 4);
  });
});
