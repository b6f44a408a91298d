import { z } from 'zod';
import { LOG_ID_PREFIX } from '../evidence/log-id.js';

/**
 * A tree head as a witness takes it, every field checked before anything hashes it: the
 * canonical JSON a signature covers has no form for a lone surrogate, so such a string
 * must be a 400 naming its field, never a throw from the hash (evidence-format.md §1).
 */
const WELL_FORMED = 'expected well-formed Unicode text (a lone surrogate was sent)';

/** A string with a UTF-8 form, checked first so a lone surrogate is named as such. */
const text = () => z.string().refine((s) => s.isWellFormed(), { message: WELL_FORMED, abort: true });

export const Hex32 = text().regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits');

export const LogIdText = text()
  .min(1)
  .max(200)
  .refine((s) => s.startsWith(LOG_ID_PREFIX), `expected a log id starting ${LOG_ID_PREFIX}`);

/** A safe integer >= 0: sizes beyond 2^53 cannot be compared or hashed exactly. */
const size = () => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const Head = z
  .object({
    log_id: LogIdText,
    index: size(),
    root_hash: Hex32,
    tree_size: size(),
    signed_at: text()
      .max(64)
      .pipe(
        z.iso.datetime({
          offset: true,
          error: 'expected an RFC 3339 date-time, such as 2026-01-31T12:00:00.000Z',
        }),
      ),
    signature: text()
      .min(1)
      .max(200)
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'expected base64 of the 64-byte Ed25519 signature'),
  })
  .strict();
