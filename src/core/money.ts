/**
 * Money. Inside the daemon every amount is an integer number of micro-dollars held as
 * a `bigint`: the API range (0 to 1e12 USD) is 1e18 micros, far beyond 2^53, and no
 * floating-point arithmetic may touch a budget (spec/semantics.md, "Money and budgets").
 *
 * The API carries USD as JSON numbers. A JSON number reaches us as a double, so the only
 * faithful decimal reading of it is the shortest round-trip string ECMAScript gives for
 * that double (`String(x)`); parsing works on that text with integer arithmetic, never by
 * multiplying the double. The consequence, stated once: an accepted value `x` always
 * formats back to the very same double, and micros with at most 15 significant digits
 * (below 1e9 USD) survive micros -> JSON number -> micros exactly; larger micro-precise
 * amounts cannot be written as a JSON number that JavaScript reads exactly, which is a
 * property of the wire format, not of this module (`microsToDecimal` gives the exact text).
 */
import { DECIMALS, MICROS_PER_USD } from '../evidence/amount.js';
import { invalidField } from './errors.js';

// How an amount is written out is the evidence format's rule (evidence-format.md §1), so
// evidence/ owns it and money re-exports it: evidence never imports core.
export { formatUsd, microsToDecimal } from '../evidence/amount.js';
export { MICROS_PER_USD };

export type Micros = bigint;

export const MAX_USD = 1_000_000_000_000n;
export const MAX_MICROS: Micros = MAX_USD * MICROS_PER_USD;
const EXPECTED = `USD as a number from 0 to ${MAX_USD} with at most ${DECIMALS} decimal places`;
// Generous for any honest amount, and small enough that a hostile string cannot make the
// integer arithmetic below expensive.
const MAX_TEXT_LENGTH = 64;

// JSON number grammar, leading zeros tolerated for hand-typed CLI values.
const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Reads an API value (a JSON number of USD) into micros; throws `invalid_request` naming `field`. */
export function parseUsd(value: unknown, field: string): Micros {
  if (typeof value !== 'number') throw invalidField(field, `${EXPECTED}, got ${describeType(value)}`);
  if (!Number.isFinite(value)) throw invalidField(field, `${EXPECTED}, got ${String(value)}`);
  return decimalTextToMicros(String(value), field);
}

/** Reads a CLI string such as "12.50" by the same rules as the API number. */
export function parseUsdText(text: string, field: string): Micros {
  if (text.length > MAX_TEXT_LENGTH)
    throw invalidField(field, `${EXPECTED}, got a ${text.length}-character string`);
  return decimalTextToMicros(text, field);
}

function decimalTextToMicros(text: string, field: string): Micros {
  const match = DECIMAL_TEXT.exec(text);
  if (match === null) throw invalidField(field, `${EXPECTED}, got ${quoteShort(text)}`);
  const [, sign, intPart = '', fracPart = '', expPart = '0'] = match;
  // value = digits * 10^-scale, with digits free of leading and trailing zeros.
  let digits = (intPart + fracPart).replace(/^0+/, '');
  // "-0" is zero, not a negative amount: JSON allows it.
  if (digits === '') return 0n;
  if (sign === '-') throw invalidField(field, `${EXPECTED}, got a negative amount`);
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  // Exponent digits can be arbitrarily long; anything past this bound is decided by sign alone.
  const exponent =
    expPart.replace(/^[+-]?0*/, '').length > 6 ? (expPart.startsWith('-') ? -1e7 : 1e7) : Number(expPart);
  const scale = fracPart.length - trailing - exponent;
  if (scale > DECIMALS) throw invalidField(field, `${EXPECTED}, got more than ${DECIMALS} decimal places`);
  // Integer digits of the value; bounds the power of ten before any bigint is built.
  if (digits.length - scale > String(MAX_USD).length)
    throw invalidField(field, `${EXPECTED}, got a larger amount`);
  const micros = BigInt(digits) * 10n ** BigInt(DECIMALS - scale);
  if (micros > MAX_MICROS) throw invalidField(field, `${EXPECTED}, got a larger amount`);
  return micros;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

function quoteShort(text: string): string {
  return text.length <= 24 ? JSON.stringify(text) : `a ${text.length}-character string`;
}

/** A task budget: its limit and what allowed decisions have already reserved against it. */
export interface BudgetState {
  limit: Micros;
  reserved: Micros;
}

/** What is left to reserve; never negative, also when a limit was lowered below the reservations. */
export function remaining(budget: BudgetState): Micros {
  const left = budget.limit - budget.reserved;
  return left > 0n ? left : 0n;
}

/** Whether reserving `amount` keeps the reservations within the limit. */
export function fits(budget: BudgetState, amount: Micros): boolean {
  return budget.reserved + amount <= budget.limit;
}

/**
 * The exact amount the limit must be raised by for `amount` to fit: the remedy of a budget
 * refusal. Zero when it already fits. Counts reservations beyond a lowered limit, which is
 * why it is not simply `amount - remaining`.
 */
export function shortfall(budget: BudgetState, amount: Micros): Micros {
  const missing = budget.reserved + amount - budget.limit;
  return missing > 0n ? missing : 0n;
}

export function sumMicros(amounts: Iterable<Micros>): Micros {
  let total = 0n;
  for (const amount of amounts) total += amount;
  return total;
}
