import pg from 'pg';
import type { RevocationHub, RevocationListener, RevocationSignal } from '../revocations.js';
import { REVOCATION_CHANNEL } from './tokens.js';

/**
 * Revocations from every replica: one dedicated connection LISTENs on the revocation
 * channel and passes each token id to this process's listeners. It starts with the first
 * listener (a provisioning command that never listens opens no extra connection). Whenever
 * the connection is not listening, revocations may be missed, so listeners are told
 * `undefined` (forget everything) when it is lost and again once it listens anew.
 */
export class RevocationFeed implements RevocationSignal {
  private client: pg.Client | undefined;
  private started: Promise<void> | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private delayMs = 100;

  constructor(
    private readonly url: string,
    private readonly hub: RevocationHub,
    private readonly opts: { connectTimeoutMs: number; applicationName: string },
  ) {}

  subscribe(listener: RevocationListener): () => void {
    const stop = this.hub.subscribe(listener);
    void this.ready();
    return stop;
  }

  /** Resolves once the feed listens (first use starts it); never rejects: it keeps retrying. */
  ready(): Promise<void> {
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

  private async connect(): Promise<void> {
    while (!this.closed) {
      const client = new pg.Client({
        connectionString: this.url,
        connectionTimeoutMillis: this.opts.connectTimeoutMs,
        application_name: `${this.opts.applicationName} (revocations)`,
        keepAlive: true,
      });
      client.on('error', () => this.lost(client));
      client.on('end', () => this.lost(client));
      client.on('notification', (n) => {
        if (n.channel === REVOCATION_CHANNEL && n.payload) this.hub.emit(n.payload);
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
      this.hub.emit(undefined);
      return;
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.hub.emit(undefined);
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
