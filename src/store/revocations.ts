/**
 * Token revocations as a signal, so anything that remembers tokens in memory (an auth
 * cache) forgets one the moment it is revoked, in this process or, on PostgreSQL, in any
 * replica. `undefined` means "some revocations may have been missed" (the feed's
 * connection dropped): drop everything remembered.
 */
export type RevocationListener = (tokenId: string | undefined) => void;

export interface RevocationSignal {
  /** Returns the function that stops listening. */
  subscribe(listener: RevocationListener): () => void;
}

export class RevocationHub implements RevocationSignal {
  private readonly listeners = new Set<RevocationListener>();

  subscribe(listener: RevocationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(tokenId: string | undefined): void {
    for (const listener of this.listeners) {
      try {
        listener(tokenId);
      } catch {
        // One faulty listener must not keep the others from hearing a revocation.
      }
    }
  }
}
