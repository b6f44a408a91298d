import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { invalidField } from '../core/errors.js';
import { listenError, parseListenAddress } from '../http/listen-address.js';
import { readTextFile } from '../provisioning/text-file.js';
import type { SvcMetrics } from './registry.js';

export interface MetricsListenOptions {
  /** `--metrics-listen` host:port */
  listen: string;
  /** `--metrics-allow-remote`: a non-loopback address is refused without it */
  allowRemote?: boolean;
  /** `--metrics-token-file`: scrapers must send `Authorization: Bearer <its content>` */
  tokenFile?: string;
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/** 127.0.0.0/8, ::1 and localhost: reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || /^::ffff:127\./i.test(host);
  return false;
}

/** Check the flags before anything opens: a refused address or unreadable token stops the start. */
export function metricsListenPlan(o: MetricsListenOptions): { host: string; port: number; token?: Buffer } {
  let addr: { host: string; port: number };
  try {
    addr = parseListenAddress(o.listen);
  } catch {
    throw invalidField('metrics-listen', 'host:port, such as 127.0.0.1:9464 or [::1]:9464');
  }
  if (!isLoopbackHost(addr.host) && o.allowRemote !== true) {
    throw invalidField(
      'metrics-listen',
      `a loopback address (127.0.0.1, ::1 or localhost); ${addr.host} is reachable from other machines: add --metrics-allow-remote to serve it there`,
    );
  }
  if (o.tokenFile === undefined) return addr;
  const token = readTextFile('metrics-token-file', o.tokenFile).trim();
  if (token.length < 16) {
    throw invalidField('metrics-token-file', 'a token of at least 16 characters on its first line');
  }
  return { ...addr, token: digest(token) };
}

// Both sides are hashed to equal-length digests, so the comparison's time says nothing of the token.
const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

function authorized(request: FastifyRequest, token: Buffer | undefined): boolean {
  if (token === undefined) return true;
  const m = /^Bearer ([^\s]+)$/.exec(request.headers.authorization ?? '');
  return timingSafeEqual(digest(m?.[1] ?? ''), token) && m !== null;
}

/** The metrics app: `GET /metrics` and nothing else. Never listens: `startMetricsListener` does. */
export function buildMetricsApp(metrics: SvcMetrics, token?: Buffer): FastifyInstance {
  const app = Fastify({ logger: false }) as unknown as FastifyInstance;
  app.get('/metrics', async (request, reply) => {
    if (!authorized(request, token)) {
      return reply
        .status(401)
        .header('www-authenticate', 'Bearer realm="svc metrics"')
        .send({ code: 'unauthenticated', reason: 'a bearer token is required for /metrics' });
    }
    const text = await metrics.text();
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
  });
  app.setNotFoundHandler((_request, reply) =>
    reply.status(404).send({ code: 'not_found', reason: 'only GET /metrics is served here' }),
  );
  return app;
}

export async function startMetricsListener(
  metrics: SvcMetrics,
  o: MetricsListenOptions,
): Promise<MetricsListener> {
  const plan = metricsListenPlan(o);
  const app = buildMetricsApp(metrics, plan.token);
  try {
    await app.listen({ host: plan.host, port: plan.port });
  } catch (err) {
    await app.close();
    // a busy port names the port and the flag, as the API listeners do
    throw listenError(o.listen, err, '--metrics-listen');
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : plan.port;
  const shown = plan.host.includes(':') ? `[${plan.host}]` : plan.host;
  return { url: `http://${shown}:${port}/metrics`, close: () => app.close() };
}
