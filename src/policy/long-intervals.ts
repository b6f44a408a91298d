/**
 * The regions a policy set's Long constants cut the line of 64-bit integers into, so the
 * authorization cache can key an attribute by its region instead of its value: under the
 * example policy every amount up to 1000 USD is one key, not a million.
 *
 * For sorted distinct constants c0 < c1 < ... < c(n-1) the regions are, in order,
 * (-inf, c0), {c0}, (c0, c1), {c1}, ..., {c(n-1)}, (c(n-1), +inf): 2n + 1 of them, each
 * constant a region of its own, so `==` and `!=`, and `<` against `<=`, are told apart.
 *
 * Why it is sound (policy-reads.ts decides which attributes qualify):
 * - an attribute is keyed by region only if it is of the schema's Long type and every use
 *   of it in the whole set is `attr OP literal` or `literal OP attr`, with OP one of
 *   `<`, `<=`, `>`, `>=`, `==`, `!=` and the literal a Long; a `has` test of it reads only
 *   its presence, which the key keeps (an absent attribute is null, not a region). Any
 *   other use (arithmetic, `neg`, a comparison with anything but a literal, `contains`,
 *   `in`, a branch of `if`, a record or set holding the attribute itself, the whole
 *   context as a value) keys it by its exact value, as before;
 * - two values in one region agree on every one of those comparisons: within a point
 *   region they are equal, and no constant lies strictly inside an open region, so both
 *   are below or both above each constant. Comparing a Long with a Long never errors, so
 *   each such atom evaluates to the same boolean for both values;
 * - the attribute reaches the evaluation through those atoms alone, so by induction on
 *   the expression every subexpression evaluates to the same value or the same error for
 *   both (`&&`, `||` and `if` take the same branch, since their conditions agree), and
 *   every policy is satisfied, unsatisfied or errors alike: the engine's answer, and the
 *   policies it names as deciding, are the same.
 *
 * Constants are exact. Keyed values are exact too: the cache keys only requests whose Long
 * values are safe integers (beyond them the engine would be given rounded numbers, which
 * authorization.ts refuses before the engine). The engine hands a policy's literals over
 * as JavaScript numbers, so a literal beyond 2^53 - 1 arrives rounded; rounding keeps every
 * integer up to 2^53 - 1 as it is and sends every larger one to at least 2^53, so whether
 * a literal is beyond that range is known exactly, and such a literal is replaced by +/-2^53:
 * every keyed value lies strictly between -2^53 and 2^53, so it compares with the literal
 * and with its replacement alike. Comparisons are done on BigInt, never on rounded floats.
 */

const LIMIT = 2n ** 53n;

/** The exact value of a Long literal as the engine's JSON gives it, or `undefined` if it is not one. */
export function longLiteral(value: unknown): bigint | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
  if (Number.isSafeInteger(value)) return BigInt(value);
  // Beyond 2^53 - 1 the number is rounded: only which side of the safe range it is on is known.
  return value > 0 ? LIMIT : -LIMIT;
}

/** Distinct and in ascending order: the form `regionOf` takes. */
export function sortedConstants(constants: Iterable<bigint>): readonly bigint[] {
  return Object.freeze([...new Set(constants)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The index of the region of `value` among `constants` (sorted, distinct): 2i + 1 for the
 * constant ci itself, 2i for the values between c(i-1) and ci, 2n for those above all.
 * `undefined` for a value that is not a safe integer, which must not be keyed.
 */
export function regionOf(value: unknown, constants: readonly bigint[]): number | undefined {
  if (!Number.isSafeInteger(value)) return undefined;
  const v = BigInt(value as number);
  // The number of constants below v, by binary search.
  let lo = 0;
  let hi = constants.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (constants[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < constants.length && constants[lo] === v ? 2 * lo + 1 : 2 * lo;
}
