import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../core/errors.js';
import { errorHandler } from '../http/error-mapping.js';
import { parseListenAddress } from '../http/listen-address.js';
import { encodeBase64 } from '../evidence/encoding.js';
import type { LogWitness } from './witness.js';

const Hex32 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits');
const Head = z
  .object({
    log_id: z.string().min(1).max(200),
    index: z.number().int().min(0),
    root_hash: Hex32,
    tree_size: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
    signed_at: z.string().min(1).max(64),
    signature: z.string().min(1).max(200),
  })
  .strict();
const CosignRequest = z.object({ head: Head, proof: z.array(Hex32).max(128) }).strict();

/** Heads and proofs are small; a witness never needs a large body. */
const BODY_LIMIT = 64 * 1024;

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const field = issue.path.map(String).join('.') || 'body';
  throw new SvcError('invalid_request', `${field}: ${issue.message}`, { field });
}

/**
 * The witness's HTTP interface. No credentials: anyone may submit a head, and only a head
 * the pinned log key signed, consistent with the last one cosigned, is ever cosigned.
 *   GET  /v1/witness             its id and public key
 *   GET  /v1/head?log_id=…       the last head it cosigned for a log (404 before the first)
 *   POST /v1/cosign              {head, proof}: a cosignature, or 409 rollback/fork, 400 bad_proof, …
 */
export function buildWitnessApp(witness: LogWitness, opts: { logger?: boolean } = {}): FastifyInstance {
  const app = Fastify({ logger: opts.logger ?? false, bodyLimit: BODY_LIMIT, return503OnClosing: true });
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) => {
    errorHandler(
      new SvcError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`),
      request,
      reply,
    );
  });
  app.get('/v1/witness', async () => ({
    witness_id: witness.id,
    public_key: encodeBase64(witness.publicKey),
    algorithm: 'ed25519',
  }));
  app.get('/v1/head', async (request) => {
    const { log_id: logId } = parse(z.object({ log_id: z.string().min(1).max(200) }).strict(), request.query);
    const head = witness.lastHead(logId);
    if (head === undefined) throw new SvcError('not_found', `no head of log ${logId} cosigned yet`);
    return { head };
  });
  app.post('/v1/cosign', async (request) => {
    const { head, proof } = parse(CosignRequest, request.body);
    const cosignature = await witness.cosign(head, proof);
    request.log.info({ log_id: head.log_id, tree_size: head.tree_size }, 'cosigned');
    return cosignature;
  });
  return app;
}

export async function listenWitness(app: FastifyInstance, listen: string): Promise<string> {
  const { host, port } = parseListenAddress(listen);
  try {
    await app.listen({ host, port });
  } catch (err) {
    throw new SvcError('unavailable', `cannot listen on ${listen}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const addr = app.server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  return `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
}
