import { z } from 'zod';
import { SvcError } from '../core/errors.js';
import { firstMalformedString } from '../core/request-text.js';

const LIMIT_DIGITS = /^[1-9][0-9]{0,2}$/;
const LIMIT_EXPECTED = 'expected an integer from 1 to 200 in plain decimal digits';

/**
 * semantics.md Lists: a `limit` is plain decimal digits. Number() would also read `1e1`,
 * `0x10`, ` 5` and `2.0`; those are refused, not read, so only digits become a number.
 */
export function pageLimit(fallback: number) {
  const expected = { error: LIMIT_EXPECTED };
  return z.preprocess(
    (v) => (typeof v === 'string' && LIMIT_DIGITS.test(v) ? Number(v) : v),
    z.number(expected).int(expected).min(1, expected).max(200, expected).default(fallback),
  );
}

/** semantics.md Lists: `{items, next_cursor}`; `limit` 1..200 (default 50); an opaque cursor. */
export const PageQuery = z.strictObject({
  limit: pageLimit(50).describe('page size, 1 to 200, in plain decimal digits'),
  cursor: z.string().max(200).optional().describe('opaque: next_cursor of the previous page'),
});

export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}

type CursorKey = string | number | readonly (string | number)[];

/**
 * Cursors are opaque to clients; inside they carry the list they belong to (`scope`) and
 * the last key of the page. They are not secret and need no signature: a forged key only
 * moves where a page starts inside what the caller may read anyway.
 */
export function encodeCursor(key: CursorKey, scope = ''): string {
  return Buffer.from(JSON.stringify({ s: scope, k: key }), 'utf8').toString('base64url');
}

/** The key inside a cursor of this list; anything else is a 400 naming `cursor`, never a 500. */
export function decodeCursor<T>(text: string, key: z.ZodType<T>, scope = ''): T {
  const bad = new SvcError(
    'invalid_request',
    'cursor: expected the next_cursor of a previous page of this list',
    {
      field: 'cursor',
      remedy: 'send the next_cursor value exactly as a previous page returned it, or omit it to start over',
    },
  );
  const bytes = Buffer.from(text, 'base64url');
  // Node's decoder skips characters outside the alphabet; only a canonical encoding is ours.
  if (bytes.toString('base64url') !== text) throw bad;
  let payload: unknown;
  try {
    payload = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw bad;
  }
  // A key holding NUL or a lone surrogate would reach the store's query: refused like any text.
  if (firstMalformedString(payload, '') !== undefined) throw bad;
  const parsed = z.strictObject({ s: z.literal(scope), k: key }).safeParse(payload);
  if (!parsed.success) throw bad;
  return parsed.data.k as T;
}

/** A store page (`next` is the last key) in the wire shape, with the cursor encoded. */
export function wirePage<T, K extends CursorKey>(
  page: { items: T[]; next?: K | undefined },
  scope: string,
): { items: T[]; next_cursor: string | null } {
  return { items: page.items, next_cursor: page.next === undefined ? null : encodeCursor(page.next, scope) };
}
