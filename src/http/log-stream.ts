import pino from 'pino';

/** What the lines are handed to once per turn: pino's own synchronous destination. */
export interface LogSink {
  write(chunk: string): unknown;
}

/** A turn's lines are written at once when they reach this many characters. */
export const MAX_TURN_BUFFER = 64 * 1024;

/**
 * The log lines of one turn of the event loop, written together at its end. Under load a
 * turn answers a batch of decisions, and one write per request log line was a system call
 * per decision on the main thread (about 2 % of a decision's CPU). A line is never held
 * past the turn it was logged in, nor past process exit (written on `exit`), so the only
 * lines a hard kill (SIGKILL, a crash of the runtime) can lose are those of the turn it
 * interrupts; the journal, not this log, is the record of every decision.
 */
export class LogStream {
  private buffer = '';
  private scheduled = false;
  private readonly flushNow = () => this.flushSync();

  constructor(private readonly sink: LogSink) {}

  write(line: string): void {
    this.buffer += line;
    if (this.buffer.length >= MAX_TURN_BUFFER) this.flushSync();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushNow);
    }
  }

  /** Write what is held now (pino calls this on a fatal line, process exit does too). */
  flushSync(): void {
    this.scheduled = false;
    if (this.buffer === '') return;
    const chunk = this.buffer;
    this.buffer = '';
    this.sink.write(chunk);
  }

  /** pino's `logger.flush(cb)`. */
  flush(cb?: (err?: Error) => void): void {
    this.flushSync();
    cb?.();
  }
}

let stdoutLog: LogStream | undefined;

/**
 * The process's log stream to stdout, one for every listener in it (so their lines never
 * interleave within a write), over pino's default synchronous destination.
 */
export function stdoutLogStream(): LogStream {
  if (stdoutLog === undefined) {
    const log = new LogStream(pino.destination({ dest: 1, sync: true }));
    process.on('exit', () => log.flushSync());
    stdoutLog = log;
  }
  return stdoutLog;
}
