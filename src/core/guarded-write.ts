import { SvcError } from './errors.js';

/**
 * A write that depends on prior state names the state it expects and must change exactly
 * one row. When it changes another number, the state the use case judged no longer holds
 * (another writer got there first, which the tenant lock and the single writer should make
 * impossible): the use case fails with a coded conflict and its transaction rolls back,
 * instead of applying a decision to state it was not made on.
 */
export function checkGuarded(what: string, changed: number): void {
  if (changed !== 1) {
    throw new SvcError(
      'conflict',
      `${what} changed ${changed} rows, not one: the state it was decided on no longer holds; retry`,
    );
  }
}
