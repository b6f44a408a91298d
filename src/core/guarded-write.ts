import { SvcError } from './errors.js';

/**
 * A write that depends on prior state names the state it expects and must change exactly
 * one row. When it changes another number, the state the use case judged no longer holds
 * (another writer got there first, which the tenant lock and the single writer should make
 * impossible): the use case fails with a coded conflict and its transaction rolls back,
 * instead of applying a decision to state it was not made on. A write over a range of rows
 * (a redaction) names how many it must change instead.
 */
export function checkGuarded(what: string, changed: number, expected = 1): void {
  if (changed !== expected) {
    throw new SvcError(
      'conflict',
      `${what} changed ${changed} rows, not ${expected === 1 ? 'one' : expected}: the state it was decided on no longer holds; retry`,
    );
  }
}
