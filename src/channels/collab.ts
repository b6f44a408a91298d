import type { IncomingHttpHeaders } from 'node:http';
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { z } from 'zod';
import type { CollabChannel } from '../core/channel.js';
import { SvcError, type ExtensionCode } from '../core/errors.js';
import { parseJsonText } from '../core/json-text.js';
import { firstRefusedText, refusedTextError } from '../core/request-text.js';
import type { DecidedApproval } from '../store/query-ports.js';
import { decidedText, payloadFailure } from './chat.js';
import type { OpenIdKeys } from './openid-keys.js';

/**
 * The collaboration-suite channel (semantics.md, Approvals): a bot activity with a bearer
 * JWT signed by one of the platform's published keys, for this bot (audience = the
 * application id), from the configured issuer, unexpired. Asymmetric algorithms only: an
 * unsigned token, or one "signed" with a shared secret, proves nothing about the platform.
 */
export const ALLOWED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
];
/** how far the platform's clock may be from ours when expiry and not-before are checked */
export const CLOCK_SKEW_SECONDS = 60;

const proofFailure = (code: ExtensionCode, reason: string) =>
  new SvcError('unauthenticated', reason, {
    code,
    remedy: 'the collaboration platform sends a bearer token issued for this bot application',
  });

/** A failed check as a 401 naming what failed; anything else (keys unavailable) passes through. */
function asProofFailure(err: unknown): unknown {
  if (err instanceof errors.JWTExpired) return proofFailure('token_expired', 'the token has expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    const what: Record<string, string> = {
      aud: "the token's audience is not this channel's application id",
      iss: "the token's issuer is not this channel's issuer",
      exp: 'the token carries no expiry',
      nbf: 'the token is not valid yet',
    };
    return proofFailure('bad_token', what[err.claim] ?? `the token's ${err.claim} claim is not acceptable`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed) {
    return proofFailure(
      'bad_token',
      `the token's algorithm is not allowed (only ${ALLOWED_ALGORITHMS.join(', ')})`,
    );
  }
  if (err instanceof errors.JWKSNoMatchingKey) {
    return proofFailure('bad_token', "no key the platform publishes matches the token's key id");
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return proofFailure('bad_token', 'the token signature does not verify');
  }
  if (err instanceof errors.JOSEError)
    return proofFailure('bad_token', 'the bearer token is not a valid JWT');
  return err;
}

/** The bearer token's claims, once its signature, audience, issuer and lifetime all hold. */
export async function verifyCollabToken(
  headers: IncomingHttpHeaders,
  channel: CollabChannel,
  keys: OpenIdKeys,
  now: Date,
): Promise<JWTPayload> {
  const auth = headers.authorization;
  const m = typeof auth === 'string' ? /^Bearer +([A-Za-z0-9_.-]+)$/.exec(auth) : null;
  if (!m)
    throw proofFailure(
      'missing_token',
      'Authorization: expected "Bearer <JWT>" from the collaboration platform',
    );
  const token = m[1]!;
  if (token.split('.').length !== 3) throw proofFailure('bad_token', 'the bearer token is not a signed JWT');
  try {
    const verified = await keys.withKeys(channel.openidMetadataUrl, (getKey) =>
      jwtVerify(token, getKey, {
        algorithms: ALLOWED_ALGORITHMS,
        audience: channel.appId,
        issuer: channel.issuer,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_SKEW_SECONDS,
        currentDate: now,
      }),
    );
    return verified.payload;
  } catch (err) {
    throw asProofFailure(err);
  }
}

const Activity = z.object({
  type: z.literal('invoke'),
  id: z.string().max(200).optional(),
  serviceUrl: z.string().max(2000).optional(),
  from: z.object({ id: z.string().max(200), aadObjectId: z.string().min(1).max(128) }),
  value: z.object({ approval_id: z.string().min(1).max(200), decision: z.enum(['approve', 'deny']) }),
});

export interface CollabAction {
  userId: string;
  approvalId: string;
  decision: 'approve' | 'deny';
  activityId: string | undefined;
}

/** The activity, read only after its token held; a token bound to another service URL is refused. */
export function parseActivity(raw: Buffer, claims: JWTPayload): CollabAction {
  const parsed = parseJsonText(raw);
  const bad = firstRefusedText(parsed, 'activity');
  if (bad) throw refusedTextError(bad.path, bad.nul);
  const r = Activity.safeParse(parsed);
  if (!r.success) throw payloadFailure('activity', r.error);
  const bound = claims.serviceurl;
  if (typeof bound === 'string' && r.data.serviceUrl !== undefined && bound !== r.data.serviceUrl) {
    throw proofFailure('bad_token', "the token was issued for another service URL than the activity's");
  }
  return {
    userId: r.data.from.aadObjectId,
    approvalId: r.data.value.approval_id,
    decision: r.data.value.decision,
    activityId: r.data.id,
  };
}

/** A bot message activity whose card replaces the buttons with the outcome. */
export function collabReply(d: DecidedApproval, replyToId: string | undefined): Record<string, unknown> {
  const text = decidedText(d);
  return {
    type: 'message',
    text,
    ...(replyToId !== undefined ? { replyToId } : {}),
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text, wrap: true, weight: 'Bolder' },
            {
              type: 'TextBlock',
              text: `journal receipt ${d.receiptId} (sequence ${d.sequence})`,
              isSubtle: true,
            },
          ],
        },
      },
    ],
    value: {
      approval_id: d.approval.id,
      status: d.approval.status,
      decided_by: d.approval.decidedBy,
      receipt_id: d.receiptId,
    },
  };
}
