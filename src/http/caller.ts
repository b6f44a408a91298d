import type { Actor } from '../core/actor.js';

/** Who is asking: resolved from the credential, never from the body. */
export interface Caller {
  tenantId: string;
  actorId: string;
  actor: Actor;
  via: 'token' | 'mtls';
  tokenId?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}
