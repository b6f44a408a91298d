/**
 * Tells this process's delivery loop that a transaction of its own wrote an event, so the
 * loop looks at the outbox at once instead of at its next poll. A listener is called on a
 * later turn of the event loop, never inside the transaction and never on the path of the
 * request that committed: the committer only sets a flag. Several commits before that turn
 * make one call. A rolled-back write may call it too, which costs one look at the outbox.
 */
export class OutboxSignal {
  private readonly listeners = new Set<() => void>();
  private scheduled = false;

  /** Called after each commit that wrote an event; returns how to stop listening. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A commit wrote an event (or, on SQLite, the synchronous transaction that writes one ends this turn). */
  committed(): void {
    if (this.scheduled || this.listeners.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const l of this.listeners) {
        try {
          l();
        } catch {
          // A listener's failure is its own; the commit stands and the poll still runs.
        }
      }
    });
  }
}
