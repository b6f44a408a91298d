import type { Writable } from 'node:stream';
import type { SvcError } from '../core/errors.js';
import { cellText, firstPage, laterPage, type Cell } from './table.js';

/** The one page shape of every list, on the daemon and in every `svc … list --json`. */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export interface Column<T> {
  header: string;
  cell: (item: T) => Cell;
}

/**
 * Pages as they arrive: the one asked for, or with `all` every page to the last. The next
 * page is requested as soon as its cursor is known, so fetching overlaps writing; at most
 * two pages are held at a time, whatever the count.
 */
export async function* pageStream<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  o: { cursor?: string | undefined; all: boolean },
): AsyncGenerator<Page<T>> {
  let cursor = o.cursor;
  let pending = fetchPage(cursor);
  for (;;) {
    const page = await failedAt(pending, cursor);
    const next = o.all ? page.next_cursor : null;
    if (next !== null) {
      cursor = next;
      pending = fetchPage(next);
      // Handled when awaited; without this an early failure would be an unhandled rejection.
      pending.catch(() => undefined);
    }
    yield page;
    if (next === null) return;
  }
}

/** A page request that failed, with the cursor that resumes there. */
export class PageFailure extends Error {
  constructor(
    readonly error: unknown,
    readonly cursor: string | undefined,
  ) {
    super(error instanceof Error ? error.message : String(error));
  }
}

async function failedAt<T>(p: Promise<T>, cursor: string | undefined): Promise<T> {
  try {
    return await p;
  } catch (err) {
    throw new PageFailure(err, cursor);
  }
}

/** A list held in memory (the data-dir registries): one page, nothing after it. */
export async function* onePage<T>(items: T[] | Promise<T[]>): AsyncGenerator<Page<T>> {
  yield { items: await items, next_cursor: null };
}

/**
 * An error that already reached stdout inside a streamed document: the command exits with
 * its code and prints nothing more.
 */
export class ReportedError extends Error {
  constructor(readonly error: SvcError) {
    super(error.reason);
  }
}

/**
 * stdout with backpressure: a write resolves once the stream takes more. A stream error (a
 * reader that went away: EPIPE) is kept and fails the next write, rather than crashing the
 * process as an unhandled 'error' event between writes.
 */
export function sink(out: Writable): { write: (text: string) => Promise<void>; release: () => void } {
  let failed: Error | undefined;
  let waiting: ((err?: Error) => void) | undefined;
  const onError = (err: Error) => {
    failed ??= err;
    waiting?.(err);
  };
  out.on('error', onError);
  const write = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (failed) return reject(failed);
      if (out.write(text)) return resolve();
      waiting = (err) => {
        waiting = undefined;
        out.off('drain', drained);
        if (err) reject(err);
        else resolve();
      };
      const drained = () => waiting?.();
      out.once('drain', drained);
    });
  return { write, release: () => out.off('error', onError) };
}

export interface ListWriteResult {
  count: number;
  next_cursor: string | null;
}

/**
 * `{"items": [...], "next_cursor": …}` written as pages arrive, one item per line; memory
 * holds one page at a time. A page that fails after the document started closes it with
 * the items so far, the cursor to resume from and the error, so stdout stays one valid
 * JSON document; the failure is then rethrown as already reported.
 */
export async function writeJsonList<T>(
  pages: AsyncIterable<Page<T>>,
  write: (text: string) => Promise<void>,
  asError: (err: unknown) => SvcError,
): Promise<ListWriteResult> {
  let count = 0;
  let last: string | null = null;
  let started = false;
  try {
    for await (const page of pages) {
      let text = started ? '' : '{"items":[';
      started = true;
      for (const item of page.items) {
        text += `${count === 0 ? '\n' : ',\n'}${JSON.stringify(item)}`;
        count++;
      }
      last = page.next_cursor;
      await write(text);
    }
  } catch (err) {
    // A failed write (a closed pipe) cannot be reported on the stream that failed.
    if (!started || !(err instanceof PageFailure)) throw unwrap(err);
    const coded = asError(err.error);
    await write(
      `\n],"next_cursor":${JSON.stringify(err.cursor ?? null)},"error":${JSON.stringify(coded.toBody())}}\n`,
    );
    throw new ReportedError(coded);
  }
  await write(`${count === 0 ? '' : '\n'}],"next_cursor":${JSON.stringify(last)}}\n`);
  return { count, next_cursor: last };
}

/**
 * The human table, streamed: column widths from the first page, every row formatted once
 * and written with its page; a later cell wider than its column pushes its row instead
 * of reflowing what was already printed.
 */
export async function writeTableList<T>(
  pages: AsyncIterable<Page<T>>,
  columns: readonly Column<T>[],
  write: (text: string) => Promise<void>,
): Promise<ListWriteResult> {
  const headers = columns.map((c) => c.header);
  let widths: number[] | undefined;
  let count = 0;
  let last: string | null = null;
  try {
    for await (const page of pages) {
      const rows = page.items.map((item) => columns.map((c) => cellText(c.cell(item))));
      let lines: string[];
      if (widths === undefined) {
        ({ lines, widths } = firstPage(headers, rows));
      } else {
        lines = laterPage(rows, widths);
      }
      count += rows.length;
      last = page.next_cursor;
      await write(`${lines.join('\n')}\n`);
    }
  } catch (err) {
    // Rows already printed stay; after them, the caller says where to resume.
    throw widths === undefined ? unwrap(err) : err;
  }
  return { count, next_cursor: last };
}

export function unwrap(err: unknown): unknown {
  return err instanceof PageFailure ? err.error : err;
}
