/**
 * Another writer's change, made just before a use case's guarded write runs: `race` runs
 * when the use case asks for `name`, after every read it judged on and before the write
 * itself, on whichever store the operations answer from (an in-memory one, or a real
 * database through a second connection). Returns the operations with that one wrapped.
 */
export function beforeOp<P extends object, K extends keyof P>(ops: P, name: K, race: () => unknown): P {
  const op = ops[name] as (...args: unknown[]) => unknown;
  const wrapped = (...args: unknown[]) => {
    const raced = race();
    return raced instanceof Promise ? raced.then(() => op.apply(ops, args)) : op.apply(ops, args);
  };
  return { ...ops, [name]: wrapped };
}

/** The error `run` throws; fails the test when it throws none. */
export async function thrown(run: () => unknown): Promise<Error & Record<string, unknown>> {
  try {
    await run();
  } catch (err) {
    return err as Error & Record<string, unknown>;
  }
  throw new Error('expected a refusal, and the use case succeeded');
}
