/**
 * Use cases written once. A use case is a generator: it yields the store operations it
 * needs, by name and with their arguments (an `Ask`), gets each answer back, applies the
 * rules and returns its result. It performs no I/O of its own, so one function serves
 * both stores: `runSync` drives it inside SQLite's commit queue (every answer at once, no
 * await, so the single writer is never given up mid-decision) and `runAsync` inside the
 * PostgreSQL tenant transaction. The rules and their messages exist once; the adapters
 * keep only their SQL.
 *
 * A generator rather than a port object with `T | Promise<T>` methods: the use case stays
 * free of `await`, which would hand the SQLite transaction to the event loop between reads.
 */

/** The shape of a set of named store operations, written with their synchronous types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a constraint, not a value: any arguments
type Operation = (...args: any[]) => unknown;
export type Operations<P> = { [K in keyof P]: Operation };

/** One operation asked for: its name and its arguments. */
export type Ask<P extends Operations<P>> = { [K in keyof P]: { name: K; args: Parameters<P[K]> } }[keyof P];

/** A use case over the operations `P`, returning `R`. */
export type UseCase<P extends Operations<P>, R> = Generator<Ask<P>, R, unknown>;

/** The operations `P` as an asynchronous store provides them. */
export type Async<P extends Operations<P>> = {
  [K in keyof P]: (...args: Parameters<P[K]>) => Promise<ReturnType<P[K]>>;
};

/**
 * The `ask` of one set of operations: `yield* ask('load', req)` hands the store the
 * operation and evaluates to its answer, typed.
 */
export function asker<P extends Operations<P>>() {
  return function* ask<K extends keyof P>(
    name: K,
    ...args: Parameters<P[K]>
  ): Generator<Ask<P>, ReturnType<P[K]>, unknown> {
    return (yield { name, args } as Ask<P>) as ReturnType<P[K]>;
  };
}

/**
 * Drives a use case with a synchronous store. A failing operation is thrown into the use
 * case at the point that asked, as an awaited rejection would be.
 */
export function runSync<P extends Operations<P>, R>(useCase: UseCase<P, R>, store: P): R {
  let step = useCase.next();
  while (!step.done) {
    const { name, args } = step.value;
    let answer: unknown;
    try {
      answer = (store[name] as (...a: unknown[]) => unknown).apply(store, args);
    } catch (err) {
      step = useCase.throw(err);
      continue;
    }
    step = useCase.next(answer);
  }
  return step.value;
}

/** Drives a use case with an asynchronous store: each operation awaited in turn. */
export async function runAsync<P extends Operations<P>, R>(
  useCase: UseCase<P, R>,
  store: Async<P>,
): Promise<R> {
  let step = useCase.next();
  while (!step.done) {
    const { name, args } = step.value;
    let answer: unknown;
    try {
      answer = await (store[name] as (...a: unknown[]) => Promise<unknown>).apply(store, args);
    } catch (err) {
      step = useCase.throw(err);
      continue;
    }
    step = useCase.next(answer);
  }
  return step.value;
}
