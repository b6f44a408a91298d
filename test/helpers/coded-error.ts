import { SvcError } from '../../src/core/errors.js';
import { runSync, type Operations, type UseCase } from '../../src/core/use-case.js';

/** The coded error `fn` throws; any other error is rethrown, and throwing none fails the test. */
export function codedError(fn: () => unknown, expected = 'expected a refusal'): SvcError {
  try {
    fn();
  } catch (err) {
    if (err instanceof SvcError) return err;
    throw err;
  }
  throw new Error(expected);
}

/** The coded error `useCase` refuses with, run in memory on `ops`. */
export const refusal = <P extends Operations<P>, R>(
  useCase: UseCase<P, R>,
  ops: P,
  expected = 'expected a refusal',
): SvcError => codedError(() => runSync(useCase, ops), expected);
