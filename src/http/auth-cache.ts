import { timingSafeEqual } from 'node:crypto';
import type { Caller } from './caller.js';

/** Verified tokens held at most: about 3 MiB, and far more agents than one daemon serves. */
export const DEFAULT_AUTH_CACHE_SIZE = 10_000;

interface Entry {
  /** the domain-separated SHA-256 of the secret that was verified (never the secret) */
  digest: Uint8Array;
  expiresAtMs: number;
  caller: Caller;
}

// Compared against when the id has no entry, so a cached id and an uncached one cost the
// same comparison before both take the store's path.
const DECOY = new Uint8Array(32);

/**
 * Tokens the daemon has verified, so a repeat caller costs one hash and one comparison
 * instead of a token lookup and an actor load. Only successes are held; expiry is checked
 * on every use; and the whole cache is forgotten whenever the store's change mark moves
 * (a revocation by this process, or any commit by another), so a revocation applies to the
 * very next request. Bounded: the least recently used entry goes first.
 */
export class AuthCache {
  private readonly entries = new Map<string, Entry>();
  private mark: string | undefined;
  private generation = 0;
  private hits = 0;
  private misses = 0;

  constructor(readonly capacity = DEFAULT_AUTH_CACHE_SIZE) {}

  get size(): number {
    return this.entries.size;
  }

  /** Lookups answered from the cache and not, since it was made (for metrics). */
  get stats(): { hits: number; misses: number } {
    return { hits: this.hits, misses: this.misses };
  }

  /**
   * Adopt the store's current change mark, forgetting everything when it moved. Returns
   * the generation a later `put` must name, so a lookup that started before a change
   * cannot store what it read after another request saw the change.
   */
  sync(mark: string): number {
    if (mark !== this.mark) {
      this.mark = mark;
      this.entries.clear();
      this.generation++;
    }
    return this.generation;
  }

  /** The caller when `digest` is the verified secret's and the token has not expired by `nowMs`. */
  get(tokenId: string, digest: Uint8Array, nowMs: number): Caller | undefined {
    const entry = this.entries.get(tokenId);
    const same = timingSafeEqual(entry?.digest ?? DECOY, digest);
    if (!entry || !same) {
      this.misses++;
      return undefined;
    }
    if (nowMs >= entry.expiresAtMs) {
      this.entries.delete(tokenId);
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Most recently used goes last: a Map iterates in insertion order.
    this.entries.delete(tokenId);
    this.entries.set(tokenId, entry);
    return entry.caller;
  }

  put(generation: number, tokenId: string, digest: Uint8Array, expiresAtMs: number, caller: Caller): void {
    if (generation !== this.generation || this.capacity <= 0) return;
    this.entries.delete(tokenId);
    this.entries.set(tokenId, { digest, expiresAtMs, caller: freezeCaller(caller) });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}

// One caller object serves many requests: none of them may change it for the others.
function freezeCaller(caller: Caller): Caller {
  Object.freeze(caller.actor.roles);
  Object.freeze(caller.actor);
  return Object.freeze(caller);
}
