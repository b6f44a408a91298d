/**
 * The store's change mark (see `TokenRepo.changeMark`), read once for all the credential
 * checks waiting in one turn of the event loop instead of once per request.
 *
 * Why this is still linearisable: a check asks for the mark only after its request's
 * headers were received, and the read it gets starts after every check waiting for it
 * asked (on `setImmediate`, once the I/O callbacks of the turn have run). So the read
 * begins after each of those requests arrived, and any commit that finished before a
 * request was sent (a revocation by the CLI in another process, or by this daemon) is
 * seen by that request's check, exactly as with one read per request. A check arriving
 * while a read is in flight waits for the next read, never the one already started.
 */
export class ChangeMarkReader {
  private waiting: { resolve: (mark: string) => void; reject: (err: unknown) => void }[] | undefined;

  constructor(private readonly read: () => Promise<string>) {}

  /** The mark as of a moment after this call. */
  next(): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.waiting) {
        this.waiting.push({ resolve, reject });
        return;
      }
      this.waiting = [{ resolve, reject }];
      setImmediate(() => this.readForWaiting());
    });
  }

  private readForWaiting(): void {
    const waiting = this.waiting ?? [];
    this.waiting = undefined;
    let reading: Promise<string>;
    try {
      reading = this.read();
    } catch (err) {
      reading = Promise.reject(err);
    }
    reading.then(
      (mark) => {
        for (const w of waiting) w.resolve(mark);
      },
      (err: unknown) => {
        for (const w of waiting) w.reject(err);
      },
    );
  }
}
