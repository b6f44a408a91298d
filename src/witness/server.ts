import type { ServerOptions as HttpsOptions } from 'node:https';
import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../core/errors.js';
import { encodeBase64 } from '../evidence/encoding.js';
import { registerErrorHandler } from '../http/error-mapping.js';
import { useGuardedJson } from '../http/json-body.js';
import { applyServerLimits, DEFAULT_SERVER_LIMITS, type ServerLimits } from '../http/limits.js';
import { listenError, parseListenAddress } from '../http/listen-address.js';
import { registerResponseHeaders } from '../http/request-id.js';
import { fastifyServerOptions } from '../http/server-options.js';
import { Head, LogIdText, Hex32 } from './head-schema.js';
import type { LogWitness } from './witness.js';

const CosignRequest = z.object({ head: Head, proof: z.array(Hex32).max(128) }).strict();
const HeadQuery = z.object({ log_id: LogIdText }).strict();

/** Heads and proofs are small; a witness never needs a large body. */
const BODY_LIMIT = 64 * 1024;

function parse<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path.map(String).join('.') || where;
  throw new SvcError('invalid_request', `${field}: ${issue.message}`, { field });
}

export interface WitnessAppOptions {
  /** pino options, or false for silence (tests) */
  logger?: boolean | Record<string, unknown>;
  /** TLS material (`tlsServerOptions`); without it the witness speaks plain HTTP */
  https?: HttpsOptions;
  /** timeouts and connection cap, as the daemon's listener takes them (default: `DEFAULT_SERVER_LIMITS`) */
  limits?: ServerLimits;
}

/**
 * The witness's HTTP interface. No credentials: anyone may submit a head, and only a head
 * the pinned log key signed, consistent with the last one cosigned, is ever cosigned.
 *   GET  /v1/witness             its id and public key
 *   GET  /v1/head?log_id=…       the last head it cosigned for a log (404 before the first)
 *   POST /v1/cosign              {head, proof}: a cosignature, or 409 rollback/fork, 400 bad_proof, …
 * The listener is the daemon's: the same time-outs, connection cap, I-JSON body guard and
 * error bodies; every field of a head is checked before anything hashes it.
 */
export function buildWitnessApp(witness: LogWitness, opts: WitnessAppOptions = {}): FastifyInstance {
  const limits = { ...(opts.limits ?? DEFAULT_SERVER_LIMITS), bodyLimitBytes: BODY_LIMIT };
  const app = Fastify(
    fastifyServerOptions({
      limits,
      logger: opts.logger ?? false,
      ...(opts.https ? { https: opts.https } : {}),
    }),
  ) as unknown as FastifyInstance;
  applyServerLimits(app.server, limits);
  registerResponseHeaders(app, { 'cache-control': 'no-store' });
  app.removeContentTypeParser('text/plain');
  useGuardedJson(app);
  registerErrorHandler(app);
  app.get('/v1/witness', async () => ({
    witness_id: witness.id,
    public_key: encodeBase64(witness.publicKey),
    algorithm: 'ed25519',
  }));
  app.get('/v1/head', async (request) => {
    const { log_id: logId } = parse(HeadQuery, request.query, 'query');
    const head = witness.lastHead(logId);
    if (head === undefined) throw new SvcError('not_found', 'no head of this log cosigned yet');
    return { head };
  });
  app.post('/v1/cosign', async (request) => {
    const { head, proof } = parse(CosignRequest, request.body, 'body');
    const cosignature = await witness.cosign(head, proof);
    request.log.info({ log_id: head.log_id, tree_size: head.tree_size }, 'cosigned');
    return cosignature;
  });
  return app;
}

/** Listen, and say where: `https://…` when the app was built with TLS material. */
export async function listenWitness(app: FastifyInstance, listen: string, secure: boolean): Promise<string> {
  const { host, port } = parseListenAddress(listen);
  try {
    await app.listen({ host, port });
  } catch (err) {
    throw listenError(listen, err);
  }
  const addr = app.server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  return `${secure ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
}
