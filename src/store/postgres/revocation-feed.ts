import pg from 'pg';

/** The channel every replica LISTENs on; the payload is the revoked token's id. */
export const REVOCATION_CHANNEL = 'svc_revocations';

/** A token id, or `undefined`: some revocations may have been missed, forget every token. */
export type RevocationListener = (tokenId: string | undefined) => void;

/**
 * Revocations from every replica. One dedicated connection LISTENs on the revocation
 * channel (a revoke sends NOTIFY in its own transaction, so it is heard only once
 * committed); each one, and each revocation made by this process, reaches the listeners
 * and moves `mark()`, which an in-memory token cache compares on every request.
 *
 * The feed starts on first use (a provisioning command that never asks opens no extra
 * connection). While it is not listening, revocations may be missed: `mark()` then moves on
 * every call, so nothing can be cached, and listeners are told `undefined` when the
 * connection is lost and again once it listens anew.
 */
export class RevocationFeed {
  private readonly listeners = new Set<RevocationListener>();
  private client: pg.Client | undefined;
  private started: Promise<void> | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private delayMs = 100;
  private generation = 0;
  private unheard = 0;

  constructor(
    /** where to connect now: with several hosts, the one the pool found accepting writes */
    private readonly url: () => string,
    private readonly opts: { connectTimeoutMs: number; applicationName: string },
  ) {}

  subscribe(listener: RevocationListener): () => void {
    this.listeners.add(listener);
    void this.ready();
    return () => this.listeners.delete(listener);
  }

  /**
   * Moves whenever a token may have changed: a revocation heard from any replica, a token
   * written by this process, or any moment the feed is not listening.
   */
  mark(): string {
    void this.ready();
    return this.client ? `heard.${this.generation}` : `unheard.${++this.unheard}`;
  }

  /**
   * The mark once every revocation committed before this call has been heard. A round trip
   * on the listening connection is the barrier: a notification committed before the query
   * was sent is pending on the server's session for that connection, and the server sends
   * pending notifications before it answers the next query, so the client has emitted it by
   * the time the answer arrives. Without it, a request reaching this replica in the instant
   * between another process's revoking commit and its notification was served from memory.
   * Read once per event-loop turn for every credential check waiting (http/change-mark.ts).
   * A round trip that fails or outlasts the connect time-out moves the mark, as not
   * listening does, and drops the connection for a new one (nothing is remembered meanwhile).
   */
  async heardMark(): Promise<string> {
    const client = this.client;
    if (client !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          client.query('SELECT 1'),
          new Promise((_resolve, reject) => {
            timer = setTimeout(() => reject(new Error('no answer')), this.opts.connectTimeoutMs);
          }),
        ]);
      } catch {
        this.lost(client);
      } finally {
        clearTimeout(timer);
      }
    }
    return this.mark();
  }

  /** A token written by this process (committed): the mark moves, listeners hear a revocation at once. */
  changed(revokedTokenId?: string): void {
    if (revokedTokenId === undefined) this.generation++;
    else this.emit(revokedTokenId);
  }

  get listening(): boolean {
    return this.client !== undefined;
  }

  /** Resolves once the feed listens (first use starts it); never rejects: it keeps retrying. */
  ready(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.started ??= this.connect();
    return this.started;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private emit(tokenId: string | undefined): void {
    this.generation++;
    for (const listener of this.listeners) {
      try {
        listener(tokenId);
      } catch {
        // One faulty listener must not keep the others from hearing a revocation.
      }
    }
  }

  private async connect(): Promise<void> {
    while (!this.closed) {
      const client = new pg.Client({
        connectionString: this.url(),
        connectionTimeoutMillis: this.opts.connectTimeoutMs,
        application_name: `${this.opts.applicationName} (revocations)`,
        keepAlive: true,
      });
      client.on('error', () => this.lost(client));
      client.on('end', () => this.lost(client));
      client.on('notification', (n) => {
        if (n.channel === REVOCATION_CHANNEL && n.payload) this.emit(n.payload);
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${REVOCATION_CHANNEL}`);
      } catch {
        await client.end().catch(() => undefined);
        await new Promise((r) => (this.retry = setTimeout(r, this.backoff())));
        continue;
      }
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.delayMs = 100;
      // Anything revoked before this connection listened was not heard.
      this.emit(undefined);
      return;
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.emit(undefined);
    void client.end().catch(() => undefined);
    this.started = new Promise((resolve) => {
      this.retry = setTimeout(() => void this.connect().then(resolve), this.backoff());
    });
  }

  private backoff(): number {
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, 5000);
    return delay;
  }
}
